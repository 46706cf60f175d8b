"""Shared helpers of the regex compiler's tests (tests/test_regex*.py): Split sections, the
native pre-tokenizer without delegation, and comparisons with the oracle (strings and offsets)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, settings

import tagpipe

from support import strategies as S
from support.strategies import oracle_pre_tokenizer

HYPOTHESIS = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
BEHAVIORS = [("Isolated", False), ("Removed", True), ("MergedWithNext", False), ("MergedWithPrevious", True)]
BEHAVIORS += [("Contiguous", False), ("Removed", False)]
# every behaviour, with and without invert
ALL_BEHAVIORS = [
    (b, i) for b in ("Isolated", "Removed", "MergedWithNext", "MergedWithPrevious", "Contiguous") for i in (False, True)
]
SCALARS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def split(pattern: str, behavior: str = "Isolated", invert: bool = False) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": invert}


def native(section) -> tagpipe.PreTokenizer:
    with tagpipe.delegation_disabled():
        return tagpipe.PreTokenizer.from_json(section)


def check(section, pt, texts, labels=None) -> None:
    """`pt` pre-tokenizes every text as the oracle does `section`, else an error naming the
    text and the first piece that differs."""
    oracle = oracle_pre_tokenizer(section)
    for k, text in enumerate(texts):
        got, want = pt.pre_tokenize_str(text), oracle.pre_tokenize_str(text)
        if got != want:
            i = next((j for j, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
            label = labels[k] if labels else k
            raise AssertionError(
                f"{json.dumps(section, ensure_ascii=False)}\ntext {label}: {text[:300]!r}\n"
                f"first difference at piece {i}: tagpipe {got[i : i + 3]!r} oracle {want[i : i + 3]!r}"
            )


def scalar_strings(per: int = 4096) -> list[str]:
    """Every scalar value between letters ("a" c "b"), in strings of `per` values."""
    return ["".join("a" + chr(c) + "b " for c in SCALARS[i : i + per]) for i in range(0, len(SCALARS), per)]


def corpus_texts(n: int, seed: int = 0) -> list[str]:
    return [d.text for d in S.corpus_documents(n, seed=seed)]


def oracle_matched(pattern: str, cps: list[int]) -> list[int]:
    """The code points of `cps` the oracle's `pattern` matches (each one character)."""
    from tokenizers import Regex, pre_tokenizers

    text = "".join(map(chr, cps))
    pieces = pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=True).pre_tokenize_str(text)
    return [cps[i] for _, (a, b) in pieces for i in range(a, b)]


def native_matched(pattern: str, cps: list[int]) -> list[int]:
    text = "".join(map(chr, cps))
    pieces = native(split(pattern, "Removed", True)).pre_tokenize_str(text)
    return [cps[i] for _, (a, b) in pieces for i in range(a, b)]


def oracle_answers(oracle, text: str) -> bool:
    """False where Oniguruma gives up ("retry-limit-in-match", a panic): the oracle has no
    answer there to compare with (a generated pattern backtracking exponentially)."""
    try:
        oracle.pre_tokenize_str(text)
    except BaseException as e:  # pyo3's PanicException derives from BaseException
        if "retry-limit-in-match" not in str(e):
            raise
        return False
    return True
