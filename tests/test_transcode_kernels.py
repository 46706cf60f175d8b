"""Every transcode kernel (a str's code units -- one, two or four bytes a character -- to
UTF-8: cpp/kernels/transcode/) writes exactly what str.encode writes -- the scalar kernel, the
specification, included -- and refuses a lone surrogate as str.encode does."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tagpipe import _core

from support.data import CORPORA, KERNELS, corpus_ids, needs_shared

# Characters at the edges of each UTF-8 form, and each width a str can have: ASCII,
# Latin-1 (one byte, not ASCII), UCS-2, UCS-4.
POOLS = {
    "ascii": "a Z~\x00\x7f\n",
    "latin-1": "a \x80\xe9\xff",
    "ucs-2": "a \x80\u07ff\u0800\u0416\u4e2d\ud7ff\ue000\ufffd\uffff",
    "ucs-4": "a \xe9\u07ff\u0800\u4e2d\uffff\U00010000\U0001f600\U0010ffff",
}


def assert_transcodes(text: str, kernel: str):
    want = text.encode("utf-8")
    got = _core.testing.transcode(text, kernel=kernel)
    if got != want:
        i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
        pytest.fail(
            f"[{kernel}] {len(text)} characters: output differs at byte {i} "
            f"(lengths {len(got)} / {len(want)}): {got[max(0, i - 8) : i + 8]!r} != {want[max(0, i - 8) : i + 8]!r}"
        )


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("pool", POOLS.values(), ids=POOLS.keys())
def test_every_length_and_mix(kernel, pool):
    # every length around the SIMD kernels' steps (16 ASCII units, else 4), ASCII runs of
    # every length between the others
    rng = random.Random(3)
    for n in range(0, 70):
        for ascii_share in (0.0, 0.5, 0.9, 1.0):
            text = "".join("a" if rng.random() < ascii_share else rng.choice(pool) for _ in range(n))
            assert_transcodes(text, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("wide", ["\u4e2d", "\U0001f600"], ids=["ucs-2", "ucs-4"])
def test_lone_surrogate_at_every_position(kernel, wide):
    for n in (1, 4, 5, 16, 17, 33):
        for at in range(n):
            for s in ("\ud800", "\udbff", "\udc00", "\udfff"):
                text = wide * at + s + wide * (n - at - 1)
                with pytest.raises(UnicodeEncodeError):
                    _core.testing.transcode(text, kernel=kernel)


@needs_shared
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_corpus_text(kernel, corpus):
    assert_transcodes(corpus.read_text(encoding="utf-8"), kernel)


@pytest.mark.parametrize("kernel", KERNELS)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_generated_text(kernel, text):
    assert_transcodes(text, kernel)


def test_bad_arguments():
    with pytest.raises(TypeError):
        _core.testing.transcode(b"abc")
    with pytest.raises(ValueError):
        _core.testing.transcode("abc", kernel="nope")
