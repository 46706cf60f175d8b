"""The tagpipe command line.

    tagpipe demo      the kernels this CPU runs, the tag stream of a sample sentence and
                      classify throughput per kernel on the bundled sample (offline)
"""
from __future__ import annotations

import argparse
import sys
from importlib import resources

import numpy as np

import tagpipe
from tagpipe import _core

SENTENCE = "It's 3.5km to 東京, naïve!"


def sample_text() -> str:
    return resources.files("tagpipe").joinpath("data/sample.txt").read_text(encoding="utf-8")


def show_stream(text: str, alphabet: str) -> None:
    c = tagpipe.classify(text, alphabet)
    chars = list(text)
    print(f'Tag stream of {text!r} (alphabet "{alphabet}", one tag per character):')
    for ch, tag in zip(chars, c.char_tags()):
        print(f"  {ch!r:>6}  {tag}")


def throughput(text: str, megabytes: float) -> None:
    data = text.encode("utf-8")
    data = data * max(1, int(megabytes * 1e6) // len(data))
    doc = 10_000
    offsets = np.arange(0, len(data) + doc, doc, dtype=np.int64)
    offsets[-1] = len(data)
    kernels = tagpipe.kernels().available
    print(f"\nclassify throughput, GB/s, single thread: the sample repeated to "
          f"{len(data) / 1e6:.1f} MB, {doc // 1000} kB documents (best of 3)")
    print("  alphabet  " + "".join(f"{k:>9}" for k in kernels))
    for alphabet in tagpipe.alphabets():
        row = []
        for k in kernels:
            ns = min(_core.time_classify(data, offsets, alphabet, k) for _ in range(3))
            row.append(f"{len(data) / ns:9.2f}")
        print(f"  {alphabet:<9} " + "".join(row))


def demo(args: argparse.Namespace) -> int:
    info = tagpipe.kernels()
    print(f"tagpipe {tagpipe.__version__} · kernels available: {', '.join(info.available)}"
          f" · active: {info.active}\n")
    show_stream(SENTENCE, "regex")
    throughput(sample_text(), args.megabytes)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tagpipe", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = sub.add_parser("demo", help="run the demo on the bundled sample (offline)")
    d.add_argument("--megabytes", type=float, default=8.0, help="text to time (default 8)")
    d.set_defaults(func=demo)
    args = ap.parse_args(argv)
    return args.func(args)
