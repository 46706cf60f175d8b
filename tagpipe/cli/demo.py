"""`tagpipe demo`: encode real text offline with the bundled GPT-2, one thread and every
core, check the ids against tokenizers when it is installed, show the tag stream."""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from tagpipe._kernels import kernels
from tagpipe._version import __version__
from tagpipe.classify import classify
from tagpipe.cli.resources import SENTENCE, load_model, stdlib_documents
from tagpipe.tokenizer import Tokenizer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--megabytes", type=float, default=8.0, help="text to encode (default 8)")
    parser.add_argument("--tokenizer", default="bundled", help="MODEL instead of the bundled GPT-2")


def show_stream(text: str, alphabet: str) -> None:
    c = classify(text, alphabet)
    print(f'Tag stream of {text!r} (alphabet "{alphabet}", one tag per character):')
    print("  " + " ".join(f"{ch}:{tag}" for ch, tag in zip(text, c.char_tags())))


def _timed(tok: Tokenizer, docs: list[str], threads: int) -> tuple[float, np.ndarray, np.ndarray]:
    t0 = time.perf_counter()
    ids, offsets = tok.encode_batch_flat(docs, num_threads=threads)
    return time.perf_counter() - t0, ids, offsets


def _check_with_tokenizers(tok: Tokenizer, docs: list[str]) -> int:
    """Compare the ids of every 40th document or so with tokenizers'; 1 on a mismatch."""
    try:
        import tokenizers
    except ImportError:
        print('  (install tokenizers to check these ids against it: pip install "tagpipe[test]")')
        return 0
    oracle = tokenizers.Tokenizer.from_str(tok.to_str())
    check = docs[:: max(1, len(docs) // 40)]
    t0 = time.perf_counter()
    want = [e.ids for e in oracle.encode_batch(check)]
    dt = time.perf_counter() - t0
    got = tok.encode_batch(check)
    same = sum(a == b for a, b in zip(got, want))
    size = sum(len(d.encode("utf-8")) for d in check)
    print(
        f"  tokenizers {tokenizers.__version__}: {size / dt / 1e6:7.1f} MB/s on {len(check)} of the documents; "
        f"ids identical on {same} of {len(check)}"
    )
    if same != len(check):
        print("  MISMATCH: please report it with the tokenizer and text", file=sys.stderr)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    info = kernels()
    print(f"tagpipe {__version__} · kernels: {', '.join(info.available)} · active: {info.active}\n")
    tok, name = load_model(args.tokenizer)
    print(f"Tokenizer: {name}\n{tok.explain()}\n")
    ids = tok.encode(SENTENCE)
    print(f"encode({SENTENCE!r})\n  -> {ids}\n")

    docs = stdlib_documents(args.megabytes)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    half = len(docs) // 2
    cores = os.cpu_count() or 1
    print(
        f"Encoding {nbytes / 1e6:.1f} MB of real text (the Python standard library's source, "
        f"{len(docs)} documents of ~10 kB):"
    )
    # One thread on the first half (fresh text: the word cache starts empty), every core on
    # the second half (fresh again): nothing is timed twice on the same text.
    for part, threads in ((docs[:half], 1), (docs[half:], cores)):
        dt, ids_, offsets = _timed(tok, part, threads)
        size = sum(len(d.encode("utf-8")) for d in part)
        print(
            f"  {threads} thread{'s' if threads > 1 else ' '}: {size / dt / 1e6:7.1f} MB/s, "
            f"{len(ids_) / dt / 1e6:6.2f} M tokens/s  ({len(part)} documents, {len(ids_):,} ids)"
        )
    if _check_with_tokenizers(tok, docs):
        return 1
    print()
    show_stream(SENTENCE, "regex")
    return 0
