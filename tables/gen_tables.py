#!/usr/bin/env python3
"""Generate tagpipe's tag alphabets by probing the oracle.

Dev-only: needs the pinned oracle (``pip install tokenizers==0.23.3``).  Writes
``tables/generated/alphabet_<name>.h`` and ``tables/generated/norm_props.h`` (the
normalizers' per-character maps and classes; committed).  The grapheme supersets of
norm_props.h also read the third-party ``regex`` module's Unicode properties.  Every predicate is read off the
oracle's own pre-tokenizers over all 1,112,064 Unicode scalar values -- never from
Python's ``unicodedata``, whose Unicode version differs from the oracle's.

An alphabet is an ordered list of tags (tag 0 is always ``Cont``, the tag of a UTF-8
continuation byte) and a set of *predicates*, each an oracle probe plus the set of tags
on which it holds.  The generator assigns every code point the tag its predicate
vector selects and checks that every predicate is exactly a union of tags, so the tag
stream encodes each predicate with no loss.

    python tables/gen_tables.py            # regenerate tables/generated/
    python tables/gen_tables.py --check    # regenerate in memory, diff, exit 1 if stale
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ORACLE = "tokenizers==0.23.3"
REGEX_MODULE = "regex==2026.11.19"  # its Unicode data shapes the grapheme supersets: pinned like the oracle
OUT_DIR = Path(__file__).resolve().parent / "generated"
SCALARS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
BLOCK = 64  # code points per second-stage block (cp & 63)

# -- oracle probes: each returns the set of scalar values a predicate holds for ------------


def _oracle():
    import tokenizers

    want = ORACLE.split("==")[1]
    if tokenizers.__version__ != want:
        sys.exit(f"gen_tables: need {ORACLE}, found tokenizers {tokenizers.__version__}")
    from tokenizers import Regex, pre_tokenizers

    return pre_tokenizers, Regex


def _covered(pieces) -> set[int]:
    out: set[int] = set()
    for _, (a, b) in pieces:
        out.update(range(a, b))
    return out


def onig(pattern: str) -> Callable[[], set[int]]:
    """cp matches the oracle's Oniguruma class `pattern` (Split keeps only the matches)."""

    def probe() -> set[int]:
        pt, Regex = _oracle()
        split = pt.Split(Regex(pattern), behavior="removed", invert=True)
        kept = _covered(split.pre_tokenize_str("".join(map(chr, SCALARS))))
        return {SCALARS[i] for i in kept}

    probe.__doc__ = f"onig {pattern}"
    return probe


def rust_whitespace() -> set[int]:
    """char::is_whitespace, as WhitespaceSplit removes it."""
    pt, _ = _oracle()
    kept = _covered(pt.WhitespaceSplit().pre_tokenize_str("".join(map(chr, SCALARS))))
    return {c for i, c in enumerate(SCALARS) if i not in kept}


def _isolated_singletons(pretok) -> set[int]:
    # "x c1 x c2 x ...": an isolated char comes back as a one-char piece of its own.
    text = "x" + "x".join(map(chr, SCALARS)) + "x"
    return {ord(s) for s, (a, b) in pretok.pre_tokenize_str(text) if b - a == 1 and s != "x"}


def rust_numeric() -> set[int]:
    """char::is_numeric, as Digits(individual_digits=True) isolates it."""
    pt, _ = _oracle()
    return _isolated_singletons(pt.Digits(individual_digits=True))


def bert_punct() -> set[int]:
    """is_ascii_punctuation || unicode_categories is_punctuation (Punctuation, Bert)."""
    pt, _ = _oracle()
    return _isolated_singletons(pt.Punctuation())


def rust_word() -> set[int]:
    r"""Rust regex \w, as the Whitespace pre-tokenizer (\w+|[^\w\s]+) groups it with 'a'."""
    pt, _ = _oracle()
    # unit i is "a", c, U+3000 (whitespace): c joins a's piece iff c is \w.
    text = "".join("a" + chr(c) + "\u3000" for c in SCALARS)
    piece_of = {}
    for _, (a, b) in pt.Whitespace().pre_tokenize_str(text):
        for k in range(a, b):
            piece_of[k] = a
    return {c for i, c in enumerate(SCALARS) if piece_of.get(3 * i + 1, -1) == piece_of.get(3 * i)}


def script_classes() -> tuple[set[int], list[list[int]]]:
    """UnicodeScripts' fixed_script, as equivalence classes.

    Returns (any_set, classes): `any_set` are the transparent code points (script Any:
    ' ' and every code point the oracle's table does not list); `classes` partition the
    rest so that two code points share a class iff the oracle never splits between them.
    """
    pt, _ = _oracle()
    us = pt.UnicodeScripts()

    def piece_starts(text: str) -> list[int]:
        return [a for _, (a, _b) in us.pre_tokenize_str(text)]

    def same_piece(text: str):
        starts = piece_starts(text)
        owner, j = [], 0
        for k in range(len(text)):
            while j + 1 < len(starts) and starts[j + 1] <= k:
                j += 1
            owner.append(j)
        return owner

    # 1. Any: in "a c 中" c joins 'a' (Any or Latin); in "中 c a" c joins 中 only if Any.
    own = same_piece("".join("a" + chr(c) + "中" for c in SCALARS))
    cand = [c for i, c in enumerate(SCALARS) if own[3 * i + 1] == own[3 * i]]
    own = same_piece("".join("中" + chr(c) + "a" for c in cand))
    any_set = {c for i, c in enumerate(cand) if own[3 * i + 1] == own[3 * i]}

    # 2. Runs: chaining the other code points in order, the oracle cuts where the script changes.
    rest = [c for c in SCALARS if c not in any_set]
    starts = piece_starts("".join(map(chr, rest))) + [len(rest)]
    runs = [rest[a:b] for a, b in zip(starts, starts[1:])]

    # 3. Group runs: r shares x's script iff "x r" is one piece.
    classes: list[list[int]] = []
    for run in runs:
        r = chr(run[0])
        text = "".join(chr(cls[0]) + r for cls in classes)
        own = same_piece(text) if text else []
        hit = [k for k in range(len(classes)) if own[2 * k] == own[2 * k + 1]]
        if len(hit) > 1:
            raise SystemExit(f"gen_tables: U+{run[0]:04X} joins {len(hit)} script classes")
        if hit:
            classes[hit[0]].extend(run)
        else:
            classes.append(list(run))
    return any_set, classes


def nfc_changes() -> set[int]:
    """Code points NFC may change in some context (the oracle's NFC, old Unicode tables):
    those NFC changes alone, those that follow a starter in some canonical decomposition
    (they may compose with what precedes them; Hangul vowels and trailing consonants
    included), and those with a non-zero combining class (NFC may reorder them: they move
    around U+0334 (ccc 1) or U+0316 (ccc 220))."""
    from tokenizers import normalizers

    nfc, nfd = normalizers.NFC(), normalizers.NFD()
    body = [c for c in SCALARS if c != 0]  # NUL separates the units

    def each(norm, units):
        out = norm.normalize_str("\x00".join(units)).split("\x00")
        assert len(out) == len(units)
        return out

    out = set()
    for c, o in zip(body, each(nfc, [chr(c) for c in body])):
        if o != chr(c):
            out.add(c)
    for o in each(nfd, [chr(c) for c in body]):
        out.update(ord(ch) for ch in o[1:])
    for c, o in zip(body, each(nfc, ["a" + chr(c) + "\u0334" for c in body])):
        if o != "a" + chr(c) + "\u0334":
            out.add(c)
    for c, o in zip(body, each(nfc, ["a\u0316" + chr(c) for c in body])):
        if o != "a\u0316" + chr(c):
            out.add(c)
    if nfc.normalize_str("a\x00\u0301") != "a\x00\u0301":
        out.add(0)
    return out


# -- alphabets -------------------------------------------------------------------------------


@dataclass
class Alphabet:
    name: str
    doc: str
    tags: list[str]  # tags[0] == "Cont"
    tag_doc: dict[str, str]
    # predicate name -> (probe, tags on which it holds)
    predicates: dict[str, tuple[Callable[[], set[int]], set[str]]]
    # maps a code point's predicate set (frozenset of names) to its tag
    choose: Callable[[frozenset[str], int], str]
    per_cp: dict[int, int] = field(default_factory=dict)


def _regex_choose(p: frozenset[str], cp: int) -> str:
    for pred, tag in (
        ("space", "Space"),
        ("newline", "Newline"),
        ("ws", "WsOther"),
        ("apostrophe", "Apostrophe"),
        ("slash", "Slash"),
        ("digit", "Digit"),
        ("upper", "Upper"),
        ("lower", "Lower"),
        ("letter_other", "LetterOther"),
        ("M", "Mark"),
        ("N", "Number"),
    ):
        if pred in p:
            return tag
    return "Other"


REGEX = Alphabet(
    name="regex",
    doc="Oniguruma classes of the ByteLevel / cl100k / qwen2 / o200k / falcon patterns.",
    tags=[
        "Cont",
        "Upper",
        "Lower",
        "LetterOther",
        "Mark",
        "Number",
        "Digit",
        "Space",
        "Newline",
        "WsOther",
        "Apostrophe",
        "Slash",
        "Other",
    ],
    tag_doc={
        "Upper": r"\p{Lu} | \p{Lt}",
        "Lower": r"\p{Ll}",
        "LetterOther": r"\p{Lm} | \p{Lo}",
        "Mark": r"\p{M}",
        "Number": r"\p{N} except 0-9",
        "Digit": "0-9",
        "Space": "U+0020",
        "Newline": r"\r \n",
        "WsOther": r"\s except \r \n U+0020",
        "Apostrophe": "'",
        "Slash": "/",
        "Other": r"none of the above ([^\s\p{L}\p{M}\p{N}])",
    },
    predicates={
        "L": (onig(r"\p{L}"), {"Upper", "Lower", "LetterOther"}),
        "upper": (onig(r"[\p{Lu}\p{Lt}]"), {"Upper"}),
        "lower": (onig(r"\p{Ll}"), {"Lower"}),
        "letter_other": (onig(r"[\p{Lm}\p{Lo}]"), {"LetterOther"}),
        "M": (onig(r"\p{M}"), {"Mark"}),
        "N": (onig(r"\p{N}"), {"Number", "Digit"}),
        "digit": (onig(r"[0-9]"), {"Digit"}),
        "ws": (onig(r"\s"), {"Space", "Newline", "WsOther"}),
        "newline": (onig(r"[\r\n]"), {"Newline"}),
        "space": (onig(" "), {"Space"}),
        "apostrophe": (onig("'"), {"Apostrophe"}),
        "slash": (onig("/"), {"Slash"}),
    },
    choose=_regex_choose,
)

DEEPSEEK_ASCII_PS = r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]"""
DEEPSEEK_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]"


def _deepseek_choose(p: frozenset[str], cp: int) -> str:
    if "cjk" in p:
        for pred, tag in (("L", "CjkLetter"), ("M", "CjkMark"), ("PS", "CjkPunctSym")):
            if pred in p:
                return tag
        return "CjkOther"
    for pred, tag in (
        ("space", "Space"),
        ("newline", "Newline"),
        ("ws", "WsOther"),
        ("ascii_letter", "AsciiLetter"),
        ("ascii_ps", "AsciiPunctSym"),
        ("L", "Letter"),
        ("M", "Mark"),
        ("N", "Number"),
        ("PS", "PunctSym"),
    ):
        if pred in p:
            return tag
    return "Other"


DEEPSEEK = Alphabet(
    name="deepseek",
    doc="Classes of the deepseek-v3 Split triple (N, the CJK range, ASCII punct, L/M/P/S).",
    tags=[
        "Cont",
        "Letter",
        "AsciiLetter",
        "Mark",
        "Number",
        "PunctSym",
        "AsciiPunctSym",
        "Space",
        "Newline",
        "WsOther",
        "Other",
        "CjkLetter",
        "CjkMark",
        "CjkPunctSym",
        "CjkOther",
    ],
    tag_doc={
        "Letter": r"\p{L} except A-Za-z and the CJK range",
        "AsciiLetter": "A-Za-z",
        "Mark": r"\p{M} outside the CJK range",
        "Number": r"\p{N}",
        "PunctSym": r"[\p{P}\p{S}] except ASCII and the CJK range",
        "AsciiPunctSym": "the ASCII punctuation class of the third Split",
        "Space": "U+0020",
        "Newline": r"\r \n",
        "WsOther": r"\s except \r \n U+0020",
        "Other": "none of the above",
        "CjkLetter": r"CJK range and \p{L}",
        "CjkMark": r"CJK range and \p{M}",
        "CjkPunctSym": r"CJK range and [\p{P}\p{S}]",
        "CjkOther": "CJK range, none of L M P S (unassigned)",
    },
    predicates={
        "L": (onig(r"\p{L}"), {"Letter", "AsciiLetter", "CjkLetter"}),
        "M": (onig(r"\p{M}"), {"Mark", "CjkMark"}),
        "N": (onig(r"\p{N}"), {"Number"}),
        "PS": (onig(r"[\p{P}\p{S}]"), {"PunctSym", "AsciiPunctSym", "CjkPunctSym"}),
        "ws": (onig(r"\s"), {"Space", "Newline", "WsOther"}),
        "newline": (onig(r"[\r\n]"), {"Newline"}),
        "space": (onig(" "), {"Space"}),
        "ascii_ps": (onig(DEEPSEEK_ASCII_PS), {"AsciiPunctSym"}),
        "ascii_letter": (onig("[A-Za-z]"), {"AsciiLetter"}),
        "cjk": (onig(DEEPSEEK_CJK), {"CjkLetter", "CjkMark", "CjkPunctSym", "CjkOther"}),
    },
    choose=_deepseek_choose,
)


def _unicode_choose(p: frozenset[str], cp: int) -> str:
    if "space" in p:
        return "Space"
    if "ws" in p:
        return "WsOther"
    if "punct" in p:
        return "PunctWord" if "word" in p else "Punct"
    if "word" in p:
        return "WordNumeric" if "numeric" in p else "Word"
    return "Numeric" if "numeric" in p else "Other"


UNICODE = Alphabet(
    name="unicode",
    doc="Rust std / regex-crate predicates: Whitespace, WhitespaceSplit, Bert, Punctuation, Digits.",
    tags=["Cont", "Word", "WordNumeric", "Numeric", "Punct", "PunctWord", "Space", "WsOther", "Other"],
    tag_doc={
        "Word": r"regex \w, not numeric, not punctuation",
        "WordNumeric": r"regex \w and char::is_numeric",
        "Numeric": r"is_numeric, not \w",
        "Punct": r"Bert punctuation, not \w",
        "PunctWord": r"Bert punctuation and \w",
        "Space": "U+0020",
        "WsOther": "char::is_whitespace except U+0020",
        "Other": "none of the above",
    },
    predicates={
        "ws": (rust_whitespace, {"Space", "WsOther"}),
        "numeric": (rust_numeric, {"WordNumeric", "Numeric"}),
        "punct": (bert_punct, {"Punct", "PunctWord"}),
        "word": (rust_word, {"Word", "WordNumeric", "PunctWord"}),
        "space": (onig(" "), {"Space"}),
    },
    choose=_unicode_choose,
)

NFC = Alphabet(
    name="nfc",
    doc="NFC quick check: characters the oracle's NFC leaves alone in every context.",
    tags=["Cont", "Inert", "Changes"],
    tag_doc={
        "Inert": "NFC never changes it, whatever surrounds it",
        "Changes": "NFC may change it (decomposes, composes with what precedes it, or reorders)",
    },
    predicates={"changes": (nfc_changes, {"Changes"})},
    choose=lambda p, cp: "Changes" if "changes" in p else "Inert",
)

ALPHABETS = [REGEX, DEEPSEEK, UNICODE, NFC]


def build_predicate_alphabet(a: Alphabet) -> None:
    sets = {}
    for name, (probe, _tags) in a.predicates.items():
        print(f"  probing {a.name}.{name}", file=sys.stderr)
        sets[name] = probe()
    index = {t: i for i, t in enumerate(a.tags)}
    for cp in SCALARS:
        p = frozenset(n for n, s in sets.items() if cp in s)
        tag = a.choose(p, cp)
        for name, (_probe, true_tags) in a.predicates.items():
            if (tag in true_tags) != (name in p):
                raise SystemExit(f"gen_tables: {a.name}: U+{cp:04X} tagged {tag} but predicate {name} is {name in p}")
        a.per_cp[cp] = index[tag]


def build_scripts() -> Alphabet:
    print("  probing scripts", file=sys.stderr)
    any_set, classes = script_classes()
    classes.sort(key=lambda c: min(c))
    import unicodedata

    def label(cls: list[int]) -> str:
        cp = min(cls)
        name = unicodedata.name(chr(cp), "")
        return f"U+{cp:04X} {name}".strip()

    tags = ["Cont", "Any"] + [f"S{i:03d}" for i in range(len(classes))]
    a = Alphabet(
        name="scripts",
        doc="UnicodeScripts' fixed_script classes (Hiragana/Katakana/U+30FC as Han, ' ' and "
        "unlisted code points Any), derived as the oracle's equivalence classes.",
        tags=tags,
        tag_doc={"Any": "transparent: ' ' and code points outside the script table"}
        | {f"S{i:03d}": "first member " + label(c) for i, c in enumerate(classes)},
        predicates={},
        choose=lambda p, cp: "",
    )
    for cp in any_set:
        a.per_cp[cp] = 1
    for i, cls in enumerate(classes):
        for cp in cls:
            a.per_cp[cp] = 2 + i
    if len(tags) > 255:
        raise SystemExit("gen_tables: too many script classes for one byte")
    return a


# -- emission: ascii[128] + two-stage table ---------------------------------------------------

STAGE1_LEN = 0x110000 // BLOCK + 1  # the extra entry is an all-"U+FFFD" block for clamped garbage


def emit(a: Alphabet) -> str:
    full = [0] * 0x110000
    fffd = a.per_cp[0xFFFD]
    for cp in range(0x110000):
        full[cp] = a.per_cp.get(cp, fffd)  # surrogates are never looked up; any value will do
    blocks: dict[tuple[int, ...], int] = {}
    stage1 = []
    for b in range(0x110000 // BLOCK):
        blk = tuple(full[b * BLOCK : (b + 1) * BLOCK])
        stage1.append(blocks.setdefault(blk, len(blocks)))
    stage1.append(blocks.setdefault(tuple([fffd] * BLOCK), len(blocks)))
    if len(blocks) > 0xFFFF:
        raise SystemExit("gen_tables: too many blocks")
    stage2 = [t for blk in sorted(blocks, key=blocks.get) for t in (blk if blk[0] != "pad" else [fffd] * BLOCK)]
    ascii_tab = full[:128]

    def rows(vals, per, fmt):
        return "\n".join("    " + ", ".join(fmt(v) for v in vals[i : i + per]) + "," for i in range(0, len(vals), per))

    enum = "\n".join(f"    {t} = {i},{'  // ' + a.tag_doc[t] if t in a.tag_doc else ''}" for i, t in enumerate(a.tags))
    names = ", ".join(f'"{t}"' for t in a.tags)
    return f"""\
// GENERATED by tables/gen_tables.py from the oracle {ORACLE}. Do not edit.
// Alphabet "{a.name}": {a.doc}
#pragma once
#include <cstdint>

namespace tagpipe::tables::{a.name} {{

enum Tag : uint8_t {{
{enum}
}};
inline constexpr int kTagCount = {len(a.tags)};
inline constexpr const char* kTagNames[kTagCount] = {{{names}}};
inline constexpr uint8_t kFffdTag = {fffd};  // the tag of U+FFFD; every ill-formed byte gets it

// Tag of each ASCII byte.
alignas(64) inline constexpr uint8_t kAscii[128] = {{
{rows(ascii_tab, 16, lambda v: f"{v:2d}")}
}};

// Tag of code point cp >= 0x80: kStage2[kStage1[cp >> 6] * 64 + (cp & 63)].
// kStage1 has one extra entry past 0x10FFFF >> 6 (an all-U+FFFD block) so that a kernel may
// clamp any garbage index to it instead of branching.
inline constexpr int kStage1Len = {len(stage1)};
alignas(64) inline constexpr uint16_t kStage1[kStage1Len + 2] = {{  // +2: a 32-bit gather may read past the end
{rows(stage1 + [0, 0], 16, lambda v: f"{v:3d}")}
}};
inline constexpr int kStage2Len = {len(stage2)};
alignas(64) inline constexpr uint8_t kStage2[kStage2Len + 4] = {{  // +4: a 32-bit gather may read past the end
{rows(stage2 + [0, 0, 0, 0], 32, lambda v: f"{v:d}")}
}};

}}  // namespace tagpipe::tables::{a.name}
"""


# -- normalizer properties: per-character maps and classes for the native normalizers --------
#
# Every value is read off the oracle's own normalizers, one probe per property over all
# scalar values (units joined by a separator the normalizer leaves alone and never merges).

NORM_FLAGS = {  # bit -> meaning (cpp/normalize/unicode.h reads them by these names)
    "kCleanRemove": "BertNormalizer clean_text drops it (NUL, U+FFFD, unicode_categories is_other)",
    "kCleanSpace": "BertNormalizer clean_text maps it to ' ' (its is_whitespace, and kept)",
    "kChinese": "BertNormalizer handle_chinese_chars puts ' ' around it",
    "kBertMn": "BertNormalizer strip_accents drops it after NFD (unicode_categories is_mark_nonspacing)",
    "kMark": "StripAccents drops it (unicode_normalization is_combining_mark)",
    "kWhitespace": "char::is_whitespace (Strip)",
    "kHangul": "a precomposed Hangul syllable: NFD/NFKD decompose it arithmetically",
    "kGraphemeExtend": "joins the grapheme before it whatever that is (GB9 Extend/ZWJ, GB9a SpacingMark)",
    "kGraphemeControl": "breaks a grapheme on both sides: Control, CR, LF (GB4/GB5)",
    # The rest are supersets (more than the oracle's class never makes a wrong answer, only a
    # delegated call): the `regex` module's Unicode property, plus every code point Python's
    # unicodedata (Unicode 14) leaves unassigned that a later Unicode may assign (not a
    # noncharacter, in planes 0-3 or 14), plus ranges noted.
    "kGbPrepend": "may be Prepend (GB9b)",
    "kGbHangul": "in a Hangul jamo or syllable block (GB6-8)",
    "kGbRegional": "a regional indicator (GB12/13)",
    "kGbZwj": "U+200D ZERO WIDTH JOINER (GB11)",
    "kGbPictographic": "may be Extended_Pictographic (GB11)",
    "kGbConsonant": "may be Indic_Conjunct_Break=Consonant (GB9c)",
    "kGbLinker": "may be Indic_Conjunct_Break=Linker (GB9c)",
    "kNfkcChanges": "NFKC may change it in some context (alone, composing, reordering): the quick check",
}
GRAPHEME_SUPERSETS = {
    "kGbPrepend": (r"\p{Grapheme_Cluster_Break=Prepend}", []),
    "kGbHangul": (
        r"\p{Hangul_Syllable_Type=L}|\p{Hangul_Syllable_Type=V}|\p{Hangul_Syllable_Type=T}"
        r"|\p{Hangul_Syllable_Type=LV}|\p{Hangul_Syllable_Type=LVT}",
        [(0x1100, 0x11FF), (0xA960, 0xA97F), (0xAC00, 0xD7FF)],
    ),
    "kGbRegional": (r"\p{Regional_Indicator}", [(0x1F1E6, 0x1F1FF)]),
    "kGbPictographic": (r"\p{Extended_Pictographic}", []),
    "kGbConsonant": (r"\p{Indic_Conjunct_Break=Consonant}", []),
    "kGbLinker": (r"\p{Indic_Conjunct_Break=Linker}", []),
}


def _maybe_assigned_later(c: int, unicodedata) -> bool:
    """Unassigned in Python's Unicode 14 but possibly assigned in the oracle's: not a
    noncharacter, and in a plane Unicode assigns characters in (0-3, 14)."""
    noncharacter = 0xFDD0 <= c <= 0xFDEF or (c & 0xFFFE) == 0xFFFE
    return unicodedata.category(chr(c)) == "Cn" and not noncharacter and c >> 16 in (0, 1, 2, 3, 14)


def grapheme_superset(pattern: str, ranges: list[tuple[int, int]]) -> set[int]:
    import unicodedata

    import regex  # the third-party module: it knows the grapheme properties

    if f"regex=={regex.__version__}" != REGEX_MODULE:
        raise SystemExit(f"the grapheme tables are generated with {REGEX_MODULE}, not regex=={regex.__version__}")
    rx = regex.compile(pattern)
    out = {c for c in SCALARS if rx.match(chr(c)) or _maybe_assigned_later(c, unicodedata)}
    for a, b in ranges:
        out.update(range(a, b + 1))
    return out


def _one_key_charsmap(key: bytes, value: str) -> bytes:
    """A precompiled_charsmap whose trie holds the one key `key` (1 or 2 bytes) -> `value`."""
    import struct

    units = [0] * 512
    units[0] = 1 << 10  # root: offset 1
    pos = 1
    for k, byte in enumerate(key):
        node = pos ^ byte
        last = k == len(key) - 1
        step = 1 if last else 256
        units[node] = byte | (1 << 8 if last else 0) | step << 10  # label, leaf flag, offset
        pos = node ^ step
    units[pos] = 0  # the leaf: value 0 (normalized[0..])
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + value.encode() + b"\0"


def grapheme_extend() -> set[int]:
    """Characters the oracle's Precompiled keeps in one grapheme with a preceding 'a': with
    'a' -> 'Z' in the trie, "a"+c is one grapheme of < 6 bytes iff the output drops c."""
    from tokenizers import normalizers as N

    pre = N.Precompiled(_one_key_charsmap(b"a", "Z"))
    body = [c for c in SCALARS if c not in (0x0A, 0x61)]  # LF separates the units (GB4/GB5)
    out = pre.normalize_str("\n".join("a" + chr(c) for c in body)).split("\n")
    if len(out) != len(body):
        raise SystemExit("gen_tables: grapheme units merged")
    found = set()
    for c, o in zip(body, out):
        if o == "Z":
            found.add(c)
        elif o != "Z" + chr(c):
            raise SystemExit(f"gen_tables: Precompiled 'a' U+{c:04X} -> {o!r}")
    return found


def grapheme_control() -> set[int]:
    """Control, CR and LF: the characters after which a grapheme always breaks.  With
    U+0301 -> 'Z' in the trie, c U+0301 U+0302 becomes c 'Z' when U+0301 starts a grapheme
    (its prefix match replaces the whole grapheme) and c 'Z' U+0302 when it joins c's."""
    from tokenizers import normalizers as N

    pre = N.Precompiled(_one_key_charsmap("\u0301".encode(), "Z"))
    body = [c for c in SCALARS if c not in (0x0A, 0x0D, 0x301)]
    out = pre.normalize_str("\n".join(chr(c) + "\u0301\u0302" for c in body)).split("\n")
    if len(out) != len(body):
        raise SystemExit("gen_tables: grapheme units merged")
    found = {0x0A, 0x0D}
    for c, o in zip(body, out):
        if o == chr(c) + "Z":
            found.add(c)
        elif o != chr(c) + "Z\u0302":
            raise SystemExit(f"gen_tables: Precompiled U+{c:04X} U+0301 U+0302 -> {o!r}")
    return found


HANGUL = range(0xAC00, 0xAC00 + 11172)


def hangul_nfd(cp: int) -> str:
    s = cp - 0xAC00
    out = chr(0x1100 + s // 588) + chr(0x1161 + (s % 588) // 28)
    return out + (chr(0x11A7 + s % 28) if s % 28 else "")


def _units(norm, units: list[str], sep: str) -> list[str]:
    out = norm.normalize_str(sep.join(units)).split(sep)
    if len(out) != len(units):
        raise SystemExit(f"gen_tables: {norm!r} merged units across {sep!r}")
    return out


def norm_properties() -> tuple[dict[int, int], dict[int, int], dict[str, dict[int, str]]]:
    """(flags per cp, ccc per cp, {map name: {cp: replacement}}) from the oracle."""
    _oracle()
    from tokenizers import normalizers as N

    bits = {name: 1 << i for i, name in enumerate(NORM_FLAGS)}
    body = [c for c in SCALARS if c != 0]
    chars = [chr(c) for c in body]
    flags = {c: 0 for c in SCALARS}
    maps: dict[str, dict[int, str]] = {}
    print("  probing norm maps", file=sys.stderr)
    for name, norm in (("lower", N.Lowercase()), ("nfd", N.NFD()), ("nfkd", N.NFKD())):
        maps[name] = {c: o for c, o in zip(body, _units(norm, chars, "\x00")) if o != chr(c)}
        if norm.normalize_str("\x00") != "\x00":
            raise SystemExit(f"gen_tables: {name} changes NUL")
    for name in ("nfd", "nfkd"):  # Hangul syllables: the arithmetic decomposition, checked
        for c in HANGUL:
            if maps[name].pop(c) != hangul_nfd(c):
                raise SystemExit(f"gen_tables: {name} U+{c:04X} is not the Hangul arithmetic")
            flags[c] |= bits["kHangul"]
    fixed = [c for c in body if c not in maps["nfd"] and c not in HANGUL]  # NFD leaves them alone

    # Canonical combining classes.  Nonzero iff the character reorders around U+0334 (ccc 1)
    # or U+0345 (ccc 240); then its class is pinned by its order against one representative
    # of every class (Python's unicodedata gives candidates; the oracle decides).
    nfd = N.NFD()
    if nfd.normalize_str("a\u0345\u0334") != "a\u0334\u0345":
        raise SystemExit("gen_tables: U+0334 / U+0345 are not ccc 1 / 240 in the oracle")
    moved = [
        u != w
        for u, w in zip(
            _units(nfd, ["a" + chr(c) + "\u0334" for c in fixed], "\x00"), ["a" + chr(c) + "\u0334" for c in fixed]
        )
    ]
    moved2 = [
        u != w
        for u, w in zip(_units(nfd, ["a\u0345" + chr(c) for c in fixed], "\x00"), ["a\u0345" + chr(c) for c in fixed])
    ]
    nonzero = [c for c, m, m2 in zip(fixed, moved, moved2) if m or m2 or c in (0x334, 0x345)]
    import unicodedata

    reps: dict[int, int] = {}
    for c in nonzero:
        reps.setdefault(unicodedata.combining(chr(c)), c)
    reps.pop(0, None)

    ccc = {c: 0 for c in SCALARS}
    tests = [(c, v, r) for c in nonzero for v, r in reps.items()]
    fwd = _units(nfd, ["a" + chr(c) + chr(r) for c, _v, r in tests], "\x00")
    bwd = _units(nfd, ["a" + chr(r) + chr(c) for c, _v, r in tests], "\x00")
    rel: dict[int, dict[int, int]] = {}
    for (c, v, r), f, b in zip(tests, fwd, bwd):
        # -1: c sorts before r's class, 0: same class, 1: after
        rel.setdefault(c, {})[v] = 1 if f != "a" + chr(c) + chr(r) else (-1 if b != "a" + chr(r) + chr(c) else 0)
    for c in nonzero:
        same = [v for v, k in rel[c].items() if k == 0]
        if len(same) != 1:
            raise SystemExit(f"gen_tables: U+{c:04X} matches {len(same)} combining classes")
        v = same[0]
        if any((k < 0) != (w > v) or (k > 0) != (w < v) for w, k in rel[c].items() if w != v):
            raise SystemExit(f"gen_tables: U+{c:04X} orders inconsistently")
        ccc[c] = v

    print("  probing norm classes", file=sys.stderr)
    strip = N.StripAccents()
    for c, o in zip(body, _units(strip, chars, "\x00")):
        if o == "":
            flags[c] |= bits["kMark"]
    bert_mn = N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    for c, o in zip(fixed, _units(bert_mn, [chr(c) for c in fixed], "\x00")):
        if o == "":
            flags[c] |= bits["kBertMn"]
    chinese = N.BertNormalizer(clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False)
    for c, o in zip(body, _units(chinese, chars, "\x00")):
        if o == " " + chr(c) + " ":
            flags[c] |= bits["kChinese"]
        elif o != chr(c):
            raise SystemExit(f"gen_tables: handle_chinese_chars U+{c:04X} -> {o!r}")
    clean = N.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    sep = "\u4e00"
    units = [chr(c) for c in SCALARS if c != 0x4E00]
    for c, o in zip([c for c in SCALARS if c != 0x4E00], _units(clean, units, sep)):
        if o == "":
            flags[c] |= bits["kCleanRemove"]
        elif o == " " and c != 0x20:
            flags[c] |= bits["kCleanSpace"]
        elif o != chr(c):
            raise SystemExit(f"gen_tables: clean_text U+{c:04X} -> {o!r}")
    for c in rust_whitespace():
        flags[c] |= bits["kWhitespace"]
    print("  probing nfkc", file=sys.stderr)
    for c in nfkc_changes():
        flags[c] |= bits["kNfkcChanges"]
    print("  probing graphemes", file=sys.stderr)
    sets = {"kGraphemeExtend": grapheme_extend(), "kGraphemeControl": grapheme_control(), "kGbZwj": {0x200D}}
    sets |= {name: grapheme_superset(*how) for name, how in GRAPHEME_SUPERSETS.items()}
    for name, members in sets.items():
        for c in members:
            flags[c] |= bits[name]
    return flags, ccc, maps


def nfkc_changes() -> set[int]:
    """Code points the oracle's NFKC may change in some context.  As nfc_changes, with the
    compatibility forms: those NFKC changes alone; every non-first character of an NFD
    decomposition (a possible second element of a canonical composition) and every
    character whose NFKD starts with one; those that reorder or compose next to U+0334 / U+0316.
    A text of other characters is its own NFKD, character by character, and recomposes
    to itself."""
    from tokenizers import normalizers

    nfkc, nfd, nfkd = normalizers.NFKC(), normalizers.NFD(), normalizers.NFKD()
    body = [c for c in SCALARS if c != 0]
    units = [chr(c) for c in body]
    out = {c for c, o in zip(body, _units(nfkc, units, "\x00")) if o != chr(c)}
    tails: set[int] = set()
    for o in _units(nfd, units, "\x00"):
        tails.update(ord(ch) for ch in o[1:])
    firsts = {c: ord(o[0]) if o else c for c, o in zip(body, _units(nfkd, units, "\x00"))}
    out |= tails
    out |= {c for c, f in firsts.items() if f in tails}
    for c, o in zip(body, _units(nfkc, ["a" + chr(c) + "\u0334" for c in body], "\x00")):
        if o != "a" + chr(c) + "\u0334":
            out.add(c)
    for c, o in zip(body, _units(nfkc, ["a\u0316" + chr(c) for c in body], "\x00")):
        if o != "a\u0316" + chr(c):
            out.add(c)
    if nfkc.normalize_str("a\x00\u0301") != "a\x00\u0301":
        out.add(0)
    return out


def emit_norm() -> str:
    flags, ccc, maps = norm_properties()
    pool = bytearray(b"\x00")  # offset 0: no mapping (the character maps to itself)
    offsets: dict[str, int] = {}

    def intern(s: str) -> int:
        if s not in offsets:
            b = s.encode()
            if len(b) > 255:  # (the longest is 18 bytes)
                raise SystemExit("gen_tables: mapping longer than 255 bytes")
            offsets[s] = len(pool)
            pool.extend(bytes([len(b)]) + b)
        return offsets[s]

    records: dict[tuple[int, ...], int] = {}
    per_cp = [0] * 0x110000
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            cp_rec = (0, 0, 0, 0, 0)
        else:
            cp_rec = (flags[cp], ccc[cp]) + tuple(
                intern(maps[m][cp]) if cp in maps[m] else 0 for m in ("lower", "nfd", "nfkd")
            )
        per_cp[cp] = records.setdefault(cp_rec, len(records))
    if len(records) > 0xFFFF:
        raise SystemExit("gen_tables: too many norm records")
    blocks: dict[tuple[int, ...], int] = {}
    stage1 = [
        blocks.setdefault(tuple(per_cp[b * BLOCK : (b + 1) * BLOCK]), len(blocks)) for b in range(0x110000 // BLOCK)
    ]
    stage2 = [r for blk in sorted(blocks, key=blocks.get) for r in blk]

    def rows(vals, per, fmt):
        return "\n".join("    " + ", ".join(fmt(v) for v in vals[i : i + per]) + "," for i in range(0, len(vals), per))

    flag_enum = "\n".join(
        f"inline constexpr uint32_t {n} = {1 << i};  // {d}" for i, (n, d) in enumerate(NORM_FLAGS.items())
    )
    recs = sorted(records, key=records.get)
    return f"""\
// GENERATED by tables/gen_tables.py from the oracle {ORACLE} (grapheme supersets: {REGEX_MODULE}). Do not edit.
// Normalizer properties of every scalar value: the oracle's Lowercase / NFD / NFKD of the
// character alone, its canonical combining class, and the classes BertNormalizer, StripAccents
// and Strip test -- each read off the oracle's normalizers.
#pragma once
#include <cstdint>

namespace tagpipe::tables::norm {{

{flag_enum}

struct Record {{
  uint32_t flags;  // the k* bits above
  uint8_t ccc;     // canonical combining class (its order is the oracle's)
  uint32_t lower;  // offsets into kPool: length byte + UTF-8; 0 = the character itself
  uint32_t nfd;    // (Hangul syllables: kHangul, decomposed arithmetically)
  uint32_t nfkd;
}};

inline constexpr int kRecordCount = {len(recs)};
inline constexpr Record kRecords[kRecordCount] = {{
{rows(recs, 4, lambda r: "{" + ", ".join(map(str, r)) + "}")}
}};

// Record of code point cp: kRecords[kStage2[kStage1[cp >> 6] * 64 + (cp & 63)]].
alignas(64) inline constexpr uint16_t kStage1[{len(stage1)}] = {{
{rows(stage1, 16, str)}
}};
alignas(64) inline constexpr uint16_t kStage2[{len(stage2)}] = {{
{rows(stage2, 24, str)}
}};

inline constexpr uint32_t kPoolSize = {len(pool)};
inline constexpr uint8_t kPool[kPoolSize] = {{
{rows(list(pool), 24, str)}
}};

}}  // namespace tagpipe::tables::norm
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if the committed tables are stale")
    ap.add_argument("--only", choices=["alphabets", "norm"], help="(development) one kind of table only")
    args = ap.parse_args()
    args.only_alphabets = args.only == "alphabets"
    alphabets = []
    if args.only != "norm":
        for a in ALPHABETS:
            build_predicate_alphabet(a)
            alphabets.append(a)
        alphabets.append(build_scripts())
    stale = []
    for a in alphabets:
        text = emit(a)
        path = OUT_DIR / f"alphabet_{a.name}.h"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            OUT_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(OUT_DIR.parent.parent)} ({len(a.tags)} tags)", file=sys.stderr)
    if not args.only_alphabets:
        text, path = emit_norm(), OUT_DIR / "norm_props.h"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(OUT_DIR.parent.parent)}", file=sys.stderr)
    if stale:
        print("stale: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
