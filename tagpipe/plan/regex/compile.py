"""AST (parse.py) -> the program the native matcher runs (cpp/pretokenize/regex/program.h).

The program is a backtracking VM's code: SPLIT tries its first target before its second,
so alternation and greedy/lazy repeats keep Oniguruma's leftmost-first priorities; a
possessive repeat of one set is RUN (all it can take, never given back), any other
possessive or atomic body is ATOMIC (its first match, never revisited); look-aheads run
their body as a sub-search.  Bounded repeats are unrolled.  The encoding is a flat list of
32-bit words (docs/design/regex.md):

    VERSION, n_sets, n_sets x [negate, mask_lo, mask_hi, n_ranges, n_ranges x (lo, hi)],
    n_insts, n_insts x [op, x, y, z], n_first, n_first x set index

The first sets are those a match can begin with (none: no filter).  They do not tell whether
a match may be empty: (?=\\d) is, yet begins only where a digit is (the matcher works that out
from the code itself).
"""

from __future__ import annotations

from tagpipe.plan.regex.parse import Alt, Assert, Atomic, CharSet, Concat, Look, Node, Repeat, Unsupported
from tagpipe.plan.regex.props_generated import MASKS

VERSION = 1
CLASS, SPLIT, JMP, MATCH, LOOK, ATOMIC, RUN, ASSERT = range(8)
INF = 0xFFFFFFFF
ASSERTS = {"bol": 0, "eol": 1, "begin": 2, "end": 3, "end_nl": 4, "word": 5, "not_word": 6}
WORD = CharSet(mask=MASKS["w"])  # \b and \B: where \w starts or stops holding
MAX_INSTS = 20000
MAX_DEPTH = 8  # LOOK/ATOMIC bodies nested (cpp/pretokenize/regex/program.h, Program::kMaxDepth)


class _Emitter:
    def __init__(self) -> None:
        self.sets: dict[CharSet, int] = {}
        self.code: list[list[int]] = []
        self.depth = 0

    def emit(self, op: int, x: int = 0, y: int = 0, z: int = 0) -> int:
        if len(self.code) >= MAX_INSTS:
            raise Unsupported(f"a program over {MAX_INSTS} instructions", 0)
        self.code.append([op, x, y, z])
        return len(self.code) - 1

    def set_index(self, cs: CharSet) -> int:
        return self.sets.setdefault(cs, len(self.sets))

    def node(self, n: Node) -> None:
        if isinstance(n, CharSet):
            self.emit(CLASS, self.set_index(n))
        elif isinstance(n, Concat):
            for item in n.items:
                self.node(item)
        elif isinstance(n, Alt):
            self.alt(n.items)
        elif isinstance(n, Repeat):
            self.repeat(n)
        elif isinstance(n, Look):
            at = self.emit(LOOK, 0, int(n.negative))
            self.sub(at, n.body)
        elif isinstance(n, Atomic):
            self.sub(self.emit(ATOMIC), n.body)
        elif isinstance(n, Assert):
            self.emit(ASSERT, ASSERTS[n.kind], self.set_index(WORD) if n.kind in ("word", "not_word") else 0)
        else:  # pragma: no cover - the parser makes no other node
            raise TypeError(type(n))

    def sub(self, at: int, body: Node) -> None:
        """The body of LOOK/ATOMIC at `at`: x = its first instruction, z = after it."""
        self.code[at][1] = len(self.code)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported(f"look-arounds or atomic groups nested over {MAX_DEPTH} deep", 0)
        self.node(body)
        self.depth -= 1
        self.emit(MATCH)
        self.code[at][3] = len(self.code)

    def alt(self, items: list) -> None:
        jumps = []
        for k, item in enumerate(items):
            if k < len(items) - 1:
                split = self.emit(SPLIT, len(self.code) + 1)
                self.node(item)
                jumps.append(self.emit(JMP))
                self.code[split][2] = len(self.code)
            else:
                self.node(item)
        for j in jumps:
            self.code[j][1] = len(self.code)

    def repeat(self, n: Repeat) -> None:
        if n.mode == "possessive":
            if isinstance(n.body, CharSet):
                self.emit(RUN, self.set_index(n.body), n.min, INF if n.max is None else n.max)
            else:
                self.sub(self.emit(ATOMIC), Repeat(n.body, n.min, n.max, "greedy"))
            return
        for _ in range(n.min):
            self.node(n.body)
        lazy = n.mode == "lazy"
        if n.max is None:
            loop = self.emit(SPLIT)
            self.node(n.body)
            self.emit(JMP, loop)
            body, out = loop + 1, len(self.code)
            self.code[loop][1:3] = [out, body] if lazy else [body, out]
            return
        splits = []
        for _ in range(n.max - n.min):
            splits.append(self.emit(SPLIT))
            self.node(n.body)
        out = len(self.code)
        for s in splits:
            self.code[s][1:3] = [out, s + 1] if lazy else [s + 1, out]


def _first_sets(code: list[list[int]], start: int = 0, stop: int = -1) -> tuple[set[int], bool]:
    """(the sets a match from `start` to the MATCH at `stop` can begin with, whether that MATCH
    is reachable without a character): a superset -- anchors pass, a look-ahead narrows it to
    its own body's sets when that body needs a character."""
    stop = stop % len(code)
    seen, out, stack, empty = set(), set(), [start], False
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        op, x, y, z = code[pc]
        if op == CLASS:
            out.add(x)
        elif op == SPLIT:
            stack += [x, y]
        elif op == JMP:
            stack.append(x)
        elif op == MATCH:
            empty |= pc == stop
        elif op in (LOOK, ATOMIC):
            body, body_empty = _first_sets(code, x, z - 1)
            if op == LOOK and (y or body_empty):  # no character the match must begin with
                stack.append(z)
            else:
                out |= body
                if op == ATOMIC and body_empty:
                    stack.append(z)
        elif op == RUN:
            out.add(x)
            if y == 0:
                stack.append(pc + 1)
        elif op == ASSERT:
            stack.append(pc + 1)
    return out, empty


def compile_program(node: Node) -> list[int]:
    e = _Emitter()
    e.node(node)
    e.emit(MATCH)
    words = [VERSION, len(e.sets)]
    for cs in sorted(e.sets, key=e.sets.get):
        words += [int(cs.negate), cs.mask & 0xFFFFFFFF, cs.mask >> 32, len(cs.ranges)]
        for lo, hi in cs.ranges:
            words += [lo, hi]
    words.append(len(e.code))
    for inst in e.code:
        words += inst
    sets, empty = _first_sets(e.code)
    first = [] if empty else sorted(sets)
    return words + [len(first)] + first
