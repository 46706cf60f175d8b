"""Which per-call delegations of a native tokenizer are legitimate, each proven by the oracle.

A native tokenizer delegates a single call only where its normalizer cannot be run exactly
on that text (docs/exactness.md, "Per call"): NFC / NFKC on a text its quick check cannot
prove unchanged, and a SentencePiece ``Precompiled`` charsmap where a grapheme cluster could
change the result.  `allowance_for(normalizer)` gives the rule for a tokenizer.json's
normalizer (None when nothing may be delegated per call), and ``Allowance.reason(text)``
names the evidence that the text needs it -- or None, and the test fails:

* NFC / NFKC: the text (or what the normalizers before it make of it) holds a character the
  oracle's NFC / NFKC changes in some context: alone, after a base it composes with (found
  from the oracle's own NFD of every scalar), next to U+0334 / U+0345 / U+0316 (reordering),
  after a Hangul L or LV;
* Precompiled: at a place where a key of the charsmap starts (read from the charsmap's own
  trie), a neighbour within the cluster the key could begin (< 6 bytes, the oracle's limit)
  is one the oracle itself joins with it in one grapheme cluster -- probed with a
  one-key charsmap, one pair per probe, so a category such as Sk (which holds ``^`` and
  `````) counts for nothing on its own; the key's own character also with the text before
  it, for the rules that look back (GB9c, GB11) -- or is unassigned in the Unicode data tagpipe's
  grapheme tables are built from (they cannot know it, by design); or the trie walk from a
  key start reads past the trie's array, where tagpipe does not model the oracle.

``Allowance.max_share`` caps, rule by rule, the share of a batch a rule may justify (checked
on batches of `MIN_TEXTS_FOR_SHARE` texts or more): a tokenizer with both NFC and a charsmap
cannot spend NFC's wide cap on charsmap delegations.

`delegated_whole(json_text)` makes a tokenizer tagpipe delegates whole (no native encoder).
"""

from __future__ import annotations

import functools
import json
import struct
import unicodedata
from base64 import b64decode
from typing import Callable, Optional

import tokenizers
from tokenizers import normalizers as N

MIN_TEXTS_FOR_SHARE = 20
# The share of a batch each rule may delegate, counted apart (a text against the first rule
# that justifies it): NFC's quick check cannot prove Indic text with a virama (combining
# class 9) unchanged, so half of the multilingual corpus documents go to the oracle; a
# charsmap delegates none of the corpus documents (t5-small, marian-ortx-nmt), so two of
# the tests' 40 per corpus at most.
MAX_SHARE = {"NFC": 0.6, "NFKC": 0.6, "Precompiled": 0.05}
CLUSTER_BYTES = 6  # the oracle replaces a grapheme cluster whole only when it is shorter


def flat_normalizers(node) -> list[dict]:
    if not isinstance(node, dict):
        return []
    if node.get("type") == "Sequence":
        return [x for c in node.get("normalizers") or [] for x in flat_normalizers(c)]
    return [node]


def oracle_normalizer(steps: list[dict]) -> Callable[[str], str]:
    """The oracle's ``normalize_str`` of these normalizers in sequence."""
    wrapper = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": steps},
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
    }
    return tokenizers.Tokenizer.from_str(json.dumps(wrapper)).normalizer.normalize_str


class Allowance:
    """The per-call delegation rules of one normalizer (see the module docstring)."""

    def __init__(self, rules: list[tuple[str, Callable[[str], Optional[str]]]]):
        self.rules = rules
        self.max_share = {kind: MAX_SHARE[kind] for kind, _ in rules}

    def kind(self, text: str) -> Optional[tuple[str, str]]:
        """(the first rule that justifies delegating ``text``, its evidence), or None."""
        for kind, rule in self.rules:
            why = rule(text)
            if why is not None:
                return kind, why
        return None

    def reason(self, text: str) -> Optional[str]:
        found = self.kind(text)
        return f"{found[0]}: {found[1]}" if found is not None else None


def allowance_for(normalizer) -> Optional[Allowance]:
    """The rules for a tokenizer.json ``normalizer`` section (a dict or None)."""
    steps = flat_normalizers(normalizer)
    rules: list[tuple[str, Callable[[str], Optional[str]]]] = []
    for k, step in enumerate(steps):
        kind = step.get("type")
        if kind not in ("NFC", "NFKC", "Precompiled"):
            continue
        before = oracle_normalizer(steps[:k]) if k else None
        rule = compose_rule(kind) if kind != "Precompiled" else PrecompiledRule(step["precompiled_charsmap"])
        rules.append((kind, _after(before, rule)))
    return Allowance(rules) if rules else None


def _after(before, rule):
    """The rule applied to the text and to what the normalizers before the step make of it."""
    if before is None:
        return rule
    return lambda text: rule(text) or rule(before(text))


# -- NFC / NFKC -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _composition_bases() -> dict[str, list[str]]:
    """``bases[c]``: prefixes after which c appears in the oracle's NFD of some scalar (the
    contexts c may compose in)."""
    nfd = N.NFD()
    body = [chr(c) for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    out = nfd.normalize_str("\x00".join(body)).split("\x00")
    assert len(out) == len(body)
    bases: dict[str, list[str]] = {}
    for d in out:
        for k in range(1, len(d)):
            lst = bases.setdefault(d[k], [])
            if len(lst) < 8:
                lst.append(d[:k])
    return bases


# (prefix, suffix) around a character: alone, then next to marks it would be reordered with
# (U+0334 has combining class 1, U+0345 240, U+0316 220), then after a Hangul L and an LV
# syllable; the bases a character composes with come on top (_composition_bases).
CONTEXTS = [("", ""), ("a", "\u0334"), ("", "\u0334"), ("a\u0345", ""), ("a\u0316", ""), ("\u1100", ""), ("\uac00", "")]


def _norm(kind: str) -> Callable[[str], str]:
    return (N.NFC() if kind == "NFC" else N.NFKC()).normalize_str


@functools.lru_cache(maxsize=None)
def changes_in_some_context(kind: str, c: str) -> bool:
    """Whether the oracle's NFC (kind "NFC") or NFKC changes character c in some context."""
    norm = _norm(kind)
    contexts = [p + c + s for p, s in CONTEXTS] + [b + c for b in _composition_bases().get(c, [])]
    return any(norm(x) != x for x in contexts)


@functools.lru_cache(maxsize=None)
def changing_scalars(kind: str) -> frozenset[int]:
    """Every scalar value but U+0000 that the oracle's NFC / NFKC changes in some context (as
    :func:`changes_in_some_context`), one code point per probe: the probes of a context go to
    the oracle at once, joined by U+0000 -- a starter that composes with nothing, so that
    they cannot interact."""
    norm = _norm(kind)
    chars = [chr(c) for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    changed: set[int] = set()
    for k in range(len(CONTEXTS) + 1):
        if k < len(CONTEXTS):
            p, s = CONTEXTS[k]
            probes = [(p + c + s, c) for c in chars]
        else:
            probes = [(b + c, c) for c in chars for b in _composition_bases().get(c, [])]
        out = norm("\x00".join(x for x, _ in probes)).split("\x00")
        assert len(out) == len(probes)
        changed.update(ord(c) for (x, c), y in zip(probes, out) if x != y)
    return frozenset(changed)


def active_chars(kind: str, text: str) -> list[str]:
    """The distinct characters of ``text`` the oracle's NFC / NFKC changes in some context."""
    return [c for c in sorted(set(text)) if ord(c) >= 0x80 and changes_in_some_context(kind, c)]


def compose_rule(kind: str) -> Callable[[str], Optional[str]]:
    def rule(text: str) -> Optional[str]:
        chars = active_chars(kind, text)
        return f"the oracle's {kind} changes {_names(chars[:3])} in some context" if chars else None

    return rule


# -- Precompiled ------------------------------------------------------------------------------


def _names(chars) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in chars)


def one_key_charsmap(key: str, value: str = "Z") -> bytes:
    """A precompiled_charsmap whose trie (darts-clone, as spm_precompiled reads it) holds the one
    key ``key`` -> ``value``: a node per byte, each in a 256-unit block of its own."""
    kb = key.encode()
    units = [0] * (256 * (len(kb) + 2))
    units[0] = 256 << 10  # the root: its children start at 256
    base = 256
    for k, byte in enumerate(kb):
        node, child = base ^ byte, 256 * (k + 2)
        units[node] = byte | (1 << 8 if k == len(kb) - 1 else 0) | (node ^ child) << 10
        base = child
    units[base] = 0  # the leaf: value 0, the offset of `value` in the strings
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + value.encode() + b"\0"


@functools.lru_cache(maxsize=4096)
def _keyed(key: str) -> Callable[[str], str]:
    return N.Precompiled(one_key_charsmap(key)).normalize_str


@functools.lru_cache(maxsize=None)
def oracle_joins(a: str, b: str) -> bool:
    """Whether the oracle keeps a and b (adjacent) in one grapheme cluster.  With a -> "Z" the
    only key, "ab" becomes "Z" iff ab is one cluster (shorter than 6 bytes: replaced whole).
    Longer: with b -> "Z", "ab" + U+0301 is "aZ" when b starts a cluster (b U+0301 replaced
    whole) and "aZ" U+0301 when it joins a's (too long: character by character)."""
    if len((a + b).encode()) < CLUSTER_BYTES:
        return _keyed(a)(a + b) == "Z"
    if len(b.encode()) + 2 < CLUSTER_BYTES and _keyed(b)(b + "\u0301") == "Z":
        return _keyed(b)(a + b + "\u0301") == a + "Z\u0301"
    return False  # a cluster holding both is never replaced whole, nor one starting at b


def oracle_joins_after(before: str, b: str) -> bool:
    """Whether the oracle keeps b in one grapheme cluster with the end of ``before`` -- in
    context, for the rules that look back (GB9c's consonant and linker, GB11's pictographic
    before a ZWJ).  With b -> "Z" the only key and b of 3 bytes at most, ``before`` + b +
    U+0301 ends in "Z" when b U+0301 is a cluster of its own (< 6 bytes: replaced whole) and
    in "Z" U+0301 when b joins ``before`` (then b's cluster goes character by character)."""
    if len(b.encode()) + 2 >= CLUSTER_BYTES:
        return False
    return _keyed(b)(before + b + "\u0301").endswith("\u0301")


def unknown_to_tables(c: str) -> bool:
    """Unassigned in Python's Unicode data but possibly assigned in the oracle's: tagpipe's
    grapheme tables (tables/gen_tables.py) give such a character every grapheme property."""
    o = ord(c)
    noncharacter = 0xFDD0 <= o <= 0xFDEF or (o & 0xFFFE) == 0xFFFE
    return unicodedata.category(c) == "Cn" and not noncharacter and o >> 16 in (0, 1, 2, 3, 14)


class PrecompiledRule:
    """The charsmap's keys, read from its darts-clone trie (the format spm_precompiled reads)."""

    def __init__(self, charsmap_b64: str):
        blob = b64decode(charsmap_b64)
        size = struct.unpack_from("<I", blob)[0] // 4
        self.units = struct.unpack_from(f"<{size}I", blob, 4)
        self.strings = blob[4 + 4 * size :]

    def _walk(self, data: bytes, at: int) -> Optional[bool]:
        """From ``data[at:]``: True when a key is a prefix of it (a valid one), None
        when the walk reads past the trie's array or a key's string is malformed before a key
        is found, else False."""
        u = self.units
        pos = (u[0] >> 10) << ((u[0] & (1 << 9)) >> 6)
        for c in memoryview(data)[at:]:  # (it stops one byte past the longest key at most)
            if c == 0:
                return False
            pos ^= c
            if pos >= len(u):
                return None
            unit = u[pos]
            if unit & 0x800000FF != c:
                return False
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                if pos >= len(u):
                    return None
                v = u[pos] & 0x7FFFFFFF
                inside = v < len(self.strings) and (self.strings[v] & 0xC0) == 0x80
                return None if v > len(self.strings) or inside else True
        return False

    def __call__(self, text: str) -> Optional[str]:
        data = text.encode()
        at = 0
        for i, ch in enumerate(text):
            key = self._walk(data, at)
            at += len(ch.encode())
            if key is None:
                return f"the trie walk from char {i} ({text[i]!r}) reads past the trie's array"
            if not key:
                continue
            # The cluster the key could begin (< 6 bytes), and the boundary before it.
            j, pairs = i + 1, [(i - 1, i)] if i else []
            while j < len(text) and len(text[i:j].encode()) < CLUSTER_BYTES:
                pairs.append((j - 1, j))
                j += 1
            for x, y in pairs:
                a, b = text[x], text[y]
                unknown = [c for c in (a, b) if unknown_to_tables(c)]
                if unknown:
                    return f"{_names(unknown)} next to the key at char {i} is unknown to tagpipe's grapheme tables"
                if oracle_joins(a, b):
                    return f"the oracle joins {_names((a, b))} in one grapheme, next to the key at char {i}"
                if y == i and oracle_joins_after(text[:y], b):
                    return f"the oracle joins {_names(b)} to the text before it, at the key at char {i}"
        return None


# -- a tokenizer delegated whole ----------------------------------------------------------------

# A backreference: the regex compiler has no state machine for it, so the pre-tokenizer (and
# with it the whole tokenizer) goes to the oracle.  explain() names it; the tests assert that,
# so this cannot silently become native if the compiler learns backreferences.
DELEGATED_SPLIT = {"type": "Split", "pattern": {"Regex": r"(a)\1"}, "behavior": "Isolated", "invert": False}
DELEGATED_REASON = r"escape \1"


def delegated_whole(json_text: str) -> str:
    """`json_text` (a tokenizer.json) with `DELEGATED_SPLIT` before its pre-tokenizer: a
    tokenizer the oracle loads and tagpipe cannot run natively at all."""
    doc = json.loads(json_text)
    first = [doc["pre_tokenizer"]] if doc.get("pre_tokenizer") else []
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [DELEGATED_SPLIT, *first]}
    return json.dumps(doc)
