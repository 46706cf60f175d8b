"""Oniguruma pattern syntax (the oracle's, ONIG_SYNTAX_ONIGURUMA) -> a small AST, for the
subset the native matcher runs exactly.  Anything outside it raises Unsupported naming the
construct and its offset: the planner delegates such a Split, it never approximates one.

Character sets are (negate, code point ranges, atom mask): atoms are the classes of
tables/generated/regex_atoms.h, read off the oracle, on which every supported property
(\\p{..} general categories, \\s \\d \\w \\h, '.') is exactly a union; a script (\\p{Han})
is code point ranges (scripts_generated.py), also read off the oracle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Union

from tagpipe.plan.regex.props_generated import ALL_ATOMS, FOLDS, MASKS
from tagpipe.plan.regex.scripts_generated import ALIASES, SCRIPTS


class Unsupported(ValueError):
    """A construct outside the native subset: 'not supported: <construct> at offset N'."""

    def __init__(self, construct: str, offset: int) -> None:
        super().__init__(f"not supported: {construct} at offset {offset}")
        self.construct, self.offset = construct, offset


@dataclass(frozen=True)
class CharSet:
    negate: bool = False
    ranges: tuple[tuple[int, int], ...] = ()
    mask: int = 0


@dataclass
class Concat:
    items: list


@dataclass
class Alt:
    items: list


@dataclass
class Repeat:
    body: object
    min: int
    max: Optional[int]  # None: unbounded
    mode: str  # "greedy" | "lazy" | "possessive"


@dataclass
class Look:
    body: object
    negative: bool


@dataclass
class Atomic:
    body: object


@dataclass
class Assert:
    kind: str  # "bol" (^), "eol" ($), "begin" (\A), "end" (\z), "end_nl" (\Z), "word" (\b), "not_word" (\B)


Node = Union[CharSet, Concat, Alt, Repeat, Look, Atomic, Assert]

MAX_COUNT = 1000  # {m,n} bounds beyond it are delegated (the program expands them)
_SIMPLE_ESCAPES = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
_CLASS_ESCAPES = {"s": "s", "d": "d", "w": "w", "h": "h"}
_GC_NAMES = {n.lower(): n for n in MASKS if n[0].isupper()}
_SCRIPT_NAMES = {n.replace("_", "").lower(): n for n in SCRIPTS}
_SCRIPT_NAMES.update({a.lower(): n for a, n in ALIASES.items()})
# (?i:) literals: an adjacent pair some character folds to as a whole (ß -> ss, ﬁ -> fi, ...)
# would need Oniguruma's multi-character folding, which is not modelled.
_MULTI_FOLD_PAIRS = {"ss", "st", "ff", "fi", "fl"}
_INTERVAL = re.compile(r"\{(\d*)(,(\d*))?\}")


def literal(cp: int) -> CharSet:
    return CharSet(ranges=((cp, cp),))


def nullable(n: Node) -> bool:
    if isinstance(n, CharSet):
        return False
    if isinstance(n, Concat):
        return all(nullable(i) for i in n.items)
    if isinstance(n, Alt):
        return any(nullable(i) for i in n.items)
    if isinstance(n, Repeat):
        return n.min == 0 or nullable(n.body)
    if isinstance(n, Atomic):
        return nullable(n.body)
    return True  # Look, Assert: zero-width


@dataclass
class _Parser:
    src: str
    pos: int = 0
    icase: list = field(default_factory=lambda: [False])

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.src[i] if i < len(self.src) else ""

    def fail(self, what: str, at: Optional[int] = None) -> Unsupported:
        return Unsupported(what, self.pos if at is None else at)

    def parse(self) -> Node:
        node = self.alternation()
        if self.pos < len(self.src):
            raise self.fail("unbalanced ')'")
        return node

    def alternation(self) -> Node:
        items = [self.concat()]
        while self.peek() == "|":
            self.pos += 1
            items.append(self.concat())
        return items[0] if len(items) == 1 else Alt(items)

    def concat(self) -> Node:
        items: list = []
        starts: list[int] = []
        while self.peek() not in ("", "|", ")"):
            starts.append(self.pos)
            atom = self.atom()
            atom = self.quantifiers(atom, starts[-1])
            items.append(atom)
        if self.icase[-1]:
            self._check_folds(items, starts)
        return items[0] if len(items) == 1 else Concat(items)

    def _check_folds(self, items: list, starts: list[int]) -> None:
        chars = "".join(chr(i.ranges[0][0]) if isinstance(i, CharSet) and i.ranges else "\0" for i in items)
        for k in range(len(chars) - 1):
            pair = chars[k : k + 2].lower()
            if pair in _MULTI_FOLD_PAIRS:
                raise self.fail(f"(?i) multi-character fold {pair!r}", starts[k])

    def quantifiers(self, atom: Node, start: int) -> Node:
        while True:
            c, at = self.peek(), self.pos
            if c in ("*", "+", "?"):
                self.pos += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
                mode = "greedy"
                if self.peek() == "?":
                    self.pos, mode = self.pos + 1, "lazy"
                elif self.peek() == "+":
                    self.pos, mode = self.pos + 1, "possessive"
            elif c == "{" and (m := _INTERVAL.match(self.src, self.pos)):
                lo_s, comma, hi_s = m.group(1), m.group(2), m.group(3)
                if not lo_s and not (comma and hi_s):
                    raise self.fail("interval without bounds")
                lo = int(lo_s) if lo_s else 0
                hi = lo if not comma else (int(hi_s) if hi_s else None)
                if lo > MAX_COUNT or (hi is not None and (hi > MAX_COUNT or hi < lo)):
                    raise self.fail(f"interval {m.group(0)}")
                self.pos = m.end()
                mode = "greedy"
                if self.peek() == "?":
                    self.pos += 1
                    if comma:
                        mode = "lazy"
                    else:  # Oniguruma: a{n}? is (?:a{n})?
                        atom, lo, hi = Repeat(atom, lo, hi, "greedy"), 0, 1
                # '{n,m}+' is not possessive here: the '+' repeats the interval (next turn)
            else:
                return atom
            if self.icase[-1]:
                raise self.fail("quantifier inside (?i:...)", at)
            if isinstance(atom, (Look, Assert)):
                raise self.fail("quantified look-around or anchor", at)
            if nullable(atom) and hi != 1:
                raise self.fail("repeat of what may match the empty string", at)
            atom = Repeat(atom, lo, hi, mode)

    def atom(self) -> Node:
        c = self.peek()
        start = self.pos
        if c == "(":
            return self.group()
        if c == "[":
            return self._fold_class(self.char_class(), start) if self.icase[-1] else self.char_class()
        if c in ("*", "+", "?"):
            raise self.fail(f"quantifier {c!r} with no target")
        self.pos += 1
        if c == ".":
            return self._plain(CharSet(mask=MASKS["dot"]), start)
        if c == "^":
            return Assert("bol")
        if c == "$":
            return Assert("eol")
        if c == "\\":
            return self.escape(start)
        return self._char(ord(c), start)

    def _plain(self, cs: CharSet, start: int) -> CharSet:
        if self.icase[-1]:
            raise self.fail("class inside (?i:...)", start)
        return cs

    def _fold_class(self, cs: CharSet, start: int) -> CharSet:
        """A class inside (?i:...): only ASCII characters and ranges, each folded alone."""
        if cs.negate or cs.mask or any(hi >= 128 for _, hi in cs.ranges):
            raise self.fail("class other than ASCII characters inside (?i:...)", start)
        return CharSet(ranges=_ranges(f for lo, hi in cs.ranges for c in range(lo, hi + 1) for f in FOLDS[c]))

    def _char(self, cp: int, start: int) -> CharSet:
        if not self.icase[-1]:
            return literal(cp)
        if cp >= 128:
            raise self.fail("non-ASCII literal inside (?i:...)", start)
        return CharSet(ranges=_ranges(FOLDS[cp]))

    def group(self) -> Node:
        start = self.pos
        self.pos += 1
        kind = "capture"
        if self.peek() == "?":
            tail = self.src[self.pos + 1 : self.pos + 3]
            for prefix, k in ((":", "group"), ("=", "ahead"), ("!", "not_ahead"), (">", "atomic"), ("i:", "icase")):
                if tail.startswith(prefix):
                    kind = k
                    self.pos += 1 + len(prefix)
                    break
            else:
                raise self.fail(f"group '(?{tail[:2]}'", start)
        if self.icase[-1] and kind != "group":
            raise self.fail("group inside (?i:...)", start)
        self.icase.append(kind == "icase" or self.icase[-1])
        body = self.alternation()
        self.icase.pop()
        if self.peek() != ")":
            raise self.fail("unclosed group", start)
        self.pos += 1
        if kind in ("ahead", "not_ahead"):
            return Look(body, kind == "not_ahead")
        if kind == "atomic":
            return Atomic(body)
        return body

    def _hex(self, start: int) -> int:
        braces = self.peek() == "{"
        if braces:
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end > 0 else ""
            if not re.fullmatch(r"[0-9a-fA-F]{1,8}", digits):
                raise self.fail("\\x{...} escape", start)
            self.pos = end + 1
        else:
            m = re.compile(r"[0-9a-fA-F]{1,2}").match(self.src, self.pos)
            if not m:
                raise self.fail("\\x escape", start)
            digits, self.pos = m.group(0), m.end()
        cp = int(digits, 16)
        if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF or (cp >= 0x80 and not braces):
            raise self.fail("\\x escape of a byte above 0x7f", start)
        return cp

    def _property(self, start: int, negate: bool) -> CharSet:
        if self.peek() != "{":
            raise self.fail("\\p without braces", start)
        end = self.src.find("}", self.pos)
        name = self.src[self.pos + 1 : end] if end > 0 else ""
        self.pos = end + 1 if end > 0 else len(self.src)
        if name.startswith("^"):
            name, negate = name[1:], not negate
        # Oniguruma's lookup: ASCII letters of any case, ' ', '-' and '_' ignored
        key = re.sub(r"[ _-]", "", name).lower() if name.isascii() else ""
        if key in _GC_NAMES:
            return CharSet(negate=negate, mask=MASKS[_GC_NAMES[key]])
        if key in _SCRIPT_NAMES:
            return CharSet(ranges=_script_ranges(_SCRIPT_NAMES[key], negate))
        raise self.fail(f"property \\p{{{name}}}", start)

    def escape_set(self, start: int) -> Optional[CharSet]:
        """A set escape (\\s \\D \\p{L} ...) after the backslash, else None (pos unmoved)."""
        c = self.peek()
        if c.lower() in _CLASS_ESCAPES:
            self.pos += 1
            return CharSet(negate=c.isupper(), mask=MASKS[_CLASS_ESCAPES[c.lower()]])
        if c in ("p", "P"):
            self.pos += 1
            return self._property(start, c == "P")
        return None

    def escape_char(self, start: int) -> int:
        c = self.peek()
        if not c:
            raise self.fail("trailing backslash", start)
        self.pos += 1
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c == "x":
            return self._hex(start)
        if c == "u":
            m = re.compile(r"[0-9a-fA-F]{4}").match(self.src, self.pos)
            if not m or 0xD800 <= int(m.group(0), 16) <= 0xDFFF:
                raise self.fail("\\u escape", start)
            self.pos = m.end()
            return int(m.group(0), 16)
        if c.isascii() and not c.isalnum():
            return ord(c)
        raise self.fail(f"escape \\{c}", start)

    def escape(self, start: int) -> Node:
        cs = self.escape_set(start)
        if cs is not None:
            return self._plain(cs, start)
        c = self.peek()
        anchors = {"A": "begin", "z": "end", "Z": "end_nl", "b": "word", "B": "not_word"}
        if c in anchors:
            self.pos += 1
            return Assert(anchors[c])
        return self._char(self.escape_char(start), start)

    def char_class(self) -> CharSet:
        self.pos += 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        if self.peek() == "]":
            raise self.fail("']' first in a class", self.pos)
        ranges: list[tuple[int, int]] = []
        mask = 0
        while self.peek() != "]":
            at = self.pos
            item = self.class_item()
            if isinstance(item, CharSet):
                if item.ranges and item.negate:
                    raise self.fail("negated nested class holding ranges", at)
                ranges.extend(item.ranges)
                mask |= (ALL_ATOMS & ~item.mask) if item.negate else item.mask
                continue
            lo = item
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                hi = self.class_item()
                if isinstance(hi, CharSet) or hi < lo:
                    raise self.fail("class range", at)
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        self.pos += 1
        return CharSet(negate=negate, ranges=_merge(ranges), mask=mask)

    def class_item(self) -> Union[int, CharSet]:
        c, start = self.peek(), self.pos
        if not c:
            raise self.fail("unclosed class", start)
        if c == "[":
            if self.peek(1) == ":":
                raise self.fail("POSIX bracket", start)
            return self.char_class()
        if c == "&" and self.peek(1) == "&":
            raise self.fail("class intersection '&&'", start)
        self.pos += 1
        if c != "\\":
            return ord(c)
        cs = self.escape_set(start)
        return cs if cs is not None else self.escape_char(start)


@lru_cache(maxsize=None)
def _script_ranges(script: str, negate: bool) -> tuple[tuple[int, int], ...]:
    """A script's ranges, or their complement (so that \\P{Han} is ranges too, and may join a
    class like any other)."""
    ranges = []
    for word in SCRIPTS[script].split():
        lo, _, hi = word.partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    if not negate:
        return tuple(ranges)
    out, nxt = [], 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    return tuple(out + ([(nxt, 0x10FFFF)] if nxt <= 0x10FFFF else []))


def _ranges(cps) -> tuple[tuple[int, int], ...]:
    return _merge([(c, c) for c in cps])


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def parse(pattern: str) -> Node:
    """The AST of `pattern`; raises Unsupported outside the native subset."""
    return _Parser(pattern).parse()
