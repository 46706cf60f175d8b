"""The tables equal the oracle, not just the generator.

For every Unicode scalar value and every predicate an alphabet encodes, the scalar
kernel's tag must say exactly what the oracle's own pre-tokenizers do with that code
point.  The probes here are written independently of tables/gen_tables.py (they ask the
oracle differently), so a probe bug in the generator cannot hide behind itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import tagpipe

tokenizers = pytest.importorskip("tokenizers")
if tokenizers.__version__ != "0.23.3":
    pytest.skip(f"the oracle is tokenizers 0.23.3, found {tokenizers.__version__}", allow_module_level=True)
from tokenizers import Regex  # noqa: E402
from tokenizers import pre_tokenizers as pt  # noqa: E402

SCALARS = np.array([c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF])
TEXT = "".join(map(chr, SCALARS))


def scalar_tags(alphabet: str) -> np.ndarray:
    """The scalar kernel's tag of every scalar value, in order."""
    c = tagpipe.classify(TEXT, alphabet, kernel="scalar")
    tags = c.tags[c.char_starts()]
    assert len(tags) == len(SCALARS)
    return tags


def mask_of(covered_pieces, n=len(SCALARS)) -> np.ndarray:
    m = np.zeros(n, bool)
    for _, (a, b) in covered_pieces:
        m[a:b] = True
    return m


def onig_members(pattern: str) -> np.ndarray:
    # Split(..., "removed") drops what matches: the chars no piece covers are the members.
    split = pt.Split(Regex(pattern), behavior="removed")
    return ~mask_of(split.pre_tokenize_str(TEXT))


def units(pretok, left: str, right: str) -> list[list[int]]:
    """Pre-tokenize left + c + right for every c at once; for each c, the piece ids of
    (left, c, right), or -1 where no piece covers the char."""
    text = "".join(left + chr(c) + right for c in SCALARS)
    owner = np.full(len(text), -1)
    for i, (_, (a, b)) in enumerate(pretok.pre_tokenize_str(text)):
        owner[a:b] = i
    return owner.reshape(len(SCALARS), 3)


def check(alphabet: str, predicate: str, tags_true: set[str], members: np.ndarray):
    names = tagpipe.alphabets()[alphabet].tags
    want = np.array([n in tags_true for n in names])
    said = want[scalar_tags_cache(alphabet)]
    bad = np.flatnonzero(said != members)
    if len(bad):
        cps = ", ".join(f"U+{SCALARS[i]:04X}" for i in bad[:8])
        pytest.fail(f"{alphabet}: predicate {predicate} differs from the oracle on {len(bad)} code points: {cps}")


_cache: dict[str, np.ndarray] = {}


def scalar_tags_cache(alphabet: str) -> np.ndarray:
    if alphabet not in _cache:
        _cache[alphabet] = scalar_tags(alphabet)
    return _cache[alphabet]


ONIG = {
    "regex": [
        (r"\p{L}", {"Upper", "Lower", "LetterOther"}),
        (r"[\p{Lu}\p{Lt}]", {"Upper"}),
        (r"\p{Ll}", {"Lower"}),
        (r"[\p{Lm}\p{Lo}]", {"LetterOther"}),
        (r"\p{M}", {"Mark"}),
        (r"\p{N}", {"Number", "Digit"}),
        (r"[0-9]", {"Digit"}),
        (r"\s", {"Space", "Newline", "WsOther"}),
        (r"[\r\n]", {"Newline"}),
        (r" ", {"Space"}),
        (r"'", {"Apostrophe"}),
        (r"/", {"Slash"}),
    ],
    "deepseek": [
        (r"\p{L}", {"Letter", "AsciiLetter", "CjkLetter"}),
        (r"\p{M}", {"Mark", "CjkMark"}),
        (r"\p{N}", {"Number"}),
        (r"[\p{P}\p{S}]", {"PunctSym", "AsciiPunctSym", "CjkPunctSym"}),
        (r"\s", {"Space", "Newline", "WsOther"}),
        (r"[\r\n]", {"Newline"}),
        (r" ", {"Space"}),
        (r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]""", {"AsciiPunctSym"}),
        (r"[A-Za-z]", {"AsciiLetter"}),
        ("[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]", {"CjkLetter", "CjkMark", "CjkPunctSym", "CjkOther"}),
    ],
}


@pytest.mark.parametrize(
    "alphabet,pattern,tags_true",
    [(a, p, t) for a, preds in ONIG.items() for p, t in preds],
    ids=[f"{a}:{p}" for a, preds in ONIG.items() for p, _ in preds],
)
def test_onig_predicates(alphabet, pattern, tags_true):
    check(alphabet, pattern, tags_true, onig_members(pattern))


WS = {"Space", "WsOther"}


def test_unicode_whitespace_split():
    # WhitespaceSplit removes char::is_whitespace: "a c a" keeps c iff c is not whitespace.
    own = units(pt.WhitespaceSplit(), "a", "a")
    check("unicode", "char::is_whitespace (WhitespaceSplit)", WS, own[:, 1] < 0)


def test_unicode_regex_whitespace():
    # Whitespace (\w+|[^\w\s]+) drops exactly the regex-crate \s.
    own = units(pt.Whitespace(), "a", "a")
    check("unicode", r"regex \s (Whitespace)", WS, own[:, 1] < 0)


def test_unicode_word():
    # In "a c a", c joins both a's in one piece iff c is \w.
    own = units(pt.Whitespace(), "a", "a")
    check(
        "unicode",
        r"regex \w (Whitespace)",
        {"Word", "WordNumeric", "PunctWord"},
        (own[:, 0] == own[:, 1]) & (own[:, 1] == own[:, 2]),
    )


def test_unicode_bert_punct():
    # BertPreTokenizer drops whitespace and isolates punctuation: in "a c a", c is a piece
    # of its own iff it is Bert punctuation.
    own = units(pt.BertPreTokenizer(), "a", "a")
    alone = (own[:, 1] >= 0) & (own[:, 1] != own[:, 0]) & (own[:, 1] != own[:, 2])
    check("unicode", "is_bert_punc (BertPreTokenizer)", {"Punct", "PunctWord"}, alone)


def test_unicode_punctuation_pretokenizer():
    own = units(pt.Punctuation(behavior="removed"), "a", "a")
    check("unicode", "is_punc (Punctuation)", {"Punct", "PunctWord"}, own[:, 1] < 0)


def test_unicode_numeric():
    # Digits(individual_digits=False) keeps numeric runs contiguous: in "a c a", c is cut
    # away from both a's iff it is numeric.
    own = units(pt.Digits(individual_digits=False), "a", "a")
    check(
        "unicode",
        "char::is_numeric (Digits)",
        {"WordNumeric", "Numeric"},
        (own[:, 1] != own[:, 0]) & (own[:, 1] != own[:, 2]),
    )


def test_unicode_space():
    check("unicode", "U+0020", {"Space"}, SCALARS == 0x20)


# -- scripts: the oracle's UnicodeScripts split, simulated from our tags ----------------------


def script_cuts(tags: np.ndarray, any_tag: int) -> list[int]:
    """Char offsets where UnicodeScripts cuts, from per-char script tags (the oracle's rule:
    cut before c if c and the last non-Any script differ and neither is Any)."""
    cuts, last = [], None
    for i, t in enumerate(tags.tolist()):
        if t != any_tag and last is not None and t != last:
            cuts.append(i)
        if t != any_tag:
            last = t
    return cuts


def oracle_cuts(text: str) -> list[int]:
    return [a for _, (a, _b) in pt.UnicodeScripts().pre_tokenize_str(text)][1:]


def test_scripts_in_code_point_order():
    tags = scalar_tags_cache("scripts")
    any_tag = tagpipe.alphabets()["scripts"].tags.index("Any")
    assert oracle_cuts(TEXT) == script_cuts(tags, any_tag)


def test_scripts_grouped_by_class():
    # Sorted by our class, every class is one run: the oracle must cut exactly between
    # classes (so members of a class share a script, and neighbouring classes differ).
    tags = scalar_tags_cache("scripts")
    any_tag = tagpipe.alphabets()["scripts"].tags.index("Any")
    order = np.argsort(tags, kind="stable")
    text = "".join(chr(SCALARS[i]) for i in order if tags[i] != any_tag)
    grouped = np.sort(tags[tags != any_tag], kind="stable")
    assert oracle_cuts(text) == script_cuts(grouped, any_tag)


def test_scripts_classes_pairwise_distinct():
    tags = scalar_tags_cache("scripts")
    any_tag = tagpipe.alphabets()["scripts"].tags.index("Any")
    reps = [chr(SCALARS[np.flatnonzero(tags == t)[0]]) for t in np.unique(tags) if t != any_tag]
    for i, r in enumerate(reps):
        others = reps[:i] + reps[i + 1 :]
        text = "".join(r + o for o in others)
        assert len(oracle_cuts(text)) == 2 * len(others) - 1, f"U+{ord(r):04X} shares a script"


def test_scripts_any_is_transparent():
    # Any never cuts and never changes the script that came before it.
    tags = scalar_tags_cache("scripts")
    any_tag = tagpipe.alphabets()["scripts"].tags.index("Any")
    any_chars = [chr(c) for c in SCALARS[tags == any_tag]]
    assert " " in any_chars
    text = "".join("a" + c + "b中" + c + "文" for c in any_chars)
    assert oracle_cuts(text) == [k for i in range(len(any_chars)) for k in (6 * i + 3, 6 * i + 6)][:-1]
