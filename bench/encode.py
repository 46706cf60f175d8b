"""Encode throughput: tagpipe against the oracle and the fastest peers, one thread and all cores.

    python bench/encode.py [--models gpt2 llama3 gpt-4o] [--corpora english code ...]
                           [--engines tagpipe tokenizers gigatoken fastokens tiktoken
                                      tagpipe-wholespan] [--breakdown] [--out NAME]
                           [--rounds 5] [--repeat 1] [--round-docs 60] [--threads N]
                           [--special auto|true|false] [--no-write]

Writes bench/results/encode.md (or <NAME>.md; and prints it): per model, one row per corpus, MB/s for
every engine with one thread and with N threads (default: every core), the ratio
tagpipe / best peer for both, then the same in millions of tokens/s, the per-round
figures and the cores each engine really used (CPU time / wall time of its timed calls).
--repeat N runs it all N times, each time in new worker processes, and pools the rounds: on
this shared VM one run's ratio moves by 10-25% from the next's, and a cell's median over
5 x N fresh rounds moves less.

MetaspaceRuns (issue 5): `python bench/encode.py --models llama2 mistral-7b-v0.1 gemma3
--engines tagpipe tagpipe-wholespan tokenizers gigatoken fastokens --threads 1 --breakdown
--out metaspace` adds tagpipe with MetaspaceRuns off -- the same BPE and cache, only the
splitter swapped -- and a "tagpipe / whole-span" column.  --breakdown adds tagpipe's
Tokenizer.profile (ns/byte of normalize, split and model) per corpus, on fresh text.

Method (bench/harness.py): ~10 kB documents; every engine warms on one slice and is timed on
fresh slices, one per round, engines interleaved (order rotating); only the engine's own
call is timed -- never turning its output into Python lists or arrays.

Processes.  Peers fix their thread count per process (fastokens reads FASTOKENS_BPE_THREADS
once and by default splits even a single 10 kB document across all cores; rayon pools read
RAYON_NUM_THREADS once), so the engines run in two worker processes per model, started
for the purpose: a one-thread process (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false,
FASTOKENS_BPE_THREADS=1) and an N-thread one (RAYON_NUM_THREADS=N, FASTOKENS_BPE_THREADS=N),
both with the peers' opt-in caches (FASTOKENS_INPUT_CACHE / _SEGMENT_CACHE) unset and
TAGPIPE_DELEGATION=error (a tagpipe that would hand work to the oracle is reported, not
timed).  Two checks that one thread is one thread: the worker measures the process's CPU
time over each timed call (a one-thread cell whose CPU/wall exceeds 1.3 is flagged), and
counts its own threads before loading the engines and after every run (a one-thread
worker that gains threads is reported).  Before loading anything, each worker writes and
frees 256 MiB (pretouch): on these VMs the first touch of a page costs far more than a
recycled one, and it fell on whichever engine's tables grew first.  Documents go to the workers and ids come back
through pipes, untimed.  Because these machines are shared, the report also says how many
cores other processes kept busy during each model's run (from /proc).

How each engine is driven (ids come back without Python lists everywhere):
  tagpipe     Tokenizer.from_file; encode_batch_flat(docs, add_special_tokens,
              num_threads=1 | N) -> (uint32 ids, int64 offsets).
  tokenizers  Tokenizer.from_file; encode_batch_fast(docs, add_special_tokens) (the oracle's
              fastest batch call: no offsets) -> Encodings whose .ids are read untimed; one
              thread = the same call in the one-thread process (TOKENIZERS_PARALLELISM=false:
              serial on the calling thread).
  gigatoken   Tokenizer(path).backend; one thread: encode(doc) per document -> numpy uint32;
              N threads: encode_batch_padded(docs, PadTruncate(0), parallel=True) -> (uint32
              matrix, lengths).  Both are its fastest list-free forms: encode_batch (an awkward
              Array) spends ~0.25 ms a call in ak.unflatten and measured 25-30% slower on
              40-document batches.  Its only thread knobs are parallel= and RAYON_NUM_THREADS,
              and parallel=True cuts a batch into chunks of at least 1 MiB: it stayed on one
              core for the default ~600 kB rounds and for 1.5 MB ones (--round-docs 150), and
              used ~1.7 of 2 cores only on a 3.6 MB batch.  So its N-thread column is its
              one-thread speed here -- a property of gigatoken, not of the harness.
  fastokens   Tokenizer.from_file; encode_batch_flat(docs, add_special_tokens) -> (uint32
              bytes, uint64 offsets bytes); threads from FASTOKENS_BPE_THREADS.
  tiktoken    (optional) an Encoding built from the tokenizer.json's own byte-level
              vocabulary (ranks = ids, bytes from the GPT-2 byte alphabet) and the model's
              split regex, added tokens as its special tokens; encode_to_numpy per document,
              over a thread pool of N for N threads (as its own encode_batch does).  Only
              for byte-level BPE models without normalizer; otherwise "n/a".

Special tokens.  Users run add_special_tokens=True, so that is what is timed wherever it is
the same work for every engine.  gigatoken and tiktoken have no such switch (they never add
a post-processor's BOS/EOS): with --special auto (default), a model whose post-processor
adds nothing (gpt2, llama3 and gpt-4o here: their add_special_tokens=True ids equal the
False ones) is timed with True; a model whose post-processor adds tokens (e.g. llama2's
BOS) is timed with False on *every* engine if any selected engine cannot add them.  The
choice is printed under each model's table.

Verification (untimed): every engine's ids for every timed document are compared with the
ids of tokenizers 0.23.3 run in this (parent) process with the same add_special_tokens; a
mismatch marks the cell ✗ and is logged with the first differing position.
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import time
from pathlib import Path

# numpy's OpenBLAS starts a thread per core, which busy-waits for a while after work it is
# given: on these 2-core machines that slowed a one-thread tagpipe run that followed it to
# half speed (llama2 multilingual, Tokenizer.profile: 59 ns/B of model time, 27 without it).
# No engine uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
# The peers' drivers, Skip and Clock are the user-facing benchmark's (`tagpipe bench`):
# one place says how each engine is called fastest.
from tagpipe import benchmark  # noqa: E402
from tagpipe.benchmark import (Clock, FastokensEngine, GigatokenEngine, Skip, TiktokenEngine,  # noqa: E402
                               TokenizersEngine)

ENGINES = ["tagpipe", "tagpipe-wholespan", "tokenizers", "gigatoken", "fastokens", "tiktoken"]
# engines that can add a post-processor's special tokens (BOS/EOS) on request
ADDS_SPECIAL_TOKENS = {"tagpipe": True, "tagpipe-wholespan": True, "tokenizers": True, "fastokens": True,
                       "gigatoken": False, "tiktoken": False}
CPU_FLAG = 1.3  # a one-thread call whose CPU time exceeds this many times its wall time


class TagpipeEngine(benchmark.TagpipeEngine):
    """The user-facing bench's engine, loaded with delegation switched off (a tokenizer that
    would be delegated is reported, not timed) and with OPTIONS."""
    OPTIONS: dict = {}

    def __init__(self, path: str, special: bool, threads: int):
        try:
            import tagpipe
        except ImportError as e:
            raise Skip(f"missing: tagpipe does not import ({e})") from None
        if not hasattr(tagpipe, "Tokenizer"):
            raise Skip("missing: tagpipe.Tokenizer does not exist yet")
        import contextlib

        try:
            with getattr(tagpipe, "delegation_disabled", contextlib.nullcontext)():
                self.tok = tagpipe.Tokenizer.from_file(path, **self.OPTIONS)
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "DelegationError":
                raise Skip(f"delegates: to the oracle ({e})") from None
            raise Skip(f"cannot load: {type(e).__name__}: {str(e)[:120]}") from None
        self.special, self.threads = special, threads


class WholeSpanEngine(TagpipeEngine):
    """tagpipe with MetaspaceRuns off: the same BPE and cache, only the splitter swapped."""
    OPTIONS = {"metaspace_runs": False}


IMPLS = {"tagpipe": TagpipeEngine, "tagpipe-wholespan": WholeSpanEngine, "tokenizers": TokenizersEngine, "gigatoken": GigatokenEngine,
         "fastokens": FastokensEngine, "tiktoken": TiktokenEngine}


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


PRETOUCH_MIB = 256


def pretouch(mib: int = PRETOUCH_MIB) -> None:
    """Write `mib` MiB of fresh memory and free it, before any engine loads.  On these VMs a
    page the guest has never touched costs far more the first time than a recycled one (a
    fill of 8 MiB: 9.3 ms the first time, 0.3 ms after), so without this the engine loaded
    first paid for the process's new pages whenever its tables grew, and the ones loaded
    after it reused them: the same tagpipe tokenizer created first in a process ran llama2
    Russian's misses 40-85% slower than a second one (Tokenizer.profile, miss time per
    byte: 7.4 against 5.1 ns; in the other order 9.7 against 5.4).  Every engine then starts
    on pages the guest has touched."""
    import numpy as np

    blocks = [np.ones(16 << 20, dtype=np.uint8) for _ in range(mib // 16)]
    del blocks


def worker_main() -> int:
    """Serve (load | run | quit) requests, pickled on stdin, replies pickled on the original
    stdout; anything the libraries print goes to stderr."""
    pretouch()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    engines = {}
    threads_at_start = _threads()
    while True:
        try:
            msg = pickle.load(inp)
        except EOFError:
            return 0
        op = msg[0]
        try:
            if op == "quit":
                return 0
            if op == "load":
                _, key, kind, path, special, threads = msg
                try:
                    engines[key] = IMPLS[kind](path, special, threads)
                    reply = ("ok",)
                except Skip as e:
                    reply = ("skip", str(e))
            elif op == "run":
                _, key, docs = msg
                clock = Clock()
                ids, offsets = engines[key].run(docs, clock)
                reply = ("ok", ids, offsets, clock.ns, clock.cpu, threads_at_start, _threads())
            else:
                reply = ("error", f"unknown request {op!r}")
        except Exception as e:  # noqa: BLE001 - reported in the table, not fatal
            reply = ("error", f"{type(e).__name__}: {str(e)[:300]}")
        pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


# ----------------------------------------------------------------------------------------
# Parent side.
# ----------------------------------------------------------------------------------------

class Worker:
    def __init__(self, threads: int):
        env = dict(os.environ)
        for var in ("FASTOKENS_INPUT_CACHE", "FASTOKENS_SEGMENT_CACHE"):
            env.pop(var, None)
        env.update(RAYON_NUM_THREADS=str(threads), FASTOKENS_BPE_THREADS=str(threads),
                   TAGPIPE_DELEGATION="error")
        if threads == 1:
            env["TOKENIZERS_PARALLELISM"] = "false"
        else:
            env.pop("TOKENIZERS_PARALLELISM", None)
        self.threads = threads
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def call(self, *msg):
        try:
            pickle.dump(msg, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
            return pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, OSError) as e:
            return ("error", f"worker process died ({type(e).__name__}, exit {self.proc.poll()})")

    def close(self):
        try:
            self.call("quit")
        finally:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _jiffies(pids) -> tuple[int, int]:
    """(busy CPU ticks of the whole machine, CPU ticks of `pids`) from /proc, or (0, 0)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
        own = 0
        for pid in pids:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            own += int(stat[11]) + int(stat[12])  # utime + stime
        return busy, own
    except (OSError, ValueError, IndexError):
        return 0, 0


class Background:
    """How many cores other processes kept busy while a model was measured: a shared machine
    makes the all-cores columns (and, less, the one-thread ones) meaningless."""

    def __init__(self, pids):
        self.pids, self.t0, self.j0 = pids, time.monotonic(), _jiffies(pids)

    def cores(self) -> float:
        busy, own = _jiffies(self.pids)
        seconds = time.monotonic() - self.t0
        if not busy or seconds <= 0:
            return float("nan")
        return max(0.0, (busy - self.j0[0]) - (own - self.j0[1])) / os.sysconf("SC_CLK_TCK") / seconds


class Reference:
    """The oracle's ids (tokenizers 0.23.3, in this process), cached per document."""

    def __init__(self, path: str, special: bool):
        import tokenizers

        self.tok = tokenizers.Tokenizer.from_file(path)
        self.special = special
        self.cache: dict[str, np.ndarray] = {}

    def ids(self, docs):
        todo = [d for d in docs if d not in self.cache]
        if todo:
            for d, e in zip(todo, self.tok.encode_batch(todo, add_special_tokens=self.special)):
                self.cache[d] = np.asarray(e.ids, dtype=np.uint32)
        return [self.cache[d] for d in docs]


def label(kind: str, threads: int) -> str:
    return f"{kind} {threads}t"


class Run:
    """What one model's run collects besides the harness's cells: per (engine, corpus) one
    (tokens, bytes, cpu/wall) row per timed round, and why engines were not timed."""

    def __init__(self):
        self.corpus = ""
        self.rows: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
        self.status: dict[str, str] = {}
        self.threads: dict[int, tuple[int, int]] = {}  # worker -> (threads before loading, most seen)


def special_for_all(path: str) -> tuple[Reference, bool, bool, str]:
    """(the oracle's ids, add_special_tokens, whether the post-processor adds tokens, a note)
    for a run in which every engine takes the same add_special_tokens: gigatoken never adds
    a post-processor's tokens, so a model whose post-processor adds some is timed with False."""
    probe = Reference(path, True).tok
    adds = probe.encode("Hello world", add_special_tokens=True).ids != \
        probe.encode("Hello world", add_special_tokens=False).ids
    note = ("True (the post-processor adds nothing)" if not adds else
            "False on every engine (the post-processor adds tokens and gigatoken cannot)")
    return Reference(path, not adds), not adds, adds, note


def model_engines(path: str, kinds: list[str], thread_counts: list[int], workers: dict,
                  ref: Reference, special: bool, adds: bool, run: Run) -> list[harness.Engine]:
    """harness.Engines for every (kind, thread count) that loads; the others go to run.status."""
    engines = []
    for threads in thread_counts:
        for kind in kinds:
            name = label(kind, threads)
            if special and adds and not ADDS_SPECIAL_TOKENS[kind]:
                run.status[name] = "cannot add special tokens"
                continue
            reply = workers[threads].call("load", name, kind, path, special, threads)
            if reply[0] != "ok":
                run.status[name] = reply[1]
                print(f"  {name}: {reply[1]}")
                continue

            def call(docs, name=name, threads=threads, w=workers[threads]):
                reply = w.call("run", name, docs)
                if reply[0] != "ok":
                    run.status.setdefault(name, "error: " + reply[1])
                    return (None, None, 0.0), 10**18  # ~0 MB/s in the log; the table says "error"
                _, ids, offsets, ns, cpu, before, after = reply
                run.threads[threads] = (before, max(after, run.threads.get(threads, (0, 0))[1]))
                return (ids, offsets, cpu / max(ns, 1)), max(ns, 1)

            def verify(docs, out, name=name):
                ids, offsets, cpu = out
                if ids is None:
                    return run.status.get(name, "error")
                expected = ref.ids(docs)
                nbytes = sum(len(d.encode("utf-8")) for d in docs)
                run.rows.setdefault((name, run.corpus), []).append((sum(len(e) for e in expected), nbytes, cpu))
                if len(offsets) != len(docs) + 1:
                    return f"{len(offsets)} offsets for {len(docs)} documents"
                for i, e in enumerate(expected):
                    got = ids[offsets[i]:offsets[i + 1]]
                    if not np.array_equal(got, e):
                        n = min(len(got), len(e))
                        j = next((k for k in range(n) if got[k] != e[k]), n)
                        return (f"document {i}: {len(got)} ids, expected {len(e)}; first difference "
                                f"at {j}: {got[j:j + 3].tolist()} vs {e[j:j + 3].tolist()}")
                return None

            engines.append(harness.Engine(name, call, verify))
    return engines


def short(status: str) -> str:
    """A table cell for an engine that was not timed: "cannot load", "n/a", "missing", ..."""
    return status.split(":")[0].split(" (")[0]


def fmt(x: float, digits: int = 1) -> str:
    if x != x:  # nan
        return "—"
    return f"{x:.{digits}f}" if x < 1000 else f"{x:,.0f}"


def report(model: str, corpora, kinds, thread_counts, cells, run: Run, special: bool, note: str,
           busy: str) -> str:
    at = {(c.engine, c.corpus): c for c in cells}

    def per_round(name, corpus, tokens):
        c = at[(name, corpus)]
        if not tokens:
            return c.rounds
        rows = run.rows.get((name, corpus), [])
        return [mbps * t / b for mbps, (t, b, _) in zip(c.rounds, rows)]  # MB/s * tokens/byte

    def value(name, corpus, tokens=False):
        """(median, or nan when there is none or it is not verified; the cell's text)."""
        c = at.get((name, corpus))
        if name in run.status:
            return float("nan"), ("error" if c is not None else short(run.status[name]))
        if c is None:
            return float("nan"), "—"
        v = statistics.median(per_round(name, corpus, tokens) or [float("nan")])
        return (v if c.verified else float("nan")), fmt(v, 2 if tokens else 1) + ("" if c.verified else " ✗")

    def ratio(corpus, threads, tokens):
        ours = value(label("tagpipe", threads), corpus, tokens)[0]
        peers = [(value(label(k, threads), corpus, tokens)[0], k) for k in kinds if not k.startswith("tagpipe")]
        peers = [(v, k) for v, k in peers if v == v]
        if ours != ours or not peers:
            return "—"
        best, who = max(peers)
        return f"{ours / best:.2f}× ({who})"

    def over_whole(corpus, threads, tokens):
        ours = value(label("tagpipe", threads), corpus, tokens)[0]
        whole = value(label("tagpipe-wholespan", threads), corpus, tokens)[0]
        return "—" if ours != ours or whole != whole else f"{ours / whole:.2f}×"

    parts = []
    for tokens in (False, True):
        head = ["corpus"] + [f"{k} {t}t" for t in thread_counts for k in kinds]
        if "tagpipe" in kinds:
            head += [f"tagpipe / best peer {t}t" for t in thread_counts]
        if "tagpipe" in kinds and "tagpipe-wholespan" in kinds:
            head += [f"tagpipe / whole-span {t}t" for t in thread_counts]
        lines = ["M tokens/s:" if tokens else "MB/s:", "",
                 "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for corpus in corpora:
            row = [corpus] + [value(label(k, t), corpus, tokens)[1] for t in thread_counts for k in kinds]
            if "tagpipe" in kinds:
                row += [ratio(corpus, t, tokens) for t in thread_counts]
            if "tagpipe" in kinds and "tagpipe-wholespan" in kinds:
                row += [over_whole(corpus, t, tokens) for t in thread_counts]
            lines.append("| " + " | ".join(row) + " |")
        parts.append("\n".join(lines))
    notes = [f"add_special_tokens={special}: {note}.", busy[0].upper() + busy[1:] + "."]
    for t, (before, most) in sorted(run.threads.items()):
        grew = " ⚠ an engine started threads" if t == 1 and most > before else ""
        notes.append(f"The {t}-thread worker process had {before} threads before loading the engines "
                     f"and at most {most} after their runs{grew}.")
    if run.status:
        notes.append("Not timed: " + "; ".join(f"{n}: {s}" for n, s in run.status.items()) + ".")
    parts.append("\n".join(f"- {n}" for n in notes))
    lines = ["Per-round MB/s in round order (with --repeat, one run's rounds after the other's); "
             "cores = median CPU time / wall time of the timed calls "
             f"(⚠ when a one-thread engine exceeds {CPU_FLAG}):", ""]
    for corpus in corpora:
        for t in thread_counts:
            for k in kinds:
                name = label(k, t)
                c = at.get((name, corpus))
                if c is None:
                    continue
                rows = run.rows.get((name, corpus), [])
                cpu = statistics.median(r[2] for r in rows) if rows else float("nan")
                flag = " ⚠" if t == 1 and cpu > CPU_FLAG else ""
                lines.append(f"- {corpus} / {name}: " + ", ".join(fmt(x) for x in c.rounds)
                             + f"; cores {cpu:.2f}{flag}" + ("" if c.verified else "; NOT VERIFIED"))
    parts.append("\n".join(lines))
    return f"### {model}\n\n" + "\n\n".join(parts)


def versions(kinds) -> str:
    """Installed versions from the package metadata (gigatoken and fastokens have no
    __version__, so harness.machine() cannot name them)."""
    from importlib import metadata

    out = []
    for k in kinds:
        if k == "tagpipe-wholespan":
            continue
        try:
            out.append(f"{k} {metadata.version(k)}")
        except metadata.PackageNotFoundError:
            if k == "tagpipe":  # run from a source tree (PYTHONPATH): the header's commit names it
                import tagpipe

                out.append(f"tagpipe {tagpipe.__version__} (source tree)")
            else:
                out.append(f"{k} not installed")
    return ", ".join(out)


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
    lines = ["Stage breakdown, ns/byte, one thread (normalize / split = added tokens + pre-tokenizer "
             "/ model = cache + model (BPE, WordPiece, ...); the share of pieces that went to the model "
             "(missed the word cache and its seed) and the time one miss took), warmed on one slice and "
             "profiled on the next:", "",
             "| corpus | " + " | ".join(f"{name} {st}" for name, _ in variants for st in cols) + " |",
             "|" + "---|" * (1 + len(cols) * len(variants))]
    for corpus in corpora:
        docs = harness.documents(corpus)
        slices = [docs[:10], docs[10:70]]
        row = [corpus]
        for _, options in variants:
            tok = tagpipe.Tokenizer.from_file(path, **options)
            tok.encode_batch_flat(slices[0], add_special_tokens=special, num_threads=1)
            ns = tok.profile(slices[1], add_special_tokens=special)
            stages = [ns[k] for k in ("normalize", "split", "model")]
            row += [f"{v:.2f}" for v in stages] + [f"{sum(stages):.2f}", f"{ns['miss_rate']:.1%}",
                                                   f"{ns['ns_per_miss']:.0f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def header(kinds, rounds: int, threads: int, load: str, repeat: int = 1) -> str:
    """The line above the model sections: engine versions, rounds, threads, load."""
    runs = (f" in each of {repeat} runs (new worker processes each; a cell is the median of all "
            f"{rounds * repeat})") if repeat > 1 else ""
    return (f"Engines: {versions(kinds)}; {rounds} rounds{runs}; {threads} threads for the "
            f"all-cores columns.  Load average when the run started: {load} on {os.cpu_count()} "
            f"cores.")


def run_models(models, corpora, kinds, thread_counts, rounds: int, round_docs: int,
               special: str = "auto", with_breakdown: bool = False, repeat: int = 1):
    """Measure every model (two worker processes each), printing as it goes; `repeat` times,
    each with new worker processes (the engines loaded and warmed again, so every round is
    still fresh text to the engine that runs it), every cell's rounds pooled.  Returns (the
    models' markdown sections, {model: harness cells}, whether every id verified and no engine
    failed)."""
    parts, results, ok = [], {}, True
    for model in models:
        path = str(harness.shared_dir() / "tokenizers" / model / "tokenizer.json")
        probe = Reference(path, True).tok
        adds = probe.encode("Hello world", add_special_tokens=True).ids != \
            probe.encode("Hello world", add_special_tokens=False).ids
        cannot = [k for k in kinds if not ADDS_SPECIAL_TOKENS[k]]
        if special != "auto":
            add, note = special == "true", "set with --special"
        elif not adds:
            add, note = True, "the post-processor adds nothing (True and False give the same ids)"
        elif not cannot:
            add, note = True, "every engine adds the post-processor's tokens"
        else:
            add, note = False, (f"on every engine, because the post-processor adds tokens and "
                                f"{', '.join(cannot)} cannot")
        ref = Reference(path, add)
        print(f"{model}: MB/s per round (add_special_tokens={add})")
        run, merged, busy = Run(), {}, 0.0
        for rep in range(repeat):
            if repeat > 1:
                print(f"  run {rep + 1} of {repeat}: new worker processes, every engine loaded and warmed again")
            workers = {t: Worker(t) for t in thread_counts}
            background = Background([os.getpid()] + [w.proc.pid for w in workers.values()])
            try:
                engines = model_engines(path, kinds, thread_counts, workers, ref, add, adds, run)
                for corpus in corpora if engines else []:
                    run.corpus = corpus
                    for c in harness.measure(engines, [corpus], rounds=rounds, max_round_docs=round_docs):
                        m = merged.setdefault((c.engine, c.corpus), harness.Cell(c.engine, c.corpus))
                        m.rounds += c.rounds
                        m.verified &= c.verified
                busy = max(busy, background.cores())
            finally:
                for w in workers.values():
                    w.close()
        cells = list(merged.values())
        note_busy = (f"other processes kept {busy:.2f} of {os.cpu_count()} cores busy during this "
                     f"model's run" + (" -- the N-thread columns are not trustworthy" if busy > 0.25 else ""))
        print(f"  {note_busy}")
        ok &= all(c.verified for c in cells) and not any(s.startswith("error") for s in run.status.values())
        parts.append(report(model, corpora, kinds, thread_counts, cells, run, add, note, note_busy))
        if with_breakdown:
            parts[-1] += "\n\n" + breakdown(model, path, corpora, add)
        print(parts[-1] + "\n")
        results[model] = cells
    return "\n\n".join(parts), results, ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="*", default=["gpt2", "llama3", "gpt-4o"])
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA)
    ap.add_argument("--engines", nargs="*", default=[e for e in ENGINES if e != "tagpipe-wholespan"],
                    choices=ENGINES, help="tagpipe-wholespan: tagpipe with MetaspaceRuns off (not by default)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1,
                    help="run everything this many times, each with new worker processes, and pool "
                         "the rounds (a cell's median is then over rounds x repeat fresh rounds)")
    ap.add_argument("--round-docs", type=int, default=60,
                    help="documents per round, at most (default 60, ~600 kB)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads for the all-cores columns (default: every core)")
    ap.add_argument("--special", choices=["auto", "true", "false"], default="auto",
                    help="add_special_tokens (auto: True unless that is not the same work for "
                         "every engine; see above)")
    ap.add_argument("--breakdown", action="store_true",
                    help="add tagpipe's per-stage ns/byte (Tokenizer.profile) under each model")
    ap.add_argument("--out", default="encode", help="the report's name: bench/results/<out>.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker_main()

    kinds = [k for k in ENGINES if k in args.engines]
    thread_counts = [1] if args.threads <= 1 else [1, args.threads]
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    load = load_average()
    print(f"load average before the run: {load} on {os.cpu_count()} cores")
    top = header(kinds, args.rounds, args.threads, load, args.repeat)
    print(top)
    sections, _, ok = run_models(args.models, args.corpora, kinds, thread_counts, args.rounds,
                                 args.round_docs, args.special, args.breakdown, args.repeat)
    body = top + "\n\n" + sections
    if not args.no_write:
        out = harness.write_report(args.out, "Encode throughput: one thread and all cores",
                                   " ".join(["python bench/encode.py"] + sys.argv[1:]), body)
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
