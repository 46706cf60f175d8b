"""The tagpipe command line.

    tagpipe demo [--megabytes 8] [--tokenizer MODEL]
        offline: encode real text (the Python standard library's own source files) with the
        bundled GPT-2 tokenizer on one thread and on every core, check the ids against
        tokenizers when it is installed, and show the tag stream and the kernels

    tagpipe encode [MODEL] INPUT... -o OUT [--lines | --blank-lines | --separator S]
                   [--field F] [--column C] [--format bin|npy] [--errors strict|replace|skip]
                   [--threads N] [--no-special] [--progress]
        encode text, JSON Lines or Parquet files into OUT.bin (uint16/uint32 ids), OUT.idx
        (uint64 document offsets) and OUT.json, streaming, on every core
        (tagpipe encode --help says more)

    tagpipe bench [MODEL] [FILES...] [--threads N] [--rounds 3] [--engines ...]
        tagpipe against tokenizers (and gigatoken, fastokens, tiktoken when installed), one
        thread and every core, MB/s and tokens/s, every id checked (default: the bundled
        GPT-2 on the Python standard library's source)

    tagpipe explain MODEL
        what runs natively and what is delegated to tokenizers, stage by stage

MODEL is a tokenizer.json, a directory holding one, "bundled" (GPT-2, shipped with tagpipe),
or a Hugging Face Hub repo id (needs huggingface_hub: pip install "tagpipe[hub]").
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
from typing import Optional

import numpy as np

import tagpipe
from tagpipe import _core, benchmark, corpus, encode_files, tokenfile

SENTENCE = "It's 3.5km to 東京, naïve!"
DOC_BYTES = 10_000


def bundled_tokenizer_json() -> str:
    """GPT-2's tokenizer.json, shipped with tagpipe (tagpipe/data/SOURCES.md)."""
    data = resources.files("tagpipe").joinpath("data/gpt2.tokenizer.json.gz").read_bytes()
    return gzip.decompress(data).decode("utf-8")


def load_model(model: str) -> tuple[tagpipe.Tokenizer, str]:
    """A Tokenizer from a tokenizer.json, a directory holding one, "bundled", or a Hub id."""
    if model == "bundled":
        return tagpipe.Tokenizer.from_str(bundled_tokenizer_json()), "the bundled GPT-2"
    path = Path(model)
    if path.is_dir():
        path = path / "tokenizer.json"
    return tagpipe.from_pretrained(model), str(path) if path.exists() else f"{model} (Hugging Face Hub)"


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
        oracle = tokenizers.Tokenizer.from_str(tok.to_str())
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


def _total_bytes(inputs: list[str], kind: str) -> Optional[int]:
    """The input size progress can count against (None when it cannot know it)."""
    if any(p == "-" or p.endswith(".gz") or (kind == "auto" and corpus.kind_of(p) == "parquet")
           or kind == "parquet" for p in inputs):
        return None
    try:
        return sum(os.path.getsize(p) for p in inputs)
    except OSError:
        return None


ENCODE_HELP = """Encode corpus files into a token file, streaming in bounded memory, on every core.

Inputs: text files (each file one document; or --lines, --blank-lines, --separator S),
JSON Lines (--field, default "text") and Parquet (--column, default "text"; needs pyarrow).
Output (tagpipe/tokenfile.py): OUT.bin holds every document's ids back to back, uint16 when
the vocabulary fits, else uint32 (the manifest names the dtype); OUT.idx holds uint64 offsets,
one more than the documents (document i is ids[idx[i]:idx[i + 1]]); OUT.json, written last,
is the manifest.  Read them with numpy alone:

    meta = json.load(open("OUT.json"))
    ids = np.memmap("OUT.bin", dtype=meta["dtype"], mode="r")
    idx = np.fromfile("OUT.idx", dtype="<u8")

Files appear only when complete (written under temporary names and renamed).  Progress
goes to stderr on a terminal; in pipes and logs the command is quiet unless --progress.
"""


def encode(args: argparse.Namespace) -> int:
    # one positional: the input, with the bundled tokenizer; more: MODEL first, then inputs
    args.model, args.inputs = ("bundled", args.args) if len(args.args) == 1 else (args.args[0], args.args[1:])
    tok, name = load_model(args.model)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not tok.native and show:
        print("tagpipe encode: this tokenizer is delegated to tokenizers (slow):\n" + tok.explain(), file=sys.stderr)
    split = ("separator" if args.separator else "lines" if args.lines else "blank" if args.blank_lines else "file")
    fmt = "npy" if args.out.endswith(".npy") else args.format
    opts = encode_files.Options(kind=args.input_format, split=split, separator=args.separator or "",
                                field=args.field, column=args.column, errors=args.errors, fmt=fmt,
                                add_special_tokens=not args.no_special, threads=args.threads,
                                batch_bytes=int(args.batch_megabytes * 1e6))
    progress = encode_files.Progress(_total_bytes(args.inputs, args.input_format), show, sys.stderr)
    encode_files.terminate_cleanly()
    try:
        r = encode_files.encode_files(tok, args.inputs, args.out, opts, progress=progress, model=name)
    except corpus.InputError as err:
        print(f"tagpipe encode: {err}", file=sys.stderr)
        return 2
    if show:
        m = r.meta
        skipped = f", {r.skipped:,} skipped (invalid UTF-8)" if r.skipped else ""
        print(f"wrote {m['ids']} ({m['dtype']}), {m['index']} and {Path(args.out).name.rsplit('.', 1)[0]}.json: "
              f"{m['documents']:,} documents{skipped}, {m['tokens']:,} tokens, "
              f"{r.input_bytes / max(r.seconds, 1e-9) / 1e6:.1f} MB/s, peak memory {r.peak_rss_mb:.0f} MB",
              file=sys.stderr)
    elif r.skipped:
        print(f"tagpipe encode: skipped {r.skipped:,} documents with invalid UTF-8", file=sys.stderr)
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
    e = sub.add_parser("encode", help="encode corpus files into a token file (ids + document index)",
                       description=ENCODE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("args", nargs="+", metavar="[MODEL] INPUT",
                   help='MODEL: a tokenizer.json, a directory holding one, a Hub id, or "bundled" (the '
                        'default when only one INPUT is given); INPUT: text, .jsonl or .parquet files '
                        '("-": stdin)')
    e.add_argument("-o", "--out", required=True, help="output name: OUT.bin + OUT.idx + OUT.json "
                   "(or OUT.npy + OUT.idx.npy + OUT.json with --format npy or an OUT ending in .npy)")
    e.add_argument("--format", choices=tokenfile.FORMATS, default="bin", help="bin (default) or npy")
    e.add_argument("--input-format", choices=("auto", "text", "jsonl", "parquet"), default="auto",
                   help="auto (default): .jsonl/.ndjson are JSON Lines, .parquet is Parquet, else text")
    g = e.add_mutually_exclusive_group()
    g.add_argument("--lines", action="store_true", help="text: one document per line")
    g.add_argument("--blank-lines", action="store_true", help="text: documents separated by blank lines")
    g.add_argument("--separator", metavar="S", help='text: documents separated by S (e.g. "<|endoftext|>")')
    e.add_argument("--field", default="text", help="JSON Lines: the field holding the text (default text)")
    e.add_argument("--column", default="text", help="Parquet: the column holding the text (default text)")
    e.add_argument("--errors", choices=corpus.ERRORS, default="strict",
                   help="invalid UTF-8: strict (stop, naming file and byte), replace (U+FFFD) or skip "
                        "(drop the document)")
    e.add_argument("--threads", type=int, default=None, help="native threads (default: every core)")
    e.add_argument("--no-special", action="store_true", help="add_special_tokens=False")
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress line on stderr (default: only on a terminal)")
    e.add_argument("--batch-megabytes", type=float, default=8.0, help=argparse.SUPPRESS)
    e.set_defaults(func=encode)
    b = sub.add_parser("bench", help="tagpipe vs tokenizers and the installed peers, ids checked",
                       description=benchmark.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    benchmark.add_arguments(b)
    b.set_defaults(func=benchmark.run)
    x = sub.add_parser("explain", help="which stages of a tokenizer.json run natively")
    x.add_argument("model", help='a tokenizer.json, a directory holding one, a Hub id, or "bundled"')
    x.set_defaults(func=explain)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except (OSError, ValueError) as err:
        print(f"tagpipe {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tagpipe {args.command}: interrupted", file=sys.stderr)
        return 130
