"""`tagpipe encode [MODEL] INPUT... -o OUT`: corpus files into a token file, streaming.

The command line side only: the arguments become `encode_files.Options`; the reading is
`corpus`, the encoding loop `encode_files`, the output format `tokenfile`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from tagpipe.cli import corpus, encode_files, tokenfile
from tagpipe.cli.resources import load_model

HELP = """Encode corpus files into a token file, streaming in bounded memory, on every core.

Inputs: text files (each file one document; or --lines, --blank-lines, --separator S),
JSON Lines (--field, default "text") and Parquet (--column, default "text"; needs pyarrow).
Output (tagpipe/cli/tokenfile.py): OUT.bin holds every document's ids back to back, uint16 when
the vocabulary fits, else uint32 (the manifest names the dtype); OUT.idx holds uint64 offsets,
one more than the documents (document i is ids[idx[i]:idx[i + 1]]); OUT.json, written last,
is the manifest.  Read them with numpy alone:

    meta = json.load(open("OUT.json"))
    ids = np.memmap("OUT.bin", dtype=meta["dtype"], mode="r")
    idx = np.fromfile("OUT.idx", dtype="<u8")

Files appear only when complete (written under temporary names and renamed).  Progress
goes to stderr on a terminal; in pipes and logs the command is quiet unless --progress.
"""


def add_arguments(e: argparse.ArgumentParser) -> None:
    e.add_argument(
        "args",
        nargs="+",
        metavar="[MODEL] INPUT",
        help='MODEL: a tokenizer.json, a directory holding one, a Hub id, or "bundled" (the '
        "default when only one INPUT is given); INPUT: text, .jsonl or .parquet files "
        '("-": stdin)',
    )
    e.add_argument(
        "-o",
        "--out",
        required=True,
        help="output name: OUT.bin + OUT.idx + OUT.json "
        "(or OUT.npy + OUT.idx.npy + OUT.json with --format npy or an OUT ending in .npy)",
    )
    e.add_argument("--format", choices=tokenfile.FORMATS, default="bin", help="bin (default) or npy")
    e.add_argument(
        "--input-format",
        choices=("auto", "text", "jsonl", "parquet"),
        default="auto",
        help="auto (default): .jsonl/.ndjson are JSON Lines, .parquet is Parquet, else text",
    )
    g = e.add_mutually_exclusive_group()
    g.add_argument("--lines", action="store_true", help="text: one document per line")
    g.add_argument("--blank-lines", action="store_true", help="text: documents separated by blank lines")
    g.add_argument("--separator", metavar="S", help='text: documents separated by S (e.g. "<|endoftext|>")')
    e.add_argument("--field", default="text", help="JSON Lines: the field holding the text (default text)")
    e.add_argument("--column", default="text", help="Parquet: the column holding the text (default text)")
    e.add_argument(
        "--errors",
        choices=corpus.ERRORS,
        default="strict",
        help="invalid UTF-8: strict (stop, naming file and byte), replace (U+FFFD) or skip (drop the document)",
    )
    e.add_argument("--threads", type=int, default=None, help="native threads (default: every core)")
    e.add_argument("--no-special", action="store_true", help="add_special_tokens=False")
    e.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress line on stderr (default: only on a terminal)",
    )
    e.add_argument("--batch-megabytes", type=float, default=8.0, help=argparse.SUPPRESS)


def _total_bytes(inputs: list[str], kind: str) -> Optional[int]:
    """The input size progress can count against (None when it cannot know it)."""
    if any(
        p == "-" or p.endswith(".gz") or (kind == "auto" and corpus.kind_of(p) == "parquet") or kind == "parquet"
        for p in inputs
    ):
        return None
    try:
        return sum(os.path.getsize(p) for p in inputs)
    except OSError:
        return None


def _options(args: argparse.Namespace) -> encode_files.Options:
    split = "separator" if args.separator else "lines" if args.lines else "blank" if args.blank_lines else "file"
    fmt = "npy" if args.out.endswith(".npy") else args.format
    return encode_files.Options(
        kind=args.input_format,
        split=split,
        separator=args.separator or "",
        field=args.field,
        column=args.column,
        errors=args.errors,
        fmt=fmt,
        add_special_tokens=not args.no_special,
        threads=args.threads,
        batch_bytes=int(args.batch_megabytes * 1e6),
    )


def run(args: argparse.Namespace) -> int:
    # one positional: the input, with the bundled tokenizer; more: MODEL first, then inputs
    args.model, args.inputs = ("bundled", args.args) if len(args.args) == 1 else (args.args[0], args.args[1:])
    tok, name = load_model(args.model)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not tok.native and show:
        print("tagpipe encode: this tokenizer is delegated to tokenizers (slow):\n" + tok.explain(), file=sys.stderr)
    opts = _options(args)
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
        print(
            f"wrote {m['ids']} ({m['dtype']}), {m['index']} and {Path(args.out).name.rsplit('.', 1)[0]}.json: "
            f"{m['documents']:,} documents{skipped}, {m['tokens']:,} tokens, "
            f"{r.input_bytes / max(r.seconds, 1e-9) / 1e6:.1f} MB/s, peak memory {r.peak_rss_mb:.0f} MB",
            file=sys.stderr,
        )
    elif r.skipped:
        print(f"tagpipe encode: skipped {r.skipped:,} documents with invalid UTF-8", file=sys.stderr)
    return 0
