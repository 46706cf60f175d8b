"""A str's conversion to UTF-8, per transcode kernel and CPython's own, per corpus,
single thread, GB/s of UTF-8 written.

    python -m bench.transcode [--rounds 5]

The encoder converts each non-ASCII str it is given on the thread that encodes it
(cpp/kernels/transcode/); before, CPython did (PyUnicode_AsUTF8AndSize, with the GIL held).  Each
kernel is timed natively (bench/native.py, time_transcode: only the kernel calls, 10 kB
documents, one reused output buffer); "cpython" is str.encode per document (what
PyUnicode_AsUTF8AndSize does, plus a bytes object).  Fresh slices, engines interleaved;
every timed slice's output is compared with str.encode.  ASCII documents need no
conversion: every engine skips them, and the GB/s are of the whole slice's UTF-8.  The code
corpus is left out by default (its slices are nearly all ASCII documents).
"""

from __future__ import annotations

import argparse
import sys

import tagpipe

from bench import harness, native


def kernel_engine(kernel: str) -> harness.Engine:
    def run(docs):
        return None, native.time_transcode(docs, kernel)

    def verify(docs, _out):
        for i, d in enumerate(docs):
            if native.transcode(d, kernel) != d.encode("utf-8"):
                return f"{kernel} differs from str.encode on document {i}"
        return None

    return harness.Engine(kernel, run, verify)


def cpython_engine() -> harness.Engine:
    encode = harness.per_call(lambda d: d.encode("utf-8"))

    def run(docs):
        return encode([d for d in docs if not d.isascii()])

    return harness.Engine("cpython", run)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.transcode", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpora", nargs="*", default=[c for c in harness.CORPORA if c != "code"])
    ap.add_argument("--no-write", action="store_true", help="do not write bench/results/")
    args = ap.parse_args(argv)
    kernels = tagpipe.kernels().available
    print(f"transcode, kernels {', '.join(kernels)} and cpython; MB/s per round:")
    cells = harness.measure([cpython_engine()] + [kernel_engine(k) for k in kernels], args.corpora, rounds=args.rounds)
    body = harness.table(cells, unit="GB/s", scale=1e-3, baseline="cpython", digits=2)
    print("\n" + body)
    if not args.no_write:
        path = harness.write_report("transcode", "str -> UTF-8 throughput", harness.command("transcode", argv), body)
        print(f"\nwrote {path}")
    return 0 if all(c.verified for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
