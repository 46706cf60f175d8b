"""Every classify kernel writes exactly what the scalar kernel writes, for every alphabet.

The scalar kernel is the specification; test_classify_tables.py ties it to the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe

from support.data import ALPHABETS, CORPORA, SIMD_KERNELS, corpus_ids, needs_shared

pytestmark = pytest.mark.skipif(not SIMD_KERNELS, reason="only the scalar kernel runs here")


def assert_same(data, alphabet, kernel):
    ref = tagpipe.classify(data, alphabet, kernel="scalar")
    got = tagpipe.classify(data, alphabet, kernel=kernel)
    if not np.array_equal(ref.tags, got.tags):
        i = int(np.flatnonzero(ref.tags != got.tags)[0])
        raw = data.encode() if isinstance(data, str) else bytes(data)
        pytest.fail(
            f"[{kernel}] {alphabet}: tag at byte {i} of {len(raw)}: scalar {ref.tags[i]}, "
            f"{kernel} {got.tags[i]}; bytes {raw[max(0, i - 4) : i + 4]!r}"
        )
    if not np.array_equal(ref.starts, got.starts):
        w = int(np.flatnonzero(ref.starts != got.starts)[0])
        pytest.fail(f"[{kernel}] {alphabet}: start word {w}: scalar {ref.starts[w]:#x}, {kernel} {got.starts[w]:#x}")


@needs_shared
@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_corpora(corpus, alphabet, kernel):
    assert_same(corpus.read_bytes(), alphabet, kernel)


ALL_SCALARS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF).encode()


@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_every_scalar_at_every_offset(alphabet, kernel):
    # All 1,112,064 scalar values behind 0..63 ASCII bytes: each one lands on every
    # offset of a 64-byte chunk once, and sequences straddle every chunk boundary.
    for shift in range(64):
        assert_same(b"a" * shift + ALL_SCALARS, alphabet, kernel)


@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_every_length(alphabet, kernel):
    rng = np.random.default_rng(7)
    pool = "a Zé中\U0001f600\u0301\n\t'".encode() + b"\x80\xbf\xc0\xc2\xe0\xed\xf0\xf4\xf5\xff"
    for n in range(0, 260):
        raw = bytes(rng.choice(np.frombuffer(pool, np.uint8), n))
        assert_same(raw, alphabet, kernel)


@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@given(data=st.binary(max_size=600))
@settings(max_examples=300, deadline=None)
def test_hypothesis_bytes(kernel, data):
    for alphabet in ALPHABETS:
        assert_same(data, alphabet, kernel)


@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@given(text=st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_hypothesis_text(kernel, text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates are rejected before any kernel runs (test_classify_api)
    for alphabet in ALPHABETS:
        assert_same(text, alphabet, kernel)


# Ill-formed sequences cut in every way, at the end of the input and before ASCII.
ILL_FORMED = [
    b"\x80",
    b"\xbf",
    b"\xc0\xaf",
    b"\xc1\xbf",
    b"\xe0\x80\xaf",
    b"\xe0\x9f\xbf",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf0\x80\x80\xaf",
    b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80",
    b"\xff",
    b"\xe4\xb8",
    b"\xf0\x9f\x98",
    b"\xc3",
    b"\xe4",
    b"\xf0",
    b"\xf0\x9f",
]


@pytest.mark.parametrize("kernel", SIMD_KERNELS)
@pytest.mark.parametrize("bad", ILL_FORMED, ids=[b.hex() for b in ILL_FORMED])
def test_ill_formed(bad, kernel):
    for pad in range(0, 70):
        for tail in (b"", b"x", "é".encode(), "中".encode()):
            assert_same(b"a" * pad + bad + tail, "regex", kernel)
