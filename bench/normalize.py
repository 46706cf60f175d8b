"""Normalizer throughput: tagpipe's native normalizers vs the oracle's normalize_str, single thread.

    python -m bench.normalize [--models all-minilm-l6-v2 bert-wiki t5-small marian-ortx-nmt
                               rwkv-midi-wordlevel] [--rounds 5]

The normalizer of each tokenizer file, alone.  tagpipe is timed natively
(bench/native.py, ``normalize_timed``: one Normalizer, only its run() per 10 kB document); the oracle
through ``normalize_str`` per document (its time includes making the Python string).  Every
timed output is verified: tagpipe's must equal the oracle's, document by document; a
document tagpipe delegates (Precompiled, when a grapheme cluster could matter) is counted
and reported.
"""

from __future__ import annotations

import argparse
import json
import sys

import tokenizers

from bench import harness, native

MODELS = ["all-minilm-l6-v2", "bert-wiki", "t5-small", "marian-ortx-nmt", "rwkv-midi-wordlevel"]


def engines(model: str, delegated: list[int]) -> list[harness.Engine]:
    path = harness.shared_dir() / "tokenizers" / model / "tokenizer.json"
    node = json.loads(path.read_text(encoding="utf-8"))["normalizer"]
    steps, native_ = native.normalizer_steps(node)
    if not native_:
        sys.exit(f"{model}: normalizer not native")
    oracle = tokenizers.Tokenizer.from_file(str(path)).normalizer

    def run_ours(docs):
        return native.normalize_timed(steps, docs)

    def verify_ours(docs, out):
        for d, got in zip(docs, out):
            if got is None:
                delegated[0] += 1
            elif got != oracle.normalize_str(d):
                return "output differs from the oracle"
        return None

    return [
        harness.Engine("tagpipe", run_ours, verify_ours),
        harness.Engine("tokenizers", harness.per_call(oracle.normalize_str)),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.normalize", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    parts, ok = [], True
    for model in args.models:
        print(f"{model}: MB/s per round")
        delegated = [0]
        cells = harness.measure(engines(model, delegated), args.corpora, rounds=args.rounds, max_round_docs=30)
        ok &= all(c.verified for c in cells)
        parts.append(
            f"### {model}\n\n"
            + harness.table(cells, baseline="tokenizers")
            + f"\n\nDocuments delegated by tagpipe (not timed natively): {delegated[0]}"
        )
        print(parts[-1] + "\n")
    if not args.no_write:
        path = harness.write_report(
            "normalize", "Normalizer throughput (single thread)", harness.command("normalize", argv), "\n\n".join(parts)
        )
        print(f"wrote {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
