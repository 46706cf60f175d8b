"""Every replace kernel (one byte -> 0-4 bytes: the Replace normalizer's and Metaspace's
' ' -> '▁', or a deletion) writes exactly what Python's bytes.replace writes -- the scalar
kernel, the specification, included."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tagpipe import _core

from support.data import CORPORA, KERNELS, corpus_ids, needs_shared

MARK = "\u2581".encode()


def assert_replaces(data: bytes, from_byte: int, to: bytes, kernel: str):
    want = data.replace(bytes([from_byte]), to)
    got = _core.testing.replace_byte(data, from_byte, to, kernel=kernel)
    if got != want:
        i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
        pytest.fail(
            f"[{kernel}] {len(data)} bytes, {from_byte:#x} -> {to!r}: output differs at byte {i} "
            f"(lengths {len(got)} / {len(want)}): {got[max(0, i - 8) : i + 8]!r} != {want[max(0, i - 8) : i + 8]!r}"
        )


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("to", [b"", b"_", b"ab", MARK, b"\x00\xff\x80\x20"])
def test_every_length_and_density(kernel, to):
    rng = random.Random(7)
    for n in range(0, 80):
        for density in (0.0, 0.2, 0.5, 1.0):
            data = bytes(32 if rng.random() < density else rng.choice(b"abc\x00\x80\xff\xe2") for _ in range(n))
            assert_replaces(data, 32, to, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("to", [b"", MARK], ids=["delete", "mark"])
def test_every_mask_of_eight(kernel, to):
    # every pattern of replaced bytes in an eight-byte step, at every alignment of the step
    for m in range(256):
        eight = bytes(0x20 if (m >> i) & 1 else 0x61 + i for i in range(8))
        for pad in range(8):
            assert_replaces(b"x" * pad + eight + eight[::-1], 0x20, to, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
def test_replacement_holding_the_byte(kernel):
    assert_replaces(b"a a  a" * 9, 0x20, b"  ", kernel)
    assert_replaces(b"\xe2\x96\x81 \xe2" * 11, 0xE2, MARK, kernel)


@needs_shared
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_corpus_text(kernel, corpus):
    assert_replaces(corpus.read_bytes(), 32, MARK, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
@settings(max_examples=300, deadline=None)
@given(
    data=st.binary(max_size=300), from_byte=st.sampled_from([0x20, 0x00, 0x80, 0xFF, 0x61]), to=st.binary(max_size=4)
)
def test_hypothesis(kernel, data, from_byte, to):
    assert_replaces(data, from_byte, to, kernel)


def test_bad_arguments():
    with pytest.raises(ValueError, match="byte value"):
        _core.testing.replace_byte(b"a b", 256, b"_")
    with pytest.raises(ValueError, match="0 to 4 bytes"):
        _core.testing.replace_byte(b"a b", 32, b"12345")
    with pytest.raises(ValueError, match="unknown kernel"):
        _core.testing.replace_byte(b"a b", 32, b"_", kernel="nope")
