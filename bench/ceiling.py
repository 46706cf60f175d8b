"""How far a faster BPE could take tagpipe: each engine on fresh text and on the same text
again, one thread, side by side.

    python -m bench.ceiling [--models gpt2 llama3 gpt-4o llama2 mistral-7b-v0.1 gemma3]
                            [--corpora english code ...] [--engines tagpipe gigatoken ...]
                            [--rounds 5] [--round-docs 60] [--out ceiling] [--no-write]

Issue 4 and 5's targets are ratios to the better peer on fresh text.  On fresh text a
share of tagpipe's words are new to its word cache and go through BPE; on text it has just
encoded, every word is a cache hit and no BPE runs at all.  So tagpipe's "seen" speed is
an upper bound for anything that only makes BPE (the cache's misses) cheaper -- a BPE
that cost nothing would reach it, and no more.  Where "tagpipe seen / best peer fresh"
is below a target, the target needs the rest -- the split and the cache's hit path -- to
get faster too.  The peers' own "seen" figures are there for comparison: they cache
words as well.

Method: the workers, drivers, options and verification of bench/encode.py (one-thread
worker process, peers' opt-in caches unset, every id checked against tokenizers 0.23.3);
the peers are the exact ones of bench/drivers.py (those that cannot serve a model say why).
Each engine warms on the first 10 documents, then every round takes a fresh slice of
documents: the engines in rotating order each encode it once (timed: "fresh") and at once
again (timed: "seen").  The "seen" call measures memoisation on purpose -- it is the
ceiling, not a throughput claim.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from bench import encode, harness
from bench.drivers import PEERS

KINDS = ["tagpipe"] + PEERS


def measure(engines, docs, rounds: int, round_docs: int, warm_docs: int = 10):
    """{(engine, "fresh" | "seen"): [MB/s per round]}, and the failed verifications."""
    per_round = min(round_docs, (len(docs) - warm_docs) // rounds)
    for e in engines:
        e.run(docs[:warm_docs])
    speeds, failures = {}, []
    for r in range(rounds):
        slice_ = docs[warm_docs + r * per_round : warm_docs + (r + 1) * per_round]
        nbytes = sum(len(d.encode("utf-8")) for d in slice_)
        for e in engines[r % len(engines) :] + engines[: r % len(engines)]:
            for mode in ("fresh", "seen"):
                out, ns = e.run(slice_)
                problem = e.verify(slice_, out)
                if problem:
                    failures.append(f"{e.name} {mode} round {r}: {problem}")
                speeds.setdefault((e.name, mode), []).append(nbytes / ns * 1e3)
    return speeds, failures


def section(model: str, rows: dict, status: dict, note: str, peers) -> str:
    med = {k: statistics.median(v) for k, v in rows.items() if v}
    head = (
        "| corpus | tagpipe fresh | tagpipe seen | best peer fresh | its seen | "
        "tagpipe fresh / best peer | **tagpipe seen / best peer** | tagpipe seen / fresh |"
    )
    lines = [f"### {model}", "", "MB/s, one thread (median of the rounds):", "", head, "|" + "---|" * 8]
    for corpus in dict.fromkeys(c for c, _, _ in rows):

        def m(engine, mode):
            return med.get((corpus, engine, mode))

        tf, ts = m("tagpipe 1t", "fresh"), m("tagpipe 1t", "seen")
        timed = [(m(p + " 1t", "fresh"), p) for p in peers if m(p + " 1t", "fresh")]
        if tf is None or not timed:
            lines.append(f"| {corpus} | " + " | ".join(["n/a"] * 7) + " |")
            continue
        best, name = max(timed)
        bs = m(name + " 1t", "seen")
        lines.append(
            f"| {corpus} | {tf:.1f} | {ts:.1f} | {best:.1f} ({name}) | {bs:.1f} | "
            f"{tf / best:.2f}× | **{ts / best:.2f}×** | {ts / tf:.2f}× |"
        )
    lines += ["", f"- add_special_tokens: {note}."]
    lines += [f"- {name}: {why}" for name, why in status.items()]
    lines += ["", "Per-round MB/s in round order:", ""]
    for (corpus, engine, mode), v in rows.items():
        lines.append(f"- {corpus} / {engine} {mode}: " + ", ".join(f"{x:.1f}" for x in v))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.ceiling", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=["gpt2", "llama3", "gpt-4o", "llama2", "mistral-7b-v0.1", "gemma3"])
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--engines", nargs="*", default=KINDS, choices=KINDS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--round-docs", type=int, default=60)
    ap.add_argument("--out", default="ceiling")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    load = harness.load_average()
    parts, ok = [], True
    for model in args.models:
        path = harness.tokenizer_path(model)
        ref, add, adds, note = encode.special_for(path, args.engines)
        workers: dict = {}
        run, rows = encode.Run(), {}
        try:
            engines = encode.model_engines(path, args.engines, [1], workers, ref, add, adds, run)
            for corpus in args.corpora if engines else []:
                run.corpus = corpus
                speeds, failures = measure(engines, harness.documents(corpus), args.rounds, args.round_docs)
                for f in failures:
                    print(f"  VERIFY FAILED {model} / {corpus}: {f}")
                ok &= not failures
                for (engine, mode), v in speeds.items():
                    rows[(corpus, engine, mode)] = v
                    print(f"  {model:<16} {corpus:<13} {engine:<14} {mode:<6} " + " ".join(f"{x:7.1f}" for x in v))
        finally:
            encode.close(workers)
        ok &= not any(s.startswith("error") for s in run.status.values())
        parts.append(section(model, rows, run.status, note, [k for k in args.engines if k in PEERS]))
        print(parts[-1] + "\n")
    body = (
        f"Engines: {encode.versions(args.engines)}; tagpipe kernel {harness.kernel()}; {args.rounds} "
        f"rounds of up to {args.round_docs} documents; one thread.  Load average when the run started: {load} on "
        f"{os.cpu_count()} cores.\n\n" + "\n\n".join(parts)
    )
    if not args.no_write:
        out = harness.write_report(
            args.out, "Ceiling: fresh text against text already seen", harness.command("ceiling", argv), body
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
