"""classify throughput per kernel per corpus, single thread, GB/s.

    python -m bench.classify [--alphabet regex] [--rounds 5]

Each kernel is timed natively (bench/native.py, time_classify: only the kernel calls,
10 kB documents, one reused output buffer) on fresh slices, kernels interleaved, and
every timed slice's tag stream is compared with the scalar kernel's.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tagpipe

from bench import harness, native


def engine(kernel: str, alphabet: str) -> harness.Engine:
    def run(docs):
        return None, native.time_classify(docs, alphabet, kernel)

    def verify(docs, _out):
        for d in docs:
            ref = tagpipe.classify(d, alphabet, kernel="scalar")
            got = tagpipe.classify(d, alphabet, kernel=kernel)
            if not (np.array_equal(ref.tags, got.tags) and np.array_equal(ref.starts, got.starts)):
                return f"{kernel} differs from scalar on a {len(d)}-char document"
        return None

    return harness.Engine(kernel, run, verify)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.classify", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--alphabet", default="regex", choices=sorted(tagpipe.alphabets()))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--no-write", action="store_true", help="do not write bench/results/")
    args = ap.parse_args(argv)
    kernels = tagpipe.kernels().available
    print(
        f"classify, alphabet {args.alphabet}, kernels {', '.join(kernels)} (active: {harness.kernel()}); "
        "MB/s per round:"
    )
    cells = harness.measure([engine(k, args.alphabet) for k in kernels], args.corpora, rounds=args.rounds)
    body = harness.table(cells, unit="GB/s", scale=1e-3, baseline="scalar", digits=2)
    print("\n" + body)
    if not args.no_write:
        cmd = "python -m bench.classify" + (f" --alphabet {args.alphabet}" if args.alphabet != "regex" else "")
        path = harness.write_report(f"classify-{args.alphabet}", f"classify throughput ({args.alphabet})", cmd, body)
        print(f"\nwrote {path}")
    return 0 if all(c.verified for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
