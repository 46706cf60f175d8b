"""Pre-tokenization throughput: tagpipe's native span path vs the oracle, single thread.

    python -m bench.pretokenize [--models gpt2 llama3 gpt-4o all-minilm-l6-v2] [--rounds 5]

tagpipe is timed natively (bench/native.py, time_pretokenizer: only the pre-tokenizer calls, byte
ranges out, 10 kB documents); the oracle through `pre_tokenize_str`, the only entry it
has (its time includes building its Python list).  Every timed slice is verified: the
pieces tagpipe returns must equal the oracle's, document by document.
"""

from __future__ import annotations

import argparse
import json
import sys

import tagpipe

from bench import harness, native


def section(model: str):
    path = harness.shared_dir() / "tokenizers" / model / "tokenizer.json"
    return json.loads(path.read_text(encoding="utf-8"))["pre_tokenizer"]


def engines(model: str) -> list[harness.Engine]:
    sec = section(model)
    with tagpipe.delegation_disabled():
        ours = tagpipe.PreTokenizer.from_json(sec)
    oracle = native.oracle_pre_tokenizer(sec)

    def run_ours(docs):
        ns, pieces = native.time_pretokenizer(ours, docs)
        return pieces, ns

    def verify_ours(docs, _pieces):
        for d in docs:
            if ours.pre_tokenize_str(d) != oracle.pre_tokenize_str(d):
                return "pieces differ from the oracle"
        return None

    return [
        harness.Engine("tagpipe", run_ours, verify_ours),
        harness.Engine("tokenizers", harness.per_call(oracle.pre_tokenize_str)),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.pretokenize", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=["gpt2", "llama3", "gpt-4o", "all-minilm-l6-v2"])
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    parts, ok = [], True
    for model in args.models:
        print(f"{model}: MB/s per round")
        cells = harness.measure(engines(model), args.corpora, rounds=args.rounds, max_round_docs=30)
        ok &= all(c.verified for c in cells)
        parts.append(f"### {model}\n\n" + harness.table(cells, baseline="tokenizers"))
        print(parts[-1] + "\n")
    if not args.no_write:
        path = harness.write_report(
            "pretokenize",
            "Pre-tokenization throughput (single thread)",
            harness.command("pretokenize", argv),
            "\n\n".join(parts),
        )
        print(f"wrote {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
