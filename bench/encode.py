"""Encode throughput: tagpipe against the oracle and the fastest exact peers, one thread and
all cores.

    python -m bench.encode [--models gpt2 llama3 gpt-4o] [--corpora english code ...]
                           [--engines tagpipe tokenizers gigatoken fastokens snaptokens splintr
                                      tuetoken toktok nanotoken tiktoken tagpipe-wholespan]
                           [--breakdown] [--out NAME] [--rounds 5] [--repeat 1]
                           [--round-docs 60] [--threads N] [--special auto|true|false]
                           [--no-write]

Writes bench/results/encode.md (or <NAME>.md; and prints it): per model, one row per corpus,
MB/s for every engine with one thread and with N threads (default: every core), the ratio
tagpipe / best peer for both, then the same in millions of tokens/s, the per-round figures
and the cores each engine really used (CPU time / wall time of its timed calls).  An engine
that cannot load or serve a model (toktok serves only o200k, nanotoken only WordPiece, ...)
is left out of that model's table and named, with the reason, under it.  --repeat N runs it
all N times, each time in new worker processes, and pools the rounds: on a shared VM one
run's ratio moves by 10-25% from the next's, and a cell's median over 5 x N fresh rounds
moves less.

MetaspaceRuns: `python -m bench.encode --models llama2 mistral-7b-v0.1 gemma3 --engines
tagpipe tagpipe-wholespan tokenizers gigatoken fastokens --threads 1 --breakdown --out
metaspace` adds tagpipe with MetaspaceRuns off -- the same BPE and cache, only the splitter
swapped -- and a "tagpipe / whole-span" column.  --breakdown adds tagpipe's
Tokenizer.profile (ns/byte of normalize, split and model) per corpus, on fresh text.

Method (bench/harness.py): ~10 kB documents; every engine warms on one slice and is timed on
fresh slices, one per round, engines interleaved (order rotating); only the engine's own
call is timed -- never turning its output into Python lists or arrays.  How each engine is
called: bench/drivers.py.  Every engine runs in a worker process of its own per thread count
(bench/worker.py), with the thread settings the peers read once per process, so no engine
shares memory, threads or a crash with another; each worker counts its threads and the CPU
time of every timed call (a one-thread cell whose CPU/wall exceeds 1.3 is flagged).  Because these machines are shared,
the report also says how many cores other processes kept busy during each model's run, and
which classify kernel tagpipe ran (`tagpipe.kernels().active`).

Special tokens.  Users run add_special_tokens=True, so that is what is timed wherever it is
the same work for every engine (drivers.choose_special): gigatoken, tuetoken, toktok and
tiktoken never add a post-processor's BOS/EOS, splintr always does; a model whose
post-processor adds tokens (e.g. llama2's BOS) is timed with False on every engine if any
selected engine cannot add them.  The choice is printed under each model's table.

Verification (untimed): every engine's ids for every timed document are compared with the
ids of tokenizers 0.23.3 run in this (parent) process with the same add_special_tokens; a
mismatch marks the cell ✗ and is logged with the first differing position.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from bench import harness
from bench.drivers import ENGINES, cannot_run, choose_special, version
from bench.worker import Worker

DEFAULT_ENGINES = [e for e in ENGINES if e != "tagpipe-wholespan"]
CPU_FLAG = 1.3  # a one-thread call whose CPU time exceeds this many times its wall time


def label(kind: str, threads: int) -> str:
    return f"{kind} {threads}t"


class Run:
    """What one model's run collects besides the harness's cells: per (engine, corpus) one
    (tokens, bytes, cpu/wall) row per timed round, why engines were not timed, and what the
    workers reported."""

    def __init__(self):
        self.corpus = ""
        self.rows: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
        self.status: dict[str, str] = {}
        self.threads: dict[str, tuple[int, int]] = {}  # engine -> its worker's threads (before loading, most seen)
        self.versions: dict[str, str] = {}  # engine -> the version (and kernel) its worker reported


def special_for(path: str, kinds, setting: str = "auto") -> tuple[harness.Reference, bool, bool, str]:
    """(the oracle's ids, add_special_tokens, whether the post-processor adds tokens, why)
    for a run in which every engine in `kinds` takes the same add_special_tokens."""
    adds = harness.Reference(path, True).adds()
    add, note = choose_special(kinds, adds, setting)
    return harness.Reference(path, add), add, adds, note


def _engine(name: str, threads: int, worker: Worker, ref: harness.Reference, run: Run) -> harness.Engine:
    """A harness.Engine whose calls go to `worker`, every output checked against `ref`."""

    def call(docs):
        reply = worker.call("run", name, docs)
        if reply[0] != "ok":
            run.status.setdefault(name, "error: " + reply[1])
            return (None, None, 0.0), 10**18  # ~0 MB/s in the log; the table says "error"
        _, ids, offsets, ns, cpu, before, after = reply
        run.threads[name] = (before, max(after, run.threads.get(name, (0, 0))[1]))
        return (ids, offsets, cpu / max(ns, 1)), max(ns, 1)

    def verify(docs, out):
        ids, offsets, cpu = out
        if ids is None:
            return run.status.get(name, "error")
        expected = ref.ids(docs)
        nbytes = sum(len(d.encode("utf-8")) for d in docs)
        run.rows.setdefault((name, run.corpus), []).append((sum(len(e) for e in expected), nbytes, cpu))
        return ref.check(docs, ids, offsets)

    return harness.Engine(name, call, verify)


def model_engines(
    path: str,
    kinds: list[str],
    thread_counts: list[int],
    workers: dict,
    ref: harness.Reference,
    special: bool,
    adds: bool,
    run: Run,
) -> list[harness.Engine]:
    """harness.Engines for every (kind, thread count) that loads, each in a worker process of
    its own (added to `workers`: the caller closes them, `close`); the others go to
    run.status.  The workers load at the same time."""
    todo = []
    for threads in thread_counts:
        for kind in kinds:
            name = label(kind, threads)
            why = cannot_run(kind, special, adds)
            if why:
                run.status[name] = why
                print(f"  {name}: {why}")
                continue
            workers[name] = Worker(threads)
            workers[name].send("load", name, kind, path, special, threads)
            todo.append((name, kind, threads))
    engines = []
    for name, kind, threads in todo:
        reply = workers[name].receive()
        if reply[0] != "ok":
            run.status[name] = reply[1]
            print(f"  {name}: {reply[1]}")
            workers.pop(name).close()
            continue
        run.versions[kind] = reply[1]
        engines.append(_engine(name, threads, workers[name], ref, run))
    return engines


def close(workers: dict) -> None:
    for w in workers.values():
        w.close()
    workers.clear()


def short(status: str) -> str:
    """A table cell for an engine that was not timed: "cannot load", "n/a", "missing", ..."""
    return status.split(":")[0].split(" (")[0]


def fmt(x: float, digits: int = 1) -> str:
    if x != x:  # nan
        return "—"
    return f"{x:.{digits}f}" if x < 1000 else f"{x:,.0f}"


class Table:
    """One model's cells, read as medians, ratios and table text."""

    def __init__(self, cells, run: Run, kinds):
        self.at = {(c.engine, c.corpus): c for c in cells}
        self.run, self.kinds = run, kinds

    def per_round(self, name, corpus, tokens):
        c = self.at[(name, corpus)]
        if not tokens:
            return c.rounds
        rows = self.run.rows.get((name, corpus), [])
        return [mbps * t / b for mbps, (t, b, _) in zip(c.rounds, rows)]  # MB/s * tokens/byte

    def value(self, name, corpus, tokens=False):
        """(median, or nan when there is none or it is not verified; the cell's text)."""
        c = self.at.get((name, corpus))
        if name in self.run.status:
            return float("nan"), ("error" if c is not None else short(self.run.status[name]))
        if c is None:
            return float("nan"), "—"
        v = statistics.median(self.per_round(name, corpus, tokens) or [float("nan")])
        return (v if c.verified else float("nan")), fmt(v, 2 if tokens else 1) + ("" if c.verified else " ✗")

    def ratio(self, corpus, threads, tokens):
        ours = self.value(label("tagpipe", threads), corpus, tokens)[0]
        peers = [
            (self.value(label(k, threads), corpus, tokens)[0], k) for k in self.kinds if not k.startswith("tagpipe")
        ]
        peers = [(v, k) for v, k in peers if v == v]
        if ours != ours or not peers:
            return "—"
        best, who = max(peers)
        return f"{ours / best:.2f}× ({who})"

    def over_whole(self, corpus, threads, tokens):
        ours = self.value(label("tagpipe", threads), corpus, tokens)[0]
        whole = self.value(label("tagpipe-wholespan", threads), corpus, tokens)[0]
        return "—" if ours != ours or whole != whole else f"{ours / whole:.2f}×"

    def markdown(self, corpora, thread_counts, tokens: bool) -> str:
        kinds = self.kinds
        head = ["corpus"] + [f"{k} {t}t" for t in thread_counts for k in kinds]
        if "tagpipe" in kinds:
            head += [f"tagpipe / best peer {t}t" for t in thread_counts]
        if "tagpipe" in kinds and "tagpipe-wholespan" in kinds:
            head += [f"tagpipe / whole-span {t}t" for t in thread_counts]
        lines = ["M tokens/s:" if tokens else "MB/s:", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for corpus in corpora:
            row = [corpus] + [self.value(label(k, t), corpus, tokens)[1] for t in thread_counts for k in kinds]
            if "tagpipe" in kinds:
                row += [self.ratio(corpus, t, tokens) for t in thread_counts]
            if "tagpipe" in kinds and "tagpipe-wholespan" in kinds:
                row += [self.over_whole(corpus, t, tokens) for t in thread_counts]
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines)


def _notes(run: Run, special: bool, note: str, busy: str) -> str:
    notes = [f"add_special_tokens={special}: {note}.", busy[0].upper() + busy[1:] + "."]
    ran = [v for k, v in run.versions.items() if k.startswith("tagpipe")]
    if ran:
        notes.append(f"tagpipe in the workers: {ran[0]}.")
    if run.threads:
        # (a pool of one thread is how the rayon engines run one thread: more is a warning)
        grew = [n for n, (before, most) in run.threads.items() if n.endswith(" 1t") and most > before + 1]
        notes.append(
            "Threads of each worker process, before loading its engine -> at most after its runs: "
            + ", ".join(f"{n} {b} -> {m}" for n, (b, m) in run.threads.items())
            + (f" ⚠ {', '.join(grew)} started more than one thread" if grew else "")
            + "."
        )
    if run.status:
        notes.append("Not timed: " + "; ".join(f"{n}: {s}" for n, s in run.status.items()) + ".")
    return "\n".join(f"- {n}" for n in notes)


def _rounds(table: Table, corpora, kinds, thread_counts) -> str:
    lines = [
        "Per-round MB/s in round order (with --repeat, one run's rounds after the other's); "
        "cores = median CPU time / wall time of the timed calls "
        f"(⚠ when a one-thread engine exceeds {CPU_FLAG}):",
        "",
    ]
    for corpus in corpora:
        for t in thread_counts:
            for k in kinds:
                name = label(k, t)
                c = table.at.get((name, corpus))
                if c is None:
                    continue
                rows = table.run.rows.get((name, corpus), [])
                cpu = statistics.median(r[2] for r in rows) if rows else float("nan")
                flag = " ⚠" if t == 1 and cpu > CPU_FLAG else ""
                lines.append(
                    f"- {corpus} / {name}: "
                    + ", ".join(fmt(x) for x in c.rounds)
                    + f"; cores {cpu:.2f}{flag}"
                    + ("" if c.verified else "; NOT VERIFIED")
                )
    return "\n".join(lines)


def report(model: str, corpora, kinds, thread_counts, cells, run: Run, special: bool, note: str, busy: str) -> str:
    """One model's section: MB/s and M tokens/s tables (engines that ran for no thread count
    left out), the notes, the per-round figures."""
    timed = [
        k
        for k in kinds
        if any(label(k, t) not in run.status or any(c.engine == label(k, t) for c in cells) for t in thread_counts)
    ]
    table = Table(cells, run, timed)
    parts = [table.markdown(corpora, thread_counts, tokens) for tokens in (False, True)]
    parts += [_notes(run, special, note, busy), _rounds(table, corpora, timed, thread_counts)]
    return f"### {model}\n\n" + "\n\n".join(parts)


def versions(kinds) -> str:
    """Installed versions, from the package metadata."""
    return ", ".join(dict.fromkeys(version(k) for k in kinds))


def breakdown(model: str, path: str, corpora, special: bool) -> str:
    """Where tagpipe's time goes, one thread, on fresh text: Tokenizer.profile's ns/byte per
    stage after warming on the first slice, for tagpipe and (when the model has it) with
    MetaspaceRuns off.  Run in this process, after the timed rounds."""
    import tagpipe

    first = tagpipe.Tokenizer.from_file(path)
    if not first.native:  # (delegated: reported in the table, nothing native to profile)
        return "Stage breakdown: none, tagpipe delegates this tokenizer."
    variants = [("tagpipe", {})]
    if first.metaspace_runs:
        variants.append(("tagpipe-wholespan", {"metaspace_runs": False}))
    cols = ("normalize", "split", "model", "total", "miss rate", "ns/miss")
    lines = [
        "Stage breakdown, ns/byte, one thread (normalize / split = added tokens + pre-tokenizer "
        "/ model = cache + model (BPE, WordPiece, ...); the share of pieces that went to the model "
        "(missed the word cache and its seed) and the time one miss took), warmed on one slice and "
        "profiled on the next:",
        "",
        "| corpus | " + " | ".join(f"{name} {st}" for name, _ in variants for st in cols) + " |",
        "|" + "---|" * (1 + len(cols) * len(variants)),
    ]
    for corpus in corpora:
        docs = harness.documents(corpus)
        row = [corpus]
        for _, options in variants:
            tok = tagpipe.Tokenizer.from_file(path, **options)
            tok.encode_batch_flat(docs[:10], add_special_tokens=special, num_threads=1)
            ns = tok.profile(docs[10:70], add_special_tokens=special)
            stages = [ns[k] for k in ("normalize", "split", "model")]
            row += [f"{v:.2f}" for v in stages] + [
                f"{sum(stages):.2f}",
                f"{ns['miss_rate']:.1%}",
                f"{ns['ns_per_miss']:.0f}",
            ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def header(kinds, rounds: int, threads: int, load: str, repeat: int = 1) -> str:
    """The line above the model sections: engine versions, tagpipe's kernel, rounds, threads,
    load."""
    runs = (
        (f" in each of {repeat} runs (new worker processes each; a cell is the median of all {rounds * repeat})")
        if repeat > 1
        else ""
    )
    return (
        f"Engines: {versions(kinds)}; tagpipe kernel {harness.kernel()}; {rounds} rounds{runs}; "
        f"{threads} threads for the all-cores columns.  Load average when the run started: {load} on "
        f"{os.cpu_count()} cores."
    )


def _measure(path, kinds, thread_counts, corpora, rounds, round_docs, ref, add, adds, run, merged) -> float:
    """One run of one model in new worker processes; its cells pooled into `merged`.
    Returns how many cores other processes kept busy meanwhile."""
    workers: dict = {}
    try:
        engines = model_engines(path, kinds, thread_counts, workers, ref, add, adds, run)
        background = harness.Background([os.getpid()] + [w.proc.pid for w in workers.values()])
        for corpus in corpora if engines else []:
            run.corpus = corpus
            for c in harness.measure(engines, [corpus], rounds=rounds, max_round_docs=round_docs):
                m = merged.setdefault((c.engine, c.corpus), harness.Cell(c.engine, c.corpus))
                m.rounds += c.rounds
                m.verified &= c.verified
        return background.cores()
    finally:
        close(workers)


def run_models(
    models,
    corpora,
    kinds,
    thread_counts,
    rounds: int,
    round_docs: int,
    special: str = "auto",
    with_breakdown: bool = False,
    repeat: int = 1,
):
    """Measure every model (two worker processes each), printing as it goes; `repeat` times,
    each with new worker processes (the engines loaded and warmed again, so every round is
    still fresh text to the engine that runs it), every cell's rounds pooled.  Returns (the
    models' markdown sections, {model: harness cells}, whether every id verified and no engine
    failed)."""
    parts, results, ok = [], {}, True
    for model in models:
        path = harness.tokenizer_path(model)
        ref, add, adds, note = special_for(path, kinds, special)
        print(f"{model}: MB/s per round (add_special_tokens={add}; one worker process per engine and thread count)")
        run, merged, busy = Run(), {}, 0.0
        for rep in range(repeat):
            if repeat > 1:
                print(f"  run {rep + 1} of {repeat}: new worker processes, every engine loaded and warmed again")
            busy = max(
                busy, _measure(path, kinds, thread_counts, corpora, rounds, round_docs, ref, add, adds, run, merged)
            )
        cells = list(merged.values())
        note_busy = f"other processes kept {busy:.2f} of {os.cpu_count()} cores busy during this model's run" + (
            " -- the N-thread columns are not trustworthy" if busy > 0.25 else ""
        )
        print(f"  {note_busy}")
        ok &= all(c.verified for c in cells) and not any(s.startswith("error") for s in run.status.values())
        parts.append(report(model, corpora, kinds, thread_counts, cells, run, add, note, note_busy))
        if with_breakdown:
            parts[-1] += "\n\n" + breakdown(model, path, corpora, add)
        print(parts[-1] + "\n")
        results[model] = cells
    return "\n\n".join(parts), results, ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.encode", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="*", default=["gpt2", "llama3", "gpt-4o"])
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument(
        "--engines",
        nargs="*",
        default=DEFAULT_ENGINES,
        choices=ENGINES,
        help="tagpipe-wholespan: tagpipe with MetaspaceRuns off (not by default)",
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run everything this many times, each with new worker processes, and pool "
        "the rounds (a cell's median is then over rounds x repeat fresh rounds)",
    )
    ap.add_argument("--round-docs", type=int, default=60, help="documents per round, at most (default 60, ~600 kB)")
    ap.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="threads for the all-cores columns (default: every core)",
    )
    ap.add_argument(
        "--special",
        choices=["auto", "true", "false"],
        default="auto",
        help="add_special_tokens (auto: True unless that is not the same work for every engine; see above)",
    )
    ap.add_argument(
        "--breakdown", action="store_true", help="add tagpipe's per-stage ns/byte (Tokenizer.profile) under each model"
    )
    ap.add_argument("--out", default="encode", help="the report's name: bench/results/<out>.md")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    kinds = [k for k in ENGINES if k in args.engines]
    thread_counts = [1] if args.threads <= 1 else [1, args.threads]
    load = harness.load_average()
    print(f"load average before the run: {load} on {os.cpu_count()} cores")
    top = header(kinds, args.rounds, args.threads, load, args.repeat)
    print(top)
    sections, _, ok = run_models(
        args.models,
        args.corpora,
        kinds,
        thread_counts,
        args.rounds,
        args.round_docs,
        args.special,
        args.breakdown,
        args.repeat,
    )
    if not args.no_write:
        out = harness.write_report(
            args.out,
            "Encode throughput: one thread and all cores",
            harness.command("encode", argv),
            top + "\n\n" + sections,
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
