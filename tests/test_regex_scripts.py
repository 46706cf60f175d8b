"""Unicode script properties in compiled regexes (``\\p{Han}``, ``\\P{Latin}``, ``\\p{Hani}``):
each script's ranges (tagpipe/plan/regex/scripts_generated.py, read off the oracle by
tables/gen_regex_props.py) against the oracle's own regex -- every script at the edges of its
ranges by default, the common ones over every scalar value with ``--run-slow`` -- and the
names Oniguruma accepts (case, ' ', '-', '_' ignored; aliases), in and out of classes.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given

from tagpipe.plan.regex import Unsupported, parse
from tagpipe.plan.regex.scripts_generated import ALIASES, SCRIPTS

from support import strategies as S
from support.data import needs_shared
from support.regex import (
    ALL_BEHAVIORS,
    HYPOTHESIS,
    SCALARS,
    check,
    corpus_texts,
    native,
    native_matched,
    oracle_matched,
    split,
)


def _ranges(script: str) -> list[tuple[int, int]]:
    words = [w.partition("-") for w in SCRIPTS[script].split()]
    return [(int(lo, 16), int(hi or lo, 16)) for lo, _, hi in words]


def _edges() -> list[int]:
    """The scalar values at and beside the ends of every script's ranges, and a sample."""
    cps = {c for s in SCRIPTS for lo, hi in _ranges(s) for c in (lo - 1, lo, lo + 1, hi - 1, hi, hi + 1)}
    cps |= set(random.Random(5).sample(SCALARS, 3000))
    return sorted(c for c in cps if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF)


EDGES = _edges()


def test_every_script_at_the_edges_of_its_ranges():
    for name in SCRIPTS:
        pattern = rf"\p{{{name}}}"
        assert native_matched(pattern, EDGES) == oracle_matched(pattern, EDGES), pattern
    for name in ("Han", "Latin", "Common", "Unknown", "Inherited", "Zanabazar_Square"):
        pattern = rf"\P{{{name}}}"
        assert native_matched(pattern, EDGES) == oracle_matched(pattern, EDGES), pattern


def test_an_alias_is_its_script():
    """(tables/gen_regex_scripts.py checks over every scalar value that the oracle agrees)"""
    for alias, name in ALIASES.items():
        assert parse(rf"\p{{{alias}}}") == parse(rf"\p{{{name}}}"), alias
        assert parse(rf"\P{{{alias}}}") == parse(rf"\P{{{name}}}"), alias


def test_the_scripts_partition_the_code_points():
    ranges = sorted(r for s in SCRIPTS for r in _ranges(s))
    assert ranges[0][0] == 0 and ranges[-1][1] == 0x10FFFF
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        assert lo == hi + 1  # (the surrogates are in Unknown's ranges, never looked up)


@pytest.mark.parametrize(
    "spelling",
    [r"\p{han}", r"\p{HAN}", r"\p{H_a-n}", r"\p{ Han }", r"\p{hani}", r"\p{^Han}", r"\P{^Han}", r"\p{Old_Italic}"]
    + [r"\p{oldItalic}", r"\p{old-italic}", r"\p{L_u}", r"\p{l u}", r"\p{SignWriting}", r"\p{sign_writing}"],
)
def test_names_as_oniguruma_reads_them(spelling):
    cps = [0x41, 0x61, 0x4E00, 0x3042, 0x10300, 0x1D800, 0x1F600, 0x0300]
    assert native_matched(spelling, cps) == oracle_matched(spelling, cps)


@pytest.mark.parametrize("pattern", [r"\p{In_Basic_Latin}", r"\p{Alphabetic}", r"\p{Hrkt}", r"\p{Hanα}", r"\p{Han"])
def test_other_properties_are_not_supported(pattern):
    with pytest.raises(Unsupported):
        parse(pattern)


CLASSES = [
    r"\p{Han}+",
    r"[\p{Han}\p{Hiragana}\p{Katakana}ー]+|\p{Hangul}+|\p{Latin}+|\s+",
    r"[^\p{Latin}\s]+",
    r"[\P{Latin}a]+",
    r"[^\P{Greek}]+",
    r"\p{Cyrillic}+|\p{Arabic}+|\p{Thai}+|\p{Common}+|\p{Inherited}+",
    r" ?\p{Han}|[\p{Latin}\p{Nd}]+|\p{^Common}",
]
TEXTS = [
    "中文字ひらがなカタカナー한국어 Latin ελληνικά кириллица العربية ไทย 123 é\u0301 ﾟ",
    "漢字かなカナ Mixed 中a文b 𠀀𪜀 ㍿ 〆 々 〇",
]


@pytest.mark.parametrize("pattern", CLASSES)
def test_scripts_in_patterns_under_every_behaviour(pattern):
    texts = TEXTS + S.random_texts(80, seed=23, needles=TEXTS)
    for behavior, invert in ALL_BEHAVIORS:
        section = split(pattern, behavior, invert)
        check(section, native(section), texts)


@needs_shared
@pytest.mark.parametrize("pattern", CLASSES[:2])
def test_scripts_on_corpora(pattern):
    section = split(pattern)
    check(section, native(section), corpus_texts(40, seed=29))


@pytest.mark.parametrize("pattern", CLASSES[:2])
@HYPOTHESIS
@given(text=S.text())
def test_scripts_hypothesis_text(pattern, text):
    section = split(pattern)
    check(section, native(section), [text])


def test_kimi_k2_han_is_native():
    assert "compiled regex" in native(split(r"\p{Han}+")).explain()


COMMON_SCRIPTS = "Han Hiragana Katakana Hangul Latin Cyrillic Greek Arabic Hebrew Thai Devanagari Common"
COMMON_SCRIPTS += " Inherited Unknown"


def _runs(pattern: str, behavior: str = "Removed", invert: bool = True) -> None:
    """`pattern` on every scalar value in one text, native and oracle (pieces are runs)."""
    section = split(pattern, behavior, invert)
    check(section, native(section), ["".join(map(chr, SCALARS))])


@pytest.mark.parametrize("name", COMMON_SCRIPTS.split())
def test_common_scripts_on_every_scalar(name):
    _runs(rf"\p{{{name}}}+")
    _runs(rf"\P{{{name}}}+")


def test_every_script_run_on_every_scalar():
    """Each scalar value's script, through the runs of one script each (the script of a run
    is checked at its ends by test_every_script_at_the_edges_of_its_ranges)."""
    _runs("|".join(rf"\p{{{name}}}+" for name in SCRIPTS), "Isolated", False)
