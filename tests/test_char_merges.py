"""Whole characters (and pairs of ASCII characters) as one initial symbol of a ByteLevel BPE
word (cpp/model/char_merges.h).

A 2- or 3-byte character whose bytes merge alone into one token (or two), or two ASCII
characters that merge, may start the word as that, unless a merge of rank <= the unit's
highest could take one of its parts together with what the text holds next to it: the guards.
Each guard has a case here
where starting with the character's token gives other ids than the oracle -- shown with a
plain BPE in Python -- and tagpipe must give the oracle's.  Then random vocabularies whose
merges come in any order, on text of such characters, against the oracle.
"""

from __future__ import annotations

import random

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

import tagpipe
from tagpipe.pretokenizer import BYTE_CHARS

from support.parity import HYPOTHESIS, Report, _with_merged, bpe_json, bytelevel, run_and_compare

_TO_CHAR = dict(zip(range(256), BYTE_CHARS))


def mapped(text: str) -> list[str]:
    """The ByteLevel characters of text, one per byte."""
    return [_TO_CHAR[b] for b in text.encode("utf-8")]


def plain_bpe(symbols: list[str], merges) -> list[str]:
    """BPE as the oracle runs it: the lowest rank first, the leftmost among equal ones."""
    rank = {m: r for r, m in enumerate(merges)}
    symbols = list(symbols)
    while True:
        found = [(rank[p], i) for i, p in enumerate(zip(symbols, symbols[1:])) if p in rank]
        if not found:
            return symbols
        _, i = min(found)
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]


def units_unguarded(text: str, merges, pairs: bool) -> list[str]:
    """The word's symbols starting from each unit's own merges, with no guard, left to right:
    each character of 2 or 3 bytes, or (pairs) each two ASCII characters that merge."""
    out: list[str] = []
    merged = set(merges)
    i = 0
    while i < len(text):
        ch = text[i]
        two = text[i : i + 2]
        if pairs and len(two) == 2 and two.isascii() and tuple(mapped(two)) in merged:
            out.append("".join(mapped(two)))
            i += 2
            continue
        out += plain_bpe(mapped(ch), merges)
        i += 1
    return out


def byte_level_json(merges) -> str:
    return bpe_json(_with_merged(list(BYTE_CHARS), merges), merges, pre=bytelevel(use_regex=False))


def plain_json(merges, chars) -> str:
    """No ByteLevel: every character its own token, the whole text one word."""
    return bpe_json(_with_merged(sorted(set(chars)), merges), merges)


E = "".join(mapped("é"))  # "Ã©" ("中" is "ä¸Ń")

# (merges in rank order, text): each a guard's counterexample.
COUNTEREXAMPLES = {
    # (L), the first byte: "a" + "Ã" (rank 0) goes before "Ã" + "©" (rank 1).
    "left byte": ([("a", "Ã"), ("Ã", "©")], "aé"),
    # (L), a left part made inside the character: "ä¸" is made first, then taken by "a".
    "left part": ([("ä", "¸"), ("a", "ä¸"), ("ä¸", "Ń")], "a中"),
    # (L) up to the highest rank of the character's merges, not its last: "ä" + "¸" (rank 3)
    # is made before "ä¸" + "Ń" (rank 1), and "a" + "ä" (rank 2) goes between.
    "highest rank": ([("q", "r"), ("ä¸", "Ń"), ("a", "ä"), ("ä", "¸")], "a中"),
    # (R), the last byte: "©" + "b" (rank 0) goes first.
    "right byte": ([("©", "b"), ("Ã", "©")], "éb"),
    # (L) read with P = the token: "x" + "Ã©" has rank 0, but "Ã©" is made at rank 2, after
    # "w" + "x" (rank 1) has taken the "x".
    "first symbol": ([("x", E), ("w", "x"), ("Ã", "©")], "wxé"),
    # (R) read with P = the token, the other side.
    "last symbol": ([(E, "x"), ("x", "y"), ("Ã", "©")], "éxy"),
    # A character that merges alone into two tokens ("ä", "¸Ń"): its last one, made at rank 2,
    # would take the "x" that "x" + "y" (rank 1) takes first.
    "last of two": ([("¸Ń", "x"), ("x", "y"), ("¸", "Ń")], "中xy"),
    # Two ASCII characters: (R), "b" + "c" (rank 0) goes before "a" + "b" (rank 1).
    "pair right": ([("b", "c"), ("a", "b")], "abc"),
    # (L) with a longer X: "xy" (made at rank 0) takes the "a" (rank 1) before "a" + "b".
    "pair left": ([("x", "y"), ("xy", "a"), ("a", "b")], "xyab"),
    # The same strings guard "ab" on the left and "cd" on the right: "xy", whose edge byte is
    # "y" on the left and "x" on the right ("d" + "xy", rank 1, goes before "c" + "d").
    "pair, a guard on both sides": ([("x", "y"), ("d", "xy"), ("c", "d"), ("xy", "a"), ("a", "b")], "cdxy"),
}


@pytest.mark.parametrize("case", list(COUNTEREXAMPLES))
def test_a_guard_keeps_a_unit_in_bytes_where_its_symbols_would_change_the_ids(case):
    merges, text = COUNTEREXAMPLES[case]
    text_json = byte_level_json(merges)
    oracle = tokenizers.Tokenizer.from_str(text_json)
    want = plain_bpe(mapped(text), merges)
    assert oracle.encode(text).tokens == want  # (the plain BPE is the oracle's)
    assert units_unguarded(text, merges, case.startswith("pair")) != want  # the whole unit: wrong here
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
        assert tok.encode(text) == oracle.encode(text).ids
        # The units where no guard string is next to them: whole, and exact.
        for other in ("é", "中", "é中é", "中中", " é", "é ", "ab", "xy", "bc", "ba"):
            assert tok.encode(other) == oracle.encode(other).ids, other


@pytest.mark.parametrize("case", [c for c in COUNTEREXAMPLES if c.startswith("pair")])
def test_a_guard_keeps_two_characters_apart_in_a_plain_word_where_their_token_would_change_the_ids(case):
    """The same units in words that are not ByteLevel (SentencePiece-style BPE): two
    characters that are tokens and merge."""
    merges, text = COUNTEREXAMPLES[case]
    text_json = plain_json(merges, "abcdxyz")
    oracle = tokenizers.Tokenizer.from_str(text_json)
    want = plain_bpe(list(text), merges)
    assert oracle.encode(text).tokens == want
    assert units_unguarded(text, merges, True) != want
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
        for t in (text, "ab", "xy", "bc", "ba", "abab", "zab"):
            assert tok.encode(t) == oracle.encode(t).ids, t


ALPHABET = ["é", "ü", "中", "文", "ж", "a", "b", "c", " ", "\n", "€"]


@st.composite
def random_merges(draw, base: list[str], longest: int):
    """Random merges over the symbols `base` -- inside characters, across them, and onto
    tokens that later merges make -- in a random order."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    have = list(base)
    made, merges = set(), []
    for _ in range(rng.randint(5, 60)):
        a, b = rng.choice(have), rng.choice(have)
        if a + b not in made and len(a + b) <= longest:
            merges.append((a, b))
            made.add(a + b)
            have.append(a + b)
    rng.shuffle(merges)
    return merges


TEXTS = st.lists(st.text(st.sampled_from(ALPHABET), max_size=40), min_size=1, max_size=20)
BYTES_OF_ALPHABET = sorted({c for ch in ALPHABET for c in mapped(ch)})


def check_with_the_oracle(name: str, text_json: str, texts: list[str]):
    oracle = tokenizers.Tokenizer.from_str(text_json)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
    texts = texts + ["".join(texts)]  # (and one word longer than the small path's 16 symbols)
    report = Report(name, tok, oracle, tok)
    run_and_compare(report, tok, texts, False, native=True, nfc=None, do_shrink=False)
    report.check()


@HYPOTHESIS
@given(merges=random_merges(ALPHABET, 6), texts=TEXTS)
def test_pairs_in_plain_words_give_the_oracles_ids(merges, texts):
    check_with_the_oracle("plain-pairs", plain_json(merges, ALPHABET), texts)


@HYPOTHESIS
@given(merges=random_merges(BYTES_OF_ALPHABET, 8), texts=TEXTS)
def test_whole_characters_give_the_oracles_ids(merges, texts):
    check_with_the_oracle("char-merges", byte_level_json(merges), texts)
