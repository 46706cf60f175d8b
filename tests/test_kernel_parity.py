"""Encode parity on every kernel this CPU runs, not only the active one.

The rest of the suite encodes with the active kernel (the best this CPU runs), so a bug in
another kernel -- the one a user without AVX-512 gets -- would pass it.  Here each kernel is
made active in turn (``tagpipe.set_kernel``, as ``TAGPIPE_KERNEL`` does at import), fresh
Tokenizer instances are built (so no word cache filled by another kernel answers), and a
subset of the parity matrix runs natively (support.parity.run_and_compare, under
delegation_disabled): one tokenizer per pre-tokenizer family, a few corpus documents each,
and texts whose characters fall across every SIMD block boundary.

A kernel compiled into this build that the CPU cannot run (avx512 on a machine without
AVX-512, say) is skipped with a reason naming it: it is shipped but not run here (`-ra`
lists it); cpp/selftest runs every kernel against scalar, and scripts/selftest.sh aarch64
the NEON one under an emulator.
"""

from __future__ import annotations

import functools
import json

import pytest
import tokenizers

import tagpipe

from support.data import CORPORA, SHARED, needs_shared
from support.delegation import allowance_for
from support.parity import Report, corpus_docs, oracle_ids, run_and_compare

COMPILED = tagpipe.kernels().compiled
AVAILABLE = tagpipe.kernels().available
# One per pre-tokenizer family / alphabet (regex, deepseek, unicode, Metaspace, NFC, charsmap,
# WordPiece, Unigram, WordLevel).
NAMES = [
    "gpt2",
    "llama3",
    "deepseek-v3",
    "qwen3",
    "llama2",
    "gemma3",
    "all-minilm-l6-v2",
    "t5-small",
    "marian-ortx-nmt",
    "rwkv-midi-wordlevel",
]
DOCS_PER_CORPUS = 4


def _path(name: str):
    return SHARED / "tokenizers" / name / "tokenizer.json"


def block_texts() -> list[str]:
    """Multibyte characters, spaces, newlines and apostrophes at every offset of a 64-byte
    block (the widest kernel's), so that each falls on a block edge in some text."""
    out = []
    for n in range(0, 130, 3):
        out.append("a" * n + "é 日本 ☃\U0001f600 x")
        out.append(" " * n + "word's\n\n" + "\t" * (n % 5) + "Ω" * (n % 7))
        out.append("x" * n + "  \u00a0\u3000 " + "1234567" + "'ll" + "\r\n")
    return out


@functools.lru_cache(maxsize=None)
def _texts(name: str) -> tuple[str, ...]:
    docs = [d.text for corpus in CORPORA for d in corpus_docs(corpus, name)[:DOCS_PER_CORPUS]]
    return tuple(docs + block_texts())


@functools.lru_cache(maxsize=None)
def _oracle(name: str):
    oracle = tokenizers.Tokenizer.from_file(str(_path(name)))
    texts = list(_texts(name))
    return oracle, {add: oracle_ids(oracle, texts, add) for add in (True, False)}


@pytest.fixture
def kernel(request):
    name = request.param
    if name not in AVAILABLE:
        pytest.skip(f"this CPU cannot run the {name} kernel: compiled and shipped, but not run here")
    before = tagpipe.kernels().active
    tagpipe.set_kernel(name)
    try:
        assert tagpipe.kernels().active == name
        yield name
    finally:
        tagpipe.set_kernel(before)


@needs_shared
@pytest.mark.parametrize("kernel", COMPILED, indirect=True)
@pytest.mark.parametrize("name", NAMES)
def test_encode_parity_on_every_kernel(name, kernel):
    oracle, want = _oracle(name)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_file(_path(name))
    allowance = allowance_for(json.loads(_path(name).read_text(encoding="utf-8")).get("normalizer"))
    report = Report(f"{name} on {kernel}", tok, oracle)
    texts = list(_texts(name))
    for add in (True, False):
        run_and_compare(report, tok, texts, add, allowance=allowance, want=want[add], do_shrink=False)
    report.check()


def test_the_kernels_are_known():
    """The kernels the skip reasons and docs name: a new one must be added to them."""
    assert set(COMPILED) <= {"scalar", "sse42", "avx2", "avx512", "neon"}, COMPILED
    assert "scalar" in AVAILABLE and set(AVAILABLE) <= set(COMPILED)
