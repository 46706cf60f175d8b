"""The split stage's kernels, every one of them (the scalar kernel, the specification,
included) against their definitions:
  - marks (MetaspaceRuns' block test, cpp/kernels/marks/marks.h): a run of the mark starts at k,
    the pair t[k-1] t[k] is ASCII and not two letters, t[k-1] is an `after` byte;
  - find (the added-token splitter's search, cpp/kernels/find/find.h): t[k] is in the set;
  - scan and cut_pieces (cpp/kernels/scan/scan.h), which the gpt2, cl100k and o200k families
    read their blocks through: every kernel gives the pre-tokenizers the pieces the scalar
    kernel gives them, and the oracle's (cpp/selftest checks the kernels themselves)."""

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe
from tagpipe import _core

from support.data import CORPORA, KERNELS, SHARED, SIMD_KERNELS, corpus_ids, needs_shared
from support.strategies import oracle_pre_tokenizer

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


# -- the regex families read through the scan kernel (pretokenize/fsm/scan_blocks.h) -------


def _section(model: str):
    return json.loads((SHARED / "tokenizers" / model / "tokenizer.json").read_text(encoding="utf-8"))["pre_tokenizer"]


def _split(name: str, behavior="Isolated", invert=False):
    """The Split of `name`'s regex (from its model's file) with another behavior."""
    pattern = next(p["pattern"] for p in _section(name)["pretokenizers"] if p["type"] == "Split")
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}


# gpt2 (ByteLevel's regex), cl100k (llama3), \p{N} (qwen3), o200k (gpt-4o, whose split is
# Removed and inverted), each alone and in a fold that is not plain.
FAMILY_SECTIONS = {
    "gpt2": lambda: _section("gpt2"),
    "llama3": lambda: _section("llama3"),
    "qwen3": lambda: _section("qwen3"),
    "gpt-4o": lambda: _section("gpt-4o"),
    "o200k-isolated": lambda: _split("gpt-4o"),
    "cl100k-merged": lambda: _split("llama3", "MergedWithPrevious"),
}


@contextlib.contextmanager
def _kernel(name: str):
    before = tagpipe.kernels().active
    tagpipe.set_kernel(name)
    try:
        yield
    finally:
        tagpipe.set_kernel(before)


def _native(section):
    with tagpipe.delegation_disabled():
        return tagpipe.PreTokenizer.from_json(section)


def _pieces(pt, texts):
    out = []
    for t in texts:
        r = pt.pre_tokenize(t)
        out.append((r.content, r.pieces.tobytes(), r.offsets.tobytes()))
    return out


def _texts(seed: int) -> list[str]:
    """Every length 0..260 of text drawn from the characters and fragments the families
    tell apart (every other text ASCII only), and longer texts (several 1 kB chunks of
    blocks) of the same."""
    pool = list("aZsStTrRlLdDmMvVeE01239 '\n\r\t.,;/_-(){}") + [
        "  ",
        "\n    ",
        "'s",
        "'ll",
        "\u00e9",
        "\u00c9",
        "\u0301",
        "\u0663",
        "\u4e2d",
        "\u3000",
        "\u2028",
        "\u00a0",
        "\u0085",
        "\U0001f600",
        "\uff11",
        "\u00b2",
        "\u017f",
        "\u02b0",
        "\u01c5",
        "\u0416",
        "\u0436",
        "\u0915\u093e",
        "\u200d",
        "\u2019",
        ".\n/",
        "\n/",
        "./",
        "//",
        "\r\n",
        "'S",
        "'RE",
        "AB",
        "Bc",
        "\u4e2dB",
        "\u02b0B",
        "1234",
        "\u0301\u0301",
    ]
    ascii = [c for c in pool if c.isascii()]  # (blocks the block rules decide alone: no fallback)
    rng = random.Random(seed)
    texts = ["".join(rng.choice(pool if n % 2 else ascii) for _ in range(n))[:n] for n in range(261)]
    texts += ["".join(rng.choice(pool if k % 2 else ascii) for _ in range(rng.randrange(300, 5000))) for k in range(60)]
    return texts


@needs_shared
@pytest.mark.skipif(not SIMD_KERNELS, reason="only the scalar kernel runs here")
@pytest.mark.parametrize("family", list(FAMILY_SECTIONS))
def test_families_equal_scalar_on_every_kernel(family):
    pt = _native(FAMILY_SECTIONS[family]())
    texts = _texts(7) + [c.read_text(encoding="utf-8")[:60_000] for c in CORPORA]
    with _kernel("scalar"):
        want = _pieces(pt, texts)
    for kernel in SIMD_KERNELS:
        with _kernel(kernel):
            got = _pieces(pt, texts)
        for k, (g, w) in enumerate(zip(got, want)):
            assert g == w, (
                f"[{kernel}] {family}: pieces differ from the scalar kernel's on text #{k} ({texts[k][:80]!r}...)"
            )


@needs_shared
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("family", list(FAMILY_SECTIONS))
def test_families_equal_oracle_on_every_kernel(family, kernel):
    section = FAMILY_SECTIONS[family]()
    pt, oracle = _native(section), oracle_pre_tokenizer(section)
    texts = _texts(11)[::5] + [c.read_text(encoding="utf-8")[:8_000] for c in CORPORA]
    with _kernel(kernel):
        for t in texts:
            assert pt.pre_tokenize_str(t) == oracle.pre_tokenize_str(t), f"[{kernel}] {family}: {t[:80]!r}..."
