"""The split stage's two small kernels, every one of them (the scalar kernel, the
specification, included) against their definitions:
  - marks (MetaspaceRuns' block test, cpp/kernels/marks/marks.h): a run of the mark starts at k,
    the pair t[k-1] t[k] is ASCII and not two letters, t[k-1] is an `after` byte;
  - find (the added-token splitter's search, cpp/kernels/find/find.h): t[k] is in the set."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tagpipe import _core

from support.data import CORPORA, KERNELS, corpus_ids, needs_shared

MARK = "\u2581".encode()
AFTERS = [None, b">>>>", b"a. \x81"]


def spec(data: bytes, after):
    """(runs, pairs, after) per 64-byte block, from the definitions in marks.h."""
    buf = bytes(3) + data + bytes(67)

    def letter(x):
        return 0x41 <= x <= 0x5A or 0x61 <= x <= 0x7A

    out = []
    for q in range(0, len(data), 64):
        runs = pairs = follows = 0
        for k in range(64):
            i = 3 + q + k
            if buf[i : i + 3] == MARK and buf[i - 3 : i] != MARK:
                runs |= 1 << k
            x, y = buf[i - 1], buf[i]
            if x < 0x80 and y < 0x80 and not (letter(x) and letter(y)):
                pairs |= 1 << k
            if after is not None and x in after:
                follows |= 1 << k
        out.append((runs, pairs, follows))
    return out


def assert_masks(data: bytes, after, kernel: str):
    got = _core.testing.mark_masks(data, MARK, after, kernel=kernel)
    want = spec(data, after)
    for q, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"[{kernel}] block {q} of {len(data)} bytes (after={after!r}): {g} != {w}"
    assert len(got) == len(want)


PIECES = [
    MARK,
    MARK * 2,
    MARK * 3,
    MARK[:1],
    MARK[1:],
    b"a",
    b"Z",
    b"@",
    b"[",
    b"`",
    b"{",
    b">",
    b".",
    b" ",
    b"\n",
    b"0",
    b"\x00",
    b"\x7f",
    b"\x80",
    b"\xc3\xa9",
    "中".encode(),
    b"\xff",
]


@pytest.mark.parametrize("kernel", KERNELS)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=120), st.sampled_from(AFTERS))
def test_kernel_equals_definition(kernel, pieces, after):
    assert_masks(b"".join(pieces), after, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
def test_marks_at_every_offset(kernel):
    # a mark (and a run of two) at every position of a block and across its ends
    for run in (MARK, MARK * 2):
        for at in range(0, 130):
            data = b"ab.c" * 40
            data = data[:at] + run + data[at:]
            assert_masks(data, b">>>>", kernel)


@needs_shared
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_corpora_as_metaspace_writes_them(kernel, corpus):
    data = corpus.read_bytes()[:200_000].replace(b" ", MARK)
    assert_masks(data, b"a>\n\xe2", kernel)


# -- the find kernel (the added-token splitter's search for its tokens' first bytes) -------


def assert_found(data: bytes, byte_set: bytes, kernel: str):
    got = _core.testing.find_bytes(data, byte_set, kernel=kernel)
    padded = data + bytes(64)
    want = [sum(1 << k for k in range(64) if padded[q + k] in byte_set) for q in range(0, len(data), 64)]
    assert got == want, f"[{kernel}] {len(data)} bytes, set {byte_set!r}"


@pytest.mark.parametrize("kernel", KERNELS)
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.binary(min_size=1, max_size=8))
def test_find_equals_definition(kernel, data, byte_set):
    byte_set = (byte_set * 8)[:8]
    assert_found(data + byte_set[:1] * (len(data) % 3), byte_set, kernel)


@needs_shared
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_find_on_corpora(kernel, corpus):
    assert_found(corpus.read_bytes()[:200_000], b"<\n\t\xe2[<<<", kernel)
