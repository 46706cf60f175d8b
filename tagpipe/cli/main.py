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
        tagpipe against tokenizers, one thread and every core, MB/s and tokens/s, every id
        checked (default: the bundled GPT-2 on the Python standard library's source)

    tagpipe explain MODEL
        what runs natively and what is delegated to tokenizers, stage by stage

MODEL is a tokenizer.json, a directory holding one, "bundled" (GPT-2, shipped with tagpipe),
or a Hugging Face Hub repo id (needs huggingface_hub: pip install "tagpipe[hub]").
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from tagpipe.cli import bench, demo, encode, explain


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tagpipe", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter
    commands = [
        ("demo", demo, dict(help="encode real text with the bundled GPT-2 (offline)")),
        (
            "encode",
            encode,
            dict(
                help="encode corpus files into a token file (ids + document index)",
                description=encode.HELP,
                formatter_class=raw,
            ),
        ),
        (
            "bench",
            bench,
            dict(
                help="tagpipe vs tokenizers on your text, ids checked", description=bench.__doc__, formatter_class=raw
            ),
        ),
        ("explain", explain, dict(help="which stages of a tokenizer.json run natively")),
    ]
    for name, module, options in commands:
        p = sub.add_parser(name, **options)
        module.add_arguments(p)
        p.set_defaults(func=module.run)
    return ap


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (OSError, ValueError) as err:
        print(f"tagpipe {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tagpipe {args.command}: interrupted", file=sys.stderr)
        return 130
