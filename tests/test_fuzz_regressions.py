"""Replays the fuzz corpus (fuzz/corpus: inputs the differential fuzzer found interesting,
and every input that once failed) through the fuzz harness: tagpipe and the oracle must agree
on every one.  fuzz/run.sh adds to the corpus; see fuzz/differential.py for what one input means.

Each corpus input names the tokenizer it was found on (fuzz/inputs.py), so that adding a
tokenizer to the harness cannot move it to another one; the harness runs tagpipe under
``delegation_disabled`` (fuzz/compare.py).  The tests after the replay prove that the harness
can fail: on a difference, an unjustified delegation, a ``None`` from the native encoder of
bytes, the wrong error for a lone surrogate, and that a named input runs where it says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tagpipe
from tagpipe._delegate import delegation_allowed

from fuzz import compare, inputs
from fuzz import differential as harness
from support.data import REPO, needs_shared

CORPUS = sorted((REPO / "fuzz" / "corpus").iterdir())


def test_corpus_is_there():
    assert len(CORPUS) >= 20, "fuzz/corpus lost its inputs"
    assert all(p.stat().st_size <= 8192 for p in CORPUS), "corpus inputs are meant to be small"


def test_corpus_inputs_name_their_tokenizer():
    """Not an index into TOKENIZERS: it means another tokenizer once the list grows."""
    unnamed = [p.name for p in CORPUS if inputs.split(p.read_bytes(), harness.TOKENIZERS)[0] is None]
    assert not unnamed, f"corpus inputs without a known tokenizer= line: {unnamed[:5]}"


@needs_shared
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_input(path: Path):
    harness.check(path.read_bytes())


def _text_input(tokenizer: str, text: bytes, index_byte: int = 0) -> bytes:
    """A named text-mode input: mode 0, the (ignored) tokenizer byte, flags 0, then op 0 with
    the ASCII ``text`` (each byte b stands for chr(0x20 + b % 95))."""
    raw = bytes([0, index_byte, 0, 0, len(text)]) + bytes((c - 0x20) % 95 for c in text)
    return inputs.name(raw, tokenizer)


@needs_shared
def test_named_input_runs_on_the_named_tokenizer(monkeypatch):
    seen = []
    real = compare.target
    monkeypatch.setattr(compare, "target", lambda name: seen.append(name) or real(name))
    harness.check(_text_input("bert-wiki", b"hello world", index_byte=0))  # (byte 0 is gpt2)
    assert seen == ["bert-wiki"]


class _Fake:
    """A tokenizer standing in for ``real``, with some methods replaced."""

    def __init__(self, real, **methods):
        self._real = real
        self.__dict__.update(methods)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _delegating(t: compare.Target, delegates=lambda text: True) -> _Fake:
    """``t.tok`` as if it delegated every call holding a text ``delegates`` picks: the oracle's
    ids, or DelegationError where delegation is disabled -- what a harness without
    delegation_disabled cannot tell apart."""

    def check(texts):
        if any(map(delegates, texts)) and not delegation_allowed():
            raise tagpipe.DelegationError("delegated (test double)")

    def encode(text, add_special_tokens=True):
        check([text])
        return t.oracle.encode(text, add_special_tokens=add_special_tokens).ids

    def encode_batch_flat(texts, add_special_tokens=True, num_threads=None):
        check(texts)
        rows = [e.ids for e in t.oracle.encode_batch(texts, add_special_tokens=add_special_tokens)]
        offsets = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
        return np.array([i for r in rows for i in r], dtype=np.uint32), offsets

    return _Fake(t.tok, encode=encode, encode_batch_flat=encode_batch_flat)


@needs_shared
def test_harness_detects_a_difference(monkeypatch):
    """The harness can fail: a tagpipe that drops the last id is caught."""
    t = compare.target("gpt2")
    real = t.tok
    monkeypatch.setattr(
        t, "tok", _Fake(real, encode=lambda text, add_special_tokens=True: real.encode(text, add_special_tokens)[:-1])
    )
    with pytest.raises(AssertionError, match="differs"):
        harness.check(_text_input("gpt2", b"hello world the end"))


@needs_shared
def test_harness_fails_a_delegation_without_evidence(monkeypatch):
    """gpt2 never delegates per call; qwen3's NFC may, but not on ASCII text."""
    for name in ("gpt2", "qwen3"):
        t = compare.target(name)
        monkeypatch.setattr(t, "tok", _delegating(t))
        with pytest.raises(AssertionError, match="no evidence"):
            harness.check(_text_input(name, b"hello world"))


@needs_shared
def test_harness_compares_a_justified_delegation(monkeypatch):
    """qwen3 may delegate a text NFC changes; the delegated result is still compared."""
    t = compare.target("qwen3")
    data = inputs.name(bytes([0, 0, 0, 3, harness.FRAGMENTS.index("e\u0301")]), "qwen3")
    monkeypatch.setattr(t, "tok", _delegating(t, lambda text: "\u0301" in text))
    harness.check(data)  # justified, and exact on the second instance
    outside = t.outside
    wrong = _Fake(outside, encode=lambda text, add_special_tokens=True: [0])
    monkeypatch.setattr(t, "outside", wrong)
    with pytest.raises(AssertionError, match="differs"):
        harness.check(data)


@needs_shared
def test_harness_checks_the_native_bytes_encoder(monkeypatch):
    """Bytes mode: a None from the native encoder (it asks for the oracle) must be justified,
    and its ids are compared for every valid UTF-8 input."""
    t = compare.target("gpt2")
    data = inputs.name(bytes([1, 0]) + b"hello world", "gpt2")
    harness.check(data)
    real = t.tok._native
    for result in (None, np.array([0], dtype=np.uint32)):
        native = _Fake(real, encode=lambda data, add, result=result: result)
        monkeypatch.setattr(t, "tok", _Fake(t.tok, _native=native))
        with pytest.raises(AssertionError, match="no evidence|differs"):
            harness.check(data)
        monkeypatch.undo()


@needs_shared
def test_harness_checks_the_lone_surrogate_error(monkeypatch):
    """Both sides refuse a lone surrogate; tagpipe must name it (a ValueError with the code
    point and index), not merely raise."""
    raw = bytes([0, 0, 0, 0, 3]) + b"\x42\x43\x44" + bytes([7, 0xFF, 3])  # "bcd" U+D818
    data = inputs.name(raw, "gpt2")
    harness.check(data)
    t = compare.target("gpt2")

    def vague(*args, **kwargs):
        raise TypeError("must be str")

    monkeypatch.setattr(t, "tok", _Fake(t.tok, encode=vague, encode_batch_flat=vague))
    with pytest.raises(AssertionError, match="not a ValueError naming U\\+D818 at index 3"):
        harness.check(data)
