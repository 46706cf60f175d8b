"""classify throughput per kernel per corpus, single thread, GB/s.

    python bench/classify.py [--alphabet regex] [--rounds 5]

Each kernel is timed natively (tagpipe._core.testing.time_classify: only the kernel calls,
10 kB documents, one reused output buffer) on fresh slices, kernels interleaved, and
every timed slice's tag stream is compared with the scalar kernel's.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tagpipe  # noqa: E402
from tagpipe import _core  # noqa: E402


def engine(kernel: str, alphabet: str) -> harness.Engine:
    def run(docs):
        raw = [d.encode("utf-8") for d in docs]
        offsets = np.cumsum([0] + [len(r) for r in raw], dtype=np.int64)
        return None, _core.testing.time_classify(b"".join(raw), offsets, alphabet, kernel)

    def verify(docs, _out):
        for d in docs:
            ref = tagpipe.classify(d, alphabet, kernel="scalar")
            got = tagpipe.classify(d, alphabet, kernel=kernel)
            if not (np.array_equal(ref.tags, got.tags) and np.array_equal(ref.starts, got.starts)):
                return f"{kernel} differs from scalar on a {len(d)}-char document"
        return None

    return harness.Engine(kernel, run, verify)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--alphabet", default="regex", choices=sorted(tagpipe.alphabets()))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--no-write", action="store_true", help="do not write bench/results/")
    args = ap.parse_args()
    kernels = tagpipe.kernels().available
    print(f"classify, alphabet {args.alphabet}, kernels {', '.join(kernels)}; MB/s per round:")
    cells = harness.measure([engine(k, args.alphabet) for k in kernels], args.corpora, rounds=args.rounds)
    body = harness.table(cells, unit="GB/s", scale=1e-3, baseline="scalar", digits=2)
    print("\n" + body)
    if not args.no_write:
        cmd = "python bench/classify.py" + (f" --alphabet {args.alphabet}" if args.alphabet != "regex" else "")
        path = harness.write_report(f"classify-{args.alphabet}", f"classify throughput ({args.alphabet})", cmd, body)
        print(f"\nwrote {path}")
    return 0 if all(c.verified for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
