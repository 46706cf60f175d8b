"""The benchmark harness every tagpipe benchmark uses.

Rules it enforces (DESIGN.md §5, "Speed is measured, not asserted"):
  * documents of about 10 kB cut from ``shared/corpora``;
  * every engine is warmed on one slice and then timed on fresh, disjoint slices -- one
    per round -- so nothing measures memoisation of text it has already seen;
  * engines are interleaved within a round (the order rotates every round), and every
    round's figure is kept so the spread is visible;
  * only the engine's own call is timed (each engine returns the nanoseconds it spent
    in its call, excluding any conversion of its output to Python objects);
  * every timed output is checked by a verification hook against a reference (`Reference`:
    the ids of tokenizers 0.23.3);
  * the machine, the versions, tagpipe's active kernel and the load are recorded, and the
    result is a markdown table (`write_report`: bench/results/<name>.md).
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tagpipe.cli.bench import cut_documents  # (the one cutter: `tagpipe bench` uses it too)

CORPORA = ["english", "code", "chinese", "russian", "multilingual"]
RESULTS = Path(__file__).resolve().parent / "results"


def shared_dir() -> Path:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    path = Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"
    if not (path / "corpora").is_dir():
        sys.exit(f"bench: no corpora at {path} (set TAGPIPE_TEST_DATA to the shared/ folder)")
    return path


def tokenizer_path(model: str) -> str:
    """shared/tokenizers/<model>/tokenizer.json."""
    return str(shared_dir() / "tokenizers" / model / "tokenizer.json")


def documents(corpus: str, size: int = 10_000) -> list[str]:
    """The corpus cut into documents of about `size` UTF-8 bytes, at line ends when one
    falls in the last quarter of the window, else at a character boundary."""
    data = (shared_dir() / "corpora" / f"{corpus}.txt").read_bytes()
    return [doc for doc, _ in cut_documents(data, size)]


@dataclass
class Engine:
    """`run(docs)` processes each document with the engine's own call and returns
    (outputs, nanoseconds spent in those calls).  `verify(docs, outputs)` returns None if
    the outputs are right, else a message; it is never timed."""

    name: str
    run: Callable[[list[str]], tuple[Any, int]]
    verify: Optional[Callable[[list[str], Any], Optional[str]]] = None


def per_call(fn: Callable[[str], Any]) -> Callable[[list[str]], tuple[None, int]]:
    """An Engine.run that calls fn on each document and times only those calls (for the
    oracle's Python entry points: normalize_str, pre_tokenize_str)."""

    def run(docs: list[str]) -> tuple[None, int]:
        t = 0
        for d in docs:
            t0 = time.perf_counter_ns()
            fn(d)
            t += time.perf_counter_ns() - t0
        return None, t

    return run


@dataclass
class Cell:
    engine: str
    corpus: str
    rounds: list[float] = field(default_factory=list)  # MB/s per round
    verified: bool = True
    units: list[int] = field(default_factory=list)  # e.g. tokens per round (optional)

    @property
    def median(self) -> float:
        return statistics.median(self.rounds) if self.rounds else float("nan")


def _round(engines: Sequence[Engine], row: dict, slice_: list[str], r: int, corpus: str, log) -> None:
    """One round: every engine once on `slice_`, in an order rotated by `r`, each verified."""
    nbytes = sum(len(d.encode("utf-8")) for d in slice_)
    for e in list(engines[r % len(engines) :]) + list(engines[: r % len(engines)]):
        out, ns = e.run(slice_)
        cell = row[e.name]
        cell.rounds.append(nbytes / ns * 1e3)  # bytes/ns * 1e3 = MB/s
        if e.verify is not None:
            problem = e.verify(slice_, out)
            if problem:
                cell.verified = False
                log(f"  VERIFY FAILED {e.name} / {corpus} round {r}: {problem}")


def measure(
    engines: Sequence[Engine],
    corpora: Sequence[str] = CORPORA,
    *,
    rounds: int = 5,
    warm_docs: int = 10,
    doc_size: int = 10_000,
    max_round_docs: int = 60,
    log=print,
    documents_of: Optional[Callable[[str, int], list[str]]] = None,
) -> list[Cell]:
    """Warm every engine on the first `warm_docs` documents of each corpus, then run
    `rounds` rounds, each on its own fresh slice of documents, engines interleaved.
    `documents_of(corpus, doc_size)` gives a corpus's documents (default: `documents`)."""
    cells: list[Cell] = []
    for corpus in corpora:
        docs = (documents_of or documents)(corpus, doc_size)
        per_round = min(max_round_docs, (len(docs) - warm_docs) // rounds)
        if per_round < 1:
            raise ValueError(f"{corpus}: {len(docs)} documents cannot make {rounds} fresh rounds")
        for e in engines:
            e.run(docs[:warm_docs])
        row = {e.name: Cell(e.name, corpus) for e in engines}
        for r in range(rounds):
            _round(engines, row, docs[warm_docs + r * per_round : warm_docs + (r + 1) * per_round], r, corpus, log)
        for e in engines:
            c = row[e.name]
            log(
                f"  {corpus:<13} {e.name:<22} "
                + " ".join(f"{x:9.1f}" for x in c.rounds)
                + ("" if c.verified else "  (NOT VERIFIED)")
            )
            cells.append(c)
    return cells


def table(
    cells: list[Cell], *, unit: str = "MB/s", scale: float = 1.0, baseline: Optional[str] = None, digits: int = 1
) -> str:
    """Markdown: one row per corpus, one column per engine (median of the rounds), then the
    ratio of each engine to `baseline` and the per-round spread."""
    engines = list(dict.fromkeys(c.engine for c in cells))
    corpora = list(dict.fromkeys(c.corpus for c in cells))
    at = {(c.engine, c.corpus): c for c in cells}
    head = ["corpus"] + [f"{e} ({unit})" for e in engines]
    if baseline:
        head += [f"{e} / {baseline}" for e in engines if e != baseline]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for corpus in corpora:
        row = [corpus]
        for e in engines:
            c = at[(e, corpus)]
            mark = "" if c.verified else " ✗"
            row.append(f"{c.median * scale:.{digits}f}{mark}")
        if baseline:
            b = at[(baseline, corpus)].median
            row += [f"{at[(e, corpus)].median / b:.2f}×" for e in engines if e != baseline]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Per-round figures (" + unit + "), in round order:", ""]
    for corpus in corpora:
        for e in engines:
            c = at[(e, corpus)]
            lines.append(f"- {corpus} / {e}: " + ", ".join(f"{x * scale:.{digits}f}" for x in c.rounds))
    return "\n".join(lines)


class Reference:
    """The oracle's ids (tokenizers 0.23.3, in this process, untimed), cached per document."""

    def __init__(self, path: str, special: bool):
        import tokenizers

        self.tok = tokenizers.Tokenizer.from_file(path)
        self.special = special
        self.cache: dict[str, np.ndarray] = {}

    def adds(self) -> bool:
        """Whether the post-processor adds tokens (add_special_tokens=True != False)."""
        return (
            self.tok.encode("Hello world", add_special_tokens=True).ids
            != self.tok.encode("Hello world", add_special_tokens=False).ids
        )

    def ids(self, docs) -> list[np.ndarray]:
        todo = [d for d in docs if d not in self.cache]
        if todo:
            for d, e in zip(todo, self.tok.encode_batch(todo, add_special_tokens=self.special)):
                self.cache[d] = np.asarray(e.ids, dtype=np.uint32)
        return [self.cache[d] for d in docs]

    def check(self, docs, ids: np.ndarray, offsets: np.ndarray) -> Optional[str]:
        """None when (ids, offsets) are the oracle's ids of `docs`, else the first difference."""
        expected = self.ids(docs)
        if len(offsets) != len(docs) + 1:
            return f"{len(offsets)} offsets for {len(docs)} documents"
        for i, e in enumerate(expected):
            got = ids[offsets[i] : offsets[i + 1]]
            if not np.array_equal(got, e):
                n = min(len(got), len(e))
                j = next((k for k in range(n) if got[k] != e[k]), n)
                return (
                    f"document {i}: {len(got)} ids, expected {len(e)}; first difference "
                    f"at {j}: {got[j : j + 3].tolist()} vs {e[j : j + 3].tolist()}"
                )
        return None


# -- the machine ------------------------------------------------------------------------------


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


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def kernel() -> str:
    """tagpipe's active classify kernel in this process (`tagpipe.kernels().active`)."""
    import tagpipe

    return tagpipe.kernels().active


def machine() -> str:
    """One paragraph naming the machine, the versions, tagpipe's kernel, commit and date."""
    from bench.drivers import ENGINES, version

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{cpu}, {os.cpu_count()} cores", f"Python {platform.python_version()}"]
    parts += [v for v in dict.fromkeys(version(k) for k in ENGINES + ["numpy"]) if not v.endswith("not installed")]
    parts.append(f"tagpipe kernel {kernel()}")
    commit = _commit()
    if commit:
        parts.append(commit)
    parts.append(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    return "; ".join(parts)


def _commit() -> str:
    here = Path(__file__).parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here
        ).stdout.strip()
        if not rev:
            return ""
        dirty = subprocess.run(
            [
                "git",
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ":(top)",
                ":(top,exclude)bench/results",
            ],  # (not the reports being written)
            capture_output=True,
            text=True,
            cwd=here,
        ).stdout.strip()
        return f"commit {rev}" + (" with uncommitted changes" if dirty else "")
    except OSError:
        return ""


def command(module: str, argv: Optional[Sequence[str]] = None) -> str:
    """How a report was made: `python -m bench.<module> ARGS`."""
    return " ".join([f"python -m bench.{module}", *(sys.argv[1:] if argv is None else argv)])


def write_report(name: str, title: str, command: str, body: str) -> Path:
    out = RESULTS / f"{name}.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(f"# {title}\n\n`{command}`\n\n{machine()}\n\n{body}\n")
    return out
