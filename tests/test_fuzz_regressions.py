"""Replays the fuzz corpus (fuzz/corpus: inputs the differential fuzzer found interesting,
and every input that once failed) through the fuzz harness: tagpipe and the oracle must agree
on every one.  fuzz/run.sh adds to the corpus; see fuzz/differential.py for what one input means."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import differential as harness
from support.data import REPO, needs_shared

CORPUS = sorted((REPO / "fuzz" / "corpus").iterdir())


def test_corpus_is_there():
    assert len(CORPUS) >= 20, "fuzz/corpus lost its inputs"
    assert all(p.stat().st_size <= 8192 for p in CORPUS), "corpus inputs are meant to be small"


@needs_shared
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_input(path: Path):
    harness.check(path.read_bytes())


@needs_shared
def test_harness_detects_a_difference(monkeypatch):
    """The harness can fail: a tagpipe that drops the last id is caught."""
    data = bytes([0, 0, 7, 0, 20]) + b"hello world the end"
    t = harness.target(0)
    real = type(t.tok).encode
    monkeypatch.setattr(
        type(t.tok), "encode", lambda self, text, add_special_tokens=True: real(self, text, add_special_tokens)[:-1]
    )
    with pytest.raises(AssertionError, match="differs"):
        harness.check(data)
