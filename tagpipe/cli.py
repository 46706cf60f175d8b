"""The tagpipe command line.

    tagpipe demo [--megabytes 8] [--tokenizer MODEL]
        offline: encode real text (the Python standard library's own source files) with the
        bundled GPT-2 tokenizer on one thread and on every core, check the ids against
        tokenizers when it is installed, and show the tag stream and the kernels

    tagpipe encode MODEL FILE... [-o ids.npz] [--lines] [--threads N] [--no-special]
        encode files (each one document, or each line with --lines; "-" is stdin) into
        one .npz of ids (uint32) and offsets (int64; document i is ids[offsets[i]:
        offsets[i + 1]]), with progress on stderr

    tagpipe explain MODEL
        what runs natively and what is delegated to tokenizers, stage by stage

MODEL is a tokenizer.json, a directory holding one, or "bundled" (GPT-2, shipped with
tagpipe).
"""
from __future__ import annotations

import argparse
import gzip
import os
import sys
import sysconfig
import time
from importlib import resources
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

import tagpipe
from tagpipe import _core

SENTENCE = "It's 3.5km to 東京, naïve!"
DOC_BYTES = 10_000


def bundled_tokenizer_json() -> str:
    """GPT-2's tokenizer.json, shipped with tagpipe (tagpipe/data/SOURCES.md)."""
    data = resources.files("tagpipe").joinpath("data/gpt2.tokenizer.json.gz").read_bytes()
    return gzip.decompress(data).decode("utf-8")


def load_model(model: str) -> tuple[tagpipe.Tokenizer, str]:
    """A Tokenizer from a tokenizer.json, a directory holding one, or "bundled"."""
    if model == "bundled":
        return tagpipe.Tokenizer.from_str(bundled_tokenizer_json()), "the bundled GPT-2"
    path = Path(model)
    if path.is_dir():
        path = path / "tokenizer.json"
        if not path.is_file():
            raise ValueError(f"{model} has no tokenizer.json")
    return tagpipe.Tokenizer.from_file(path), str(path)


def sample_text() -> str:
    return resources.files("tagpipe").joinpath("data/sample.txt").read_text(encoding="utf-8")


def stdlib_documents(megabytes: float) -> list[str]:
    """About `megabytes` of real English and code that every Python install has: the
    standard library's .py files, in a fixed order, cut into ~10 kB documents."""
    root = Path(sysconfig.get_paths()["stdlib"])
    want, docs, size = int(megabytes * 1e6), [], 0
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for i in range(0, len(text), DOC_BYTES):
            docs.append(text[i:i + DOC_BYTES])
            size += len(docs[-1].encode("utf-8"))
            if size >= want:
                return docs
    return docs or [sample_text()]


def show_stream(text: str, alphabet: str) -> None:
    c = tagpipe.classify(text, alphabet)
    print(f'Tag stream of {text!r} (alphabet "{alphabet}", one tag per character):')
    print("  " + " ".join(f"{ch}:{tag}" for ch, tag in zip(text, c.char_tags())))


def _timed(tok: tagpipe.Tokenizer, docs: list[str], threads: int) -> tuple[float, np.ndarray, np.ndarray]:
    t0 = time.perf_counter()
    ids, offsets = tok.encode_batch_flat(docs, num_threads=threads)
    return time.perf_counter() - t0, ids, offsets


def demo(args: argparse.Namespace) -> int:
    info = tagpipe.kernels()
    print(f"tagpipe {tagpipe.__version__} · kernels: {', '.join(info.available)} · active: {info.active}\n")
    tok, name = load_model(args.tokenizer)
    print(f"Tokenizer: {name}\n{tok.explain()}\n")
    ids = tok.encode(SENTENCE)
    print(f"encode({SENTENCE!r})\n  -> {ids}\n")

    docs = stdlib_documents(args.megabytes)
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    half = len(docs) // 2
    cores = os.cpu_count() or 1
    print(f"Encoding {nbytes / 1e6:.1f} MB of real text (the Python standard library's source, "
          f"{len(docs)} documents of ~10 kB):")
    # One thread on the first half (fresh text: the word cache starts empty), every core on
    # the second half (fresh again): nothing is timed twice on the same text.
    for part, threads in ((docs[:half], 1), (docs[half:], cores)):
        dt, ids_, offsets = _timed(tok, part, threads)
        size = sum(len(d.encode("utf-8")) for d in part)
        print(f"  {threads} thread{'s' if threads > 1 else ' '}: {size / dt / 1e6:7.1f} MB/s, "
              f"{len(ids_) / dt / 1e6:6.2f} M tokens/s  ({len(part)} documents, {len(ids_):,} ids)")
    try:
        import tokenizers
    except ImportError:
        print("  (install tokenizers to check these ids against it: pip install \"tagpipe[test]\")")
    else:
        oracle = tokenizers.Tokenizer.from_str(tok._json)
        check = docs[:: max(1, len(docs) // 40)]
        t0 = time.perf_counter()
        want = [e.ids for e in oracle.encode_batch(check)]
        dt = time.perf_counter() - t0
        got = tok.encode_batch(check)
        same = sum(a == b for a, b in zip(got, want))
        size = sum(len(d.encode("utf-8")) for d in check)
        print(f"  tokenizers {tokenizers.__version__}: {size / dt / 1e6:7.1f} MB/s on {len(check)} of the documents; "
              f"ids identical on {same} of {len(check)}")
        if same != len(check):
            print("  MISMATCH: please report it with the tokenizer and text", file=sys.stderr)
            return 1
    print()
    show_stream(SENTENCE, "regex")
    return 0


def _documents(paths: list[str], lines: bool) -> Iterator[tuple[str, int]]:
    """(document, its size in bytes) from files or stdin ("-")."""
    for p in paths:
        data = sys.stdin.buffer.read() if p == "-" else Path(p).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SystemExit(f"tagpipe encode: {p} is not UTF-8 (byte {e.start})") from None
        if lines:
            for line in text.splitlines(keepends=True):
                yield line, len(line.encode("utf-8"))
        else:
            yield text, len(data)


def encode(args: argparse.Namespace) -> int:
    tok, _ = load_model(args.model)
    if not tok.native:
        print("tagpipe encode: this tokenizer is delegated to tokenizers (slow):\n" + tok.explain(), file=sys.stderr)
    total = sum(os.path.getsize(p) for p in args.files if p != "-") or None
    parts, counts, batch, batch_bytes, done = [], [], [], 0, 0
    t0 = time.perf_counter()

    def flush() -> None:
        nonlocal batch, batch_bytes, done
        if not batch:
            return
        ids, offsets = tok.encode_batch_flat(batch, add_special_tokens=not args.no_special, num_threads=args.threads)
        parts.append(ids)
        counts.append(np.diff(offsets))
        done += batch_bytes
        batch, batch_bytes = [], 0
        rate = done / max(time.perf_counter() - t0, 1e-9) / 1e6
        of = f" of {total / 1e6:.1f}" if total else ""
        print(f"\r  {done / 1e6:.1f}{of} MB, {sum(len(p) for p in parts):,} ids, {rate:.1f} MB/s",
              end="", file=sys.stderr, flush=True)

    for doc, size in _documents(args.files, args.lines):
        batch.append(doc)
        batch_bytes += size
        if batch_bytes >= args.batch_megabytes * 1e6:
            flush()
    flush()
    print(file=sys.stderr)
    ids = np.concatenate(parts) if parts else np.zeros(0, np.uint32)
    offsets = np.zeros(sum(len(c) for c in counts) + 1, dtype=np.int64)
    if counts:
        np.cumsum(np.concatenate(counts), out=offsets[1:])
    np.savez(args.out, ids=ids, offsets=offsets)
    print(f"wrote {args.out}: {len(offsets) - 1} documents, {len(ids):,} ids", file=sys.stderr)
    return 0


def explain(args: argparse.Namespace) -> int:
    print(load_model(args.model)[0].explain())
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="tagpipe", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = sub.add_parser("demo", help="encode real text with the bundled GPT-2 (offline)")
    d.add_argument("--megabytes", type=float, default=8.0, help="text to encode (default 8)")
    d.add_argument("--tokenizer", default="bundled", help="MODEL instead of the bundled GPT-2")
    d.set_defaults(func=demo)
    e = sub.add_parser("encode", help="encode files into ids + offsets (.npz)")
    e.add_argument("model", help='a tokenizer.json, a directory holding one, or "bundled"')
    e.add_argument("files", nargs="+", help='files to encode ("-": stdin)')
    e.add_argument("--lines", action="store_true", help="one document per line (default: per file)")
    e.add_argument("-o", "--out", default="ids.npz", help="output file (default ids.npz)")
    e.add_argument("--threads", type=int, default=None, help="native threads (default: every core)")
    e.add_argument("--no-special", action="store_true", help="add_special_tokens=False")
    e.add_argument("--batch-megabytes", type=float, default=16.0, help=argparse.SUPPRESS)
    e.set_defaults(func=encode)
    x = sub.add_parser("explain", help="which stages of a tokenizer.json run natively")
    x.add_argument("model", help='a tokenizer.json, a directory holding one, or "bundled"')
    x.set_defaults(func=explain)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except (OSError, ValueError) as err:
        print(f"tagpipe {args.command}: {err}", file=sys.stderr)
        return 2
