"""tagpipe.accelerate: a transformers tokenizer's call, accelerated against the same tokenizer
unaccelerated.

    python -m bench.accelerate [--models all-minilm-l6-v2 roberta-base ...] [--corpora english ...]
                               [--pairs] [--call padded|offsets|overflow] [--max-length 512]
                               [--stride 128] [--doc-size 1000] [--rounds 5] [--round-docs 200]
                               [--no-write]

What is timed is the call users make: ``tok(docs, padding=True, truncation=True,
max_length=512, return_tensors="np")`` -- with ``--pairs``, ``tok(docs[0::2], docs[1::2],
...)``; ``--call offsets`` adds ``return_offsets_mapping=True``; ``--call overflow`` is the
question-answering call, ``truncation="only_second"`` (pairs, whose first texts are then cut to
their first 200 characters, a question's length; else True), ``stride``,
``return_overflowing_tokens=True``, ``return_offsets_mapping=True``, ``padding="max_length"``
-- on a transformers tokenizer built from shared/tokenizers/<model> (AutoTokenizer
where the folder has a tokenizer_config.json: all-minilm-l6-v2 is a BertTokenizer, which returns
token_type_ids), each engine with its own default threads (the backend's rayon pool, tagpipe's
every core).  Documents of ``--doc-size`` bytes of the corpora (bench/harness.py): warm on one
slice, timed on fresh slices, engines interleaved.  Every timed output is verified: the
accelerated call took the tagpipe path and its BatchEncoding equals the unaccelerated one (every
key, dtype and value).  MB/s are of the input text.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench import harness

os.environ.setdefault("HF_HUB_OFFLINE", "1")

MODELS = ["all-minilm-l6-v2"]
PAD = {"gpt2": "<|endoftext|>", "llama2": "</s>", "llama3": "<|end_of_text|>"}


def load(model: str):
    """The model's transformers tokenizer (a pad token set where its files have none)."""
    import transformers

    folder = Path(harness.tokenizer_path(model)).parent
    if (folder / "tokenizer_config.json").exists():
        tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    else:
        tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    if tok.pad_token is None:  # (else a pad token of the vocabulary: <pad>, [PAD])
        vocab = tok.get_vocab()
        tok.pad_token = PAD.get(model) or next((t for t in ("<pad>", "[PAD]") if t in vocab), tok.eos_token)
    return tok


def same(x, y) -> bool:
    return set(x) == set(y) and all(
        type(x[k]) is type(y[k]) and x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k]) for k in x
    )


def call_options(call: str, pairs: bool, max_length: int, stride: int) -> dict:
    """The keyword arguments of the timed call."""
    kw = {"padding": True, "truncation": True, "max_length": max_length, "return_tensors": "np"}
    if call == "offsets":
        kw["return_offsets_mapping"] = True
    elif call == "overflow":
        kw.update(
            padding="max_length",
            truncation="only_second" if pairs else True,
            stride=stride,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
        )
    return kw


def engines(model: str, pairs: bool, kw: dict) -> list[harness.Engine]:
    import tagpipe

    original, fast = load(model), tagpipe.accelerate(load(model))

    def args(docs):
        if not pairs:
            return (docs,)
        docs = docs[: len(docs) // 2 * 2]  # (as many firsts as seconds)
        first = docs[0::2]
        if kw.get("truncation") == "only_second":  # (questions, then contexts)
            first = [d[:200] for d in first]
        return first, docs[1::2]

    def timed(tok):
        def run(docs):
            a = args(docs)
            t0 = time.perf_counter_ns()
            out = tok(*a, **kw)
            return (out, getattr(tok, "tagpipe_last_path", None)), time.perf_counter_ns() - t0

        return run

    def verify(docs, result):
        out, path = result
        if path not in (None, "tagpipe"):  # (None: the unaccelerated tokenizer)
            return f"the accelerated call took the path {path!r}"
        return None if same(original(*args(docs), **kw), out) else "the BatchEncoding differs from the original's"

    return [
        harness.Engine("tagpipe.accelerate", timed(fast), verify),
        harness.Engine("transformers", timed(original), verify),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.accelerate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--pairs", action="store_true", help="sequence pairs: tok(docs[0::2], docs[1::2], ...)")
    ap.add_argument("--call", choices=["padded", "offsets", "overflow"], default="padded")
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument("--stride", type=int, default=128, help="--call overflow: the stride (default 128)")
    ap.add_argument("--doc-size", type=int, default=1000, help="bytes per document (default 1000)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--round-docs", type=int, default=200, help="documents per round, at most (default 200)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    kw = call_options(args.call, args.pairs, args.max_length, args.stride)
    shown = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    first = "[d[:200] for d in docs[0::2]]" if kw.get("truncation") == "only_second" else "docs[0::2]"
    call = f"tok({f'{first}, docs[1::2]' if args.pairs else 'docs'}, {shown})"
    parts, ok = [], True
    for model in args.models:
        print(f"{model}: MB/s of input text per round, {call}")
        cells = harness.measure(
            engines(model, args.pairs, kw),
            args.corpora,
            rounds=args.rounds,
            doc_size=args.doc_size,
            max_round_docs=args.round_docs,
        )
        ok &= all(c.verified for c in cells)
        parts.append(f"### {model}\n\n" + harness.table(cells, baseline="transformers"))
        print(parts[-1] + "\n")
    if not args.no_write:
        name = "accelerate" + ("-pairs" if args.pairs else "") + ("" if args.call == "padded" else f"-{args.call}")
        out = harness.write_report(
            name,
            "tagpipe.accelerate against the unaccelerated transformers tokenizer (MB/s of input text)",
            harness.command("accelerate", argv),
            f"`{call}`, {args.doc_size}-byte documents; each engine with its default threads; "
            f"load average {harness.load_average()} at the end.\n\n" + "\n\n".join(parts),
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
