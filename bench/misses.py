"""What a new word costs: each engine on text in which every word appears once, one thread.

    python -m bench.misses [--models gpt2 llama3 gpt-4o llama2] [--corpora english ...]
                           [--engines tagpipe gigatoken fastokens ...] [--rounds 5] [--repeat 1]
                           [--out misses] [--no-write]

On fresh text most of the time of every engine goes to the words its cache has not seen
(bench.ceiling: "seen" is 1.1-6x "fresh").  This isolates that path: each corpus's
distinct words (runs of letters), each written once with a space before it, in shuffled
order, cut into ~10 kB documents -- so nearly every piece an engine's pre-tokenizer makes
is new to its word cache, and what is timed is the cache miss, the BPE and the insert.
(Not quite every piece: a Chinese "word" is a run of letters between punctuation, a
clause, and the parts an engine cuts it into may recur; a word that is a vocabulary
string is a lookup for every engine.)  The engines warm on the corpus's first ten ordinary
documents, whose words are left out of the new-word text.

Method: the workers, drivers, options and verification of bench/encode.py (one-thread
worker process, peers' opt-in caches unset, every id of every round checked against
tokenizers 0.23.3); each round a fresh slice, engines in rotating order; --repeat N runs it
all N times in new worker processes and pools the rounds.  The table gives MB/s and
nanoseconds per word (the slice's words over the engine's time), median of the rounds, for
tagpipe and each exact peer selected (bench/drivers.py; default: all of them).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys

from bench import encode, harness
from bench.drivers import PEERS

KINDS = ["tagpipe"] + PEERS
WARM_DOCS = 10
WORD = re.compile(r"[^\W\d_]+")  # a run of letters (marks included: \w minus digits and _)


def new_word_documents(corpus: str, size: int = 10_000) -> tuple[list[str], list[str], float]:
    """(the corpus's first WARM_DOCS documents, documents of its other distinct words -- each
    once, " word", shuffled with a fixed seed -- and their mean words per byte)."""
    docs = harness.documents(corpus, size)
    warm = docs[:WARM_DOCS]
    known = {w for d in warm for w in WORD.findall(d)}
    words = list(dict.fromkeys(w for d in docs[WARM_DOCS:] for w in WORD.findall(d) if w not in known))
    random.Random(0).shuffle(words)
    out, cur, n = [], [], 0
    for w in words:
        cur.append(" " + w)
        n += len(w.encode("utf-8")) + 1
        if n >= size:
            out.append("".join(cur))
            cur, n = [], 0
    used = sum(len(d.split(" ")) - 1 for d in out)
    return warm, out, used / max(1, sum(len(d.encode("utf-8")) for d in out))


def section(model: str, rows: dict, per_byte: dict, status: dict, note: str, kinds) -> str:
    med = {k: statistics.median(v) for k, v in rows.items() if v}
    peers = [k for k in kinds if k in PEERS]
    head = ["corpus", "words/kB"] + list(kinds) + ["tagpipe / best peer"]
    lines = [
        f"### {model}",
        "",
        "One thread, median of the rounds: MB/s, and ns per new word in brackets.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for corpus in dict.fromkeys(c for c, _ in rows):

        def cell(kind):
            v = med.get((corpus, kind + " 1t"))
            return "n/a" if v is None else f"{v:.1f} ({1e3 / (v * per_byte[corpus]):.0f})"

        ours = med.get((corpus, "tagpipe 1t"))
        timed = [(med[(corpus, p + " 1t")], p) for p in peers if (corpus, p + " 1t") in med]
        ratio = f"{ours / max(timed)[0]:.2f}× ({max(timed)[1]})" if ours and timed else "n/a"
        lines.append(
            f"| {corpus} | {per_byte[corpus] * 1e3:.0f} | " + " | ".join(cell(k) for k in kinds) + f" | {ratio} |"
        )
    lines += ["", f"- add_special_tokens: {note}."]
    lines += [f"- {name}: {why}" for name, why in status.items()]
    lines += ["", "Per-round MB/s in round order:", ""]
    for (corpus, engine), v in rows.items():
        lines.append(f"- {corpus} / {engine}: " + ", ".join(f"{x:.1f}" for x in v))
    return "\n".join(lines)


def _model(model: str, args, texts) -> tuple[str, bool]:
    """One model's section (every run pooled) and whether every id verified."""
    path = harness.tokenizer_path(model)
    ref, add, adds, note = encode.special_for(path, args.engines)
    rows, run, ok = {}, encode.Run(), True
    for rep in range(args.repeat):
        workers: dict = {}
        try:
            engines = encode.model_engines(path, args.engines, [1], workers, ref, add, adds, run)
            for corpus in args.corpora if engines else []:
                run.corpus = corpus
                warm, docs, _ = texts[corpus]
                cells = harness.measure(
                    engines,
                    [corpus],
                    rounds=args.rounds,
                    warm_docs=len(warm),
                    documents_of=lambda _c, _s, d=warm + docs: d,
                )
                for c in cells:
                    rows.setdefault((corpus, c.engine), []).extend(c.rounds)
                    ok &= c.verified
        finally:
            encode.close(workers)
    ok &= not any(s.startswith("error") for s in run.status.values())
    return section(model, rows, {c: texts[c][2] for c in args.corpora}, run.status, note, args.engines), ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.misses", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=["gpt2", "llama3", "gpt-4o", "llama2"])
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--engines", nargs="*", default=KINDS, choices=KINDS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", default="misses")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.rounds < 1:
        ap.error("--rounds and --repeat must be at least 1")

    load = harness.load_average()
    texts = {c: new_word_documents(c) for c in args.corpora}
    parts, ok = [], True
    for model in args.models:
        part, good = _model(model, args, texts)
        parts.append(part)
        ok &= good
        print(parts[-1] + "\n")
    sizes = ", ".join(f"{c} {sum(len(d.encode()) for d in texts[c][1]) / 1e3:.0f} kB" for c in args.corpora)
    body = (
        f"Engines: {encode.versions(args.engines)}; tagpipe kernel {harness.kernel()}; {args.rounds} rounds "
        f"per run, {args.repeat} run(s) in new worker processes, rounds pooled; one thread.  New-word text: "
        f"{sizes}.  Load average when the run started: {load} on {os.cpu_count()} cores.\n\n" + "\n\n".join(parts)
    )
    if not args.no_write:
        out = harness.write_report(
            args.out, "New words: the cache-miss path, each word once", harness.command("misses", argv), body
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
