"""Decode throughput: tagpipe's decode_batch against the oracle's, one thread.

    python -m bench.decode [--models gpt2 llama2 llama3 bert-wiki] [--corpora english ...]
                           [--rounds 5] [--round-docs 60] [--keep-special] [--no-write]

The id sequences are the oracle's encoding (add_special_tokens=True) of ~10 kB documents of
the corpora (bench/harness.py), made untimed before the rounds; each engine warms on one
slice and is timed on fresh slices, one per round, engines interleaved.  What is timed is
one call: ``decode_batch(list of id lists, skip_special_tokens=True)`` -- tagpipe with
num_threads=1, the oracle with TOKENIZERS_PARALLELISM=false (its decode_batch runs on
rayon's pool otherwise) -- the conversion of the id lists and of the output strings
included, as a caller pays it.  MB/s are of the *output* text (UTF-8 bytes).  Every timed
output is verified: each text must equal the oracle's decode of its ids.  --keep-special
decodes with skip_special_tokens=False.
"""

from __future__ import annotations

import os

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # (read by the oracle's decode_batch: one thread)

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import tokenizers  # noqa: E402

import tagpipe  # noqa: E402

from bench import harness  # noqa: E402

MODELS = ["gpt2", "llama2", "llama3", "bert-wiki"]


class Texts:
    """A model's documents as the engines see them: each corpus document's ids (the oracle's
    encoding) and the oracle's decode of them -- the text a decode must give back, whose
    bytes the MB/s count."""

    def __init__(self, oracle: tokenizers.Tokenizer, skip_special: bool):
        self.oracle, self.skip = oracle, skip_special
        self.ids: dict[str, list[int]] = {}

    def documents(self, corpus: str, size: int) -> list[str]:
        docs = harness.documents(corpus, size)
        ids = [e.ids for e in self.oracle.encode_batch(docs, add_special_tokens=True)]
        out = []
        for seq, text in zip(ids, self.oracle.decode_batch(ids, skip_special_tokens=self.skip)):
            if text not in self.ids:  # (two documents decoding alike would be timed as one)
                self.ids[text] = seq
                out.append(text)
        return out


def engines(path: str, texts: Texts) -> list[harness.Engine]:
    ours = tagpipe.Tokenizer.from_file(path)
    if not ours.native_decode:
        sys.exit(f"{path}: tagpipe delegates this decoder ({ours.plan.decoder})")
    oracle = tokenizers.Tokenizer.from_file(path)
    skip = texts.skip

    def timed(call):
        def run(docs):
            seqs = [texts.ids[d] for d in docs]
            t0 = time.perf_counter_ns()
            out = call(seqs)
            return out, time.perf_counter_ns() - t0

        return run

    def verify(docs, out):
        for i, (want, got) in enumerate(zip(docs, out)):
            if got != want:
                j = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
                return f"document {i}: differs at char {j}: {got[j : j + 20]!r} vs {want[j : j + 20]!r}"
        return None if len(out) == len(docs) else f"{len(out)} texts for {len(docs)} documents"

    return [
        harness.Engine("tagpipe", timed(lambda s: ours.decode_batch(s, skip, num_threads=1)), verify),
        harness.Engine("tokenizers", timed(lambda s: oracle.decode_batch(s, skip_special_tokens=skip)), verify),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.decode", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--round-docs", type=int, default=60, help="documents per round, at most (default 60, ~600 kB)")
    ap.add_argument("--keep-special", action="store_true", help="skip_special_tokens=False")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    skip = not args.keep_special
    parts, ok = [], True
    for model in args.models:
        path = harness.tokenizer_path(model)
        texts = Texts(tokenizers.Tokenizer.from_file(path), skip)
        print(f"{model}: MB/s of decoded text per round (skip_special_tokens={skip})")
        cells = harness.measure(
            engines(path, texts),
            args.corpora,
            rounds=args.rounds,
            max_round_docs=args.round_docs,
            documents_of=texts.documents,
        )
        ok &= all(c.verified for c in cells)
        parts.append(f"### {model}\n\n" + harness.table(cells, baseline="tokenizers"))
        print(parts[-1] + "\n")
    if not args.no_write:
        out = harness.write_report(
            "decode",
            "Decode throughput: decode_batch, one thread (MB/s of decoded text)",
            harness.command("decode", argv),
            f"skip_special_tokens={skip}; the oracle with TOKENIZERS_PARALLELISM=false.\n\n" + "\n\n".join(parts),
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
