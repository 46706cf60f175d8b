"""Compiled regexes that can match the empty string (SuperBPE's ``(?=(\\d{3})+(?!\\d))``, ``x*``,
``\\b``, ...): the matches onig's ``find_iter`` gives -- an empty match where the last match ended
is skipped and the search goes on one character later -- and how every Split behaviour, with
and without ``invert``, folds them (empty pieces dropped).  Native against the oracle on hand
cases, generated patterns, corpora and hypothesis text.
"""

from __future__ import annotations

import os
import random
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tagpipe.plan.regex import Unsupported, compile_regex

from support import strategies as S
from support.data import needs_shared
from support.public_regexes import PUBLIC_REGEXES
from support.regex import ALL_BEHAVIORS, HYPOTHESIS, check, corpus_texts, native, oracle_answers, split
from support.strategies import oracle_pre_tokenizer

SUPERBPE = dict((n, p) for n, p, _ in PUBLIC_REGEXES)["superbpe-groups"]

HAND = [
    SUPERBPE,
    r"(?=(?:\d{3})*$)",
    "x*",
    "x*?",
    "a??",
    "a?",
    "",
    "(?:)",
    "a|",
    "a|(?=c)",  # an empty match not where the last match ended is kept
    "(?=b)|b",
    "a*(?=b)|b",  # at the end of "aa", the empty match is skipped: 'b' is never matched
    "a*(?=b)|bb?",
    "(?:ab|a)(?=b|)|b",
    r"\s*",
    r"\s++|(?=\n)",
    "(?>a?)",
    "(?>a?)b|x",
    "(?=a?)",
    "(?!x)",
    "(?=a)b|(?!a)",
    "$",
    "^",
    r"\b",
    r"\B",
    r"\A",
    r"\z",
    r"\Z",
    r"\b\w*",
    r"(?=\d)",
]
TEXTS = ["", "a", "x", "abxc", "a c", "a cc", "aab", "aabb", "1234567", "12 345 6789 0", "ab\n", "\n\n", "ab ba cab"]
TEXTS += ["xx xx", "é中x", "  \n b", "\n", "1234 12345678 x9"]


def _texts(seed: int, n: int = 150) -> list[str]:
    rng = random.Random(seed)
    return TEXTS + ["".join(rng.choice("ab x1\n2é3c中") for _ in range(rng.randint(0, 14))) for _ in range(n)]


@pytest.mark.parametrize("pattern", HAND)
def test_empty_matches_under_every_behaviour(pattern):
    texts = _texts(31)
    for behavior, invert in ALL_BEHAVIORS:
        section = split(pattern, behavior, invert)
        check(section, native(section), texts)


@pytest.mark.parametrize("behavior, invert", ALL_BEHAVIORS)
def test_an_empty_string_pattern_is_the_empty_regex(behavior, invert):
    """(onig compiles an escaped String pattern: "" matches everywhere, as the regex "")"""
    section = {"type": "Split", "pattern": {"String": ""}, "behavior": behavior, "invert": invert}
    pt = native(section)
    assert "compiled regex" in pt.explain()
    check(section, pt, _texts(47, 40))


def test_superbpe_is_native():
    assert "compiled regex" in native(split(SUPERBPE)).explain()


@needs_shared
@pytest.mark.parametrize("behavior, invert", ALL_BEHAVIORS)
def test_superbpe_on_corpora(behavior, invert):
    section = split(SUPERBPE, behavior, invert)
    check(section, native(section), corpus_texts(30, seed=37))


def test_superbpe_on_numbers():
    rng = random.Random(41)
    texts = [" ".join(str(rng.randrange(10 ** rng.randint(1, 14))) for _ in range(60)) for _ in range(40)]
    texts += ["1" * n for n in range(12)] + ["١٢٣٤٥٦٧", "１２３４５６７", "12३४५6"]
    for behavior, invert in ALL_BEHAVIORS:
        section = split(SUPERBPE, behavior, invert)
        check(section, native(section), texts)


def test_a_look_ahead_is_linear_in_a_run_of_digits():
    """A look-ahead's result is kept for the piece (docs/design/regex.md): 200,000 digits in a
    fraction of a second, where searching the body again at each position (as Oniguruma does)
    takes minutes.  (The pieces: a short group, then groups of three.)"""
    n = 200_000
    t0 = time.monotonic()
    pieces = native(split(SUPERBPE)).pre_tokenize_str("7" * n)
    assert time.monotonic() - t0 < 10 * float(os.environ.get("TAGPIPE_TIME_SCALE", "1"))
    assert [b - a for _, (a, b) in pieces] == [n % 3] + [3] * (n // 3)


@HYPOTHESIS
@given(text=S.text(), behavior=st.sampled_from(ALL_BEHAVIORS))
def test_superbpe_hypothesis_text(text, behavior):
    section = split(SUPERBPE, *behavior)
    check(section, native(section), [text])


# -- generated patterns that may match the empty string -----------------------------------------

_LEAVES = ["a", "b", " ", "\\d", "\\s", "\\w", "[ab]", ".", "é", "\\n"]
_OPTIONAL = ["?", "*", "??", "*?", "?+", "*+", "{0,2}", "{,2}?"]
_ZERO = ["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z", "(?=a)", "(?!a)", "(?=\\d{2})", "(?!\\s)", ""]


def _nullable_patterns():
    optional = st.builds(lambda a, q: a + q, st.sampled_from(_LEAVES), st.sampled_from(_OPTIONAL))
    item = st.one_of(optional, st.sampled_from(_ZERO), st.sampled_from(_LEAVES))
    seq = st.lists(item, min_size=1, max_size=4).map("".join)
    group = st.builds(lambda kind, body: f"({kind}{body})", st.sampled_from(["?:", "?>", "?=", "?!"]), seq)
    branch = st.one_of(seq, group, st.builds(lambda g, s: g + s, group, seq))
    return st.lists(branch, min_size=1, max_size=3).map("|".join)


_GEN_TEXTS = _texts(43, 40) + ["aab ab\nba 123 é.\n", "a\n", " ", "ab", "a1b2  c", "12ab"]


@HYPOTHESIS
@given(pattern=_nullable_patterns(), behavior=st.sampled_from(ALL_BEHAVIORS))
def test_generated_patterns_that_may_match_empty(pattern, behavior):
    try:
        compile_regex(pattern)
    except Unsupported:
        assume(False)
    section = split(pattern, *behavior)
    oracle = oracle_pre_tokenizer(section)
    check(section, native(section), [t for t in _GEN_TEXTS if oracle_answers(oracle, t)])
