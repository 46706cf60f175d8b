"""`tagpipe demo`: encode a few megabytes of real text offline with the bundled GPT-2 (or
--tokenizer MODEL) on one thread and on every core, time `tokenizers` on the same text in
the same run when it is installed, and check every id against it.

Each row encodes the same documents with a tokenizer loaded for that row alone, so every
row starts from an empty word cache and no row profits from text another row has seen.
What runs natively and how is `tagpipe explain`'s business, not the demo's."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

import numpy as np

from tagpipe._kernels import kernels
from tagpipe._version import __version__
from tagpipe.cli.bench import Reference, Skip, TagpipeEngine, TokenizersEngine
from tagpipe.cli.resources import DOC_BYTES, SENTENCE, load_model, stdlib_documents
from tagpipe.tokenizer import Tokenizer

# tokenizers alone, not the test extras (Ray, Spark, ...); tagpipe matches 0.23.3
INSTALL_ORACLE = "pip install tokenizers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--megabytes", type=float, default=8.0, help="text to encode (default 8)")
    parser.add_argument("--tokenizer", default="bundled", help="MODEL instead of the bundled GPT-2")


def _describe(tok: Tokenizer, name: str) -> str:
    model = json.loads(tok.to_str()).get("model") or {}
    how = (
        "run natively by tagpipe"
        if tok.native
        else "handed to tokenizers by tagpipe, which is slow (`tagpipe explain MODEL` says why)"
    )
    return f"{name} ({model.get('type', 'unknown')} model, {tok.vocab_size:,} tokens), {how}"


def _row(label: str, nbytes: int, ids: np.ndarray, ns: int) -> float:
    """Prints one timed row; returns its MB/s."""
    seconds = max(ns, 1) / 1e9
    mbps = nbytes / seconds / 1e6
    print(f"  {label:<36} {mbps:8.1f} {len(ids) / seconds / 1e6:11.2f}", end="")
    return mbps


def _tokenizers_version() -> Optional[str]:
    try:
        import tokenizers
    except ImportError:
        return None
    return tokenizers.__version__


def _time_rows(json_text: str, docs: list[str], nbytes: int, ref: Optional[Reference]) -> int:
    """One row per engine and thread count over the same documents; the number of rows whose
    ids differ from `ref`."""
    cores = os.cpu_count() or 1
    wrong = 0
    print(f"  {'':<36} {'MB/s':>8} {'M tokens/s':>11}")
    for threads in [1] if cores == 1 else [1, cores]:
        label = f"{threads} thread" + ("s (every core)" if threads > 1 else "")
        ids, offsets, ns = TagpipeEngine(json_text, True, threads).run(docs)
        ours = _row(f"tagpipe     {label}", nbytes, ids, ns)
        if ref is not None and ref.check(0, len(docs), ids, offsets) is not None:
            wrong += 1
            print("   <- ids DIFFER from tokenizers'", end="")
        print()
        if ref is None:
            continue
        try:
            engine = TokenizersEngine(json_text, True, threads)
        except Skip as why:
            print(f"  tokenizers: {why}")
            continue
        ids, _, ns = engine.run(docs)
        theirs = _row(f"tokenizers  {label}", nbytes, ids, ns)
        print(f"   tagpipe: {ours / theirs:.1f}x faster")
    return wrong


def run(args: argparse.Namespace) -> int:
    tok, name = load_model(args.tokenizer)
    print(f"tagpipe {__version__} demo (SIMD kernel: {kernels().active})\n")
    print(f"Tokenizer: {_describe(tok, name)}")
    print(f"  encode({SENTENCE!r}) -> {tok.encode(SENTENCE)}\n")

    docs = stdlib_documents(args.megabytes)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    print(
        f"Text: {nbytes / 1e6:.1f} MB of real English and Python code (the Python standard library's "
        f"own source, {len(docs):,} documents of ~{DOC_BYTES // 1000} kB).\n"
        "Every row encodes all of it, starting with an empty word cache:"
    )
    json_text = tok.to_str()
    version = _tokenizers_version()
    ref = Reference(json_text, docs, True) if version else None
    sys.stdout.flush()
    wrong = _time_rows(json_text, docs, nbytes, ref)
    print()
    if ref is None:
        print(f"tokenizers is not installed, so the ids were not checked against it: {INSTALL_ORACLE}")
    elif wrong:
        print(f"MISMATCH: tagpipe's ids differ from tokenizers {version}'s; please report it with the tokenizer")
    else:
        print(
            f"Checked: tagpipe's ids identical on {len(docs)} of {len(docs)} documents to those of "
            f"tokenizers {version}, every id, at every thread count."
        )
    print(
        "\nYour own model: tagpipe demo --tokenizer path/to/tokenizer.json (or a Hugging Face repo id);"
        " your own text: tagpipe bench MODEL FILES..."
    )
    return 1 if wrong else 0
