"""The benchmark harness every tagpipe benchmark uses.

Rules it enforces (DESIGN.md §5, DEVELOPERS.md "Speed is measured, not asserted"):
  * documents of about 10 kB cut from ``shared/corpora``;
  * every engine is warmed on one slice and then timed on fresh, disjoint slices -- one
    per round -- so nothing measures memoisation of text it has already seen;
  * engines are interleaved within a round (the order rotates every round), and every
    round's figure is kept so the spread is visible;
  * only the engine's own call is timed (each engine returns the nanoseconds it spent
    in its call, excluding any conversion of its output to Python objects);
  * every timed output is checked by a verification hook against a reference;
  * the machine and the versions are recorded, and the result is a markdown table.
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

CORPORA = ["english", "code", "chinese", "russian", "multilingual"]


def shared_dir() -> Path:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    path = Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"
    if not (path / "corpora").is_dir():
        sys.exit(f"bench: no corpora at {path} (set TAGPIPE_TEST_DATA to the shared/ folder)")
    return path


def documents(corpus: str, size: int = 10_000) -> list[str]:
    """The corpus cut into documents of about `size` UTF-8 bytes, at line ends when one
    falls in the last quarter of the window, else at a character boundary."""
    from tagpipe.benchmark import cut_documents  # (the one cutter; `tagpipe bench` uses it too)

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


def measure(engines: Sequence[Engine], corpora: Sequence[str] = CORPORA, *, rounds: int = 5,
            warm_docs: int = 10, doc_size: int = 10_000, max_round_docs: int = 60,
            log=print, documents_of: Callable[[str, int], list[str]] = None) -> list[Cell]:
    """Warm every engine on the first `warm_docs` documents of each corpus, then run
    `rounds` rounds, each on its own fresh slice of documents, engines interleaved.
    `documents_of(corpus, doc_size)` gives a corpus's documents (default: `documents`)."""
    cells: list[Cell] = []
    for corpus in corpora:
        docs = (documents_of or documents)(corpus, doc_size)
        per_round = min(max_round_docs, (len(docs) - warm_docs) // rounds)
        if per_round < 1:
            raise ValueError(f"{corpus}: {len(docs)} documents cannot make {rounds} fresh rounds")
        warm = docs[:warm_docs]
        for e in engines:
            e.run(warm)
        row = {e.name: Cell(e.name, corpus) for e in engines}
        for r in range(rounds):
            slice_ = docs[warm_docs + r * per_round: warm_docs + (r + 1) * per_round]
            nbytes = sum(len(d.encode("utf-8")) for d in slice_)
            order = list(engines[r % len(engines):]) + list(engines[:r % len(engines)])
            for e in order:
                out, ns = e.run(slice_)
                cell = row[e.name]
                cell.rounds.append(nbytes / ns * 1e3)  # bytes/ns * 1e3 = MB/s
                if e.verify is not None:
                    problem = e.verify(slice_, out)
                    if problem:
                        cell.verified = False
                        log(f"  VERIFY FAILED {e.name} / {corpus} round {r}: {problem}")
        for e in engines:
            c = row[e.name]
            log(f"  {corpus:<13} {e.name:<22} " + " ".join(f"{x:9.1f}" for x in c.rounds)
                + ("" if c.verified else "  (NOT VERIFIED)"))
            cells.append(c)
    return cells


def table(cells: list[Cell], *, unit: str = "MB/s", scale: float = 1.0, baseline: Optional[str] = None,
          digits: int = 1) -> str:
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
    lines.append("")
    lines.append("Per-round figures (" + unit + "), in round order:")
    lines.append("")
    for corpus in corpora:
        for e in engines:
            c = at[(e, corpus)]
            lines.append(f"- {corpus} / {e}: " + ", ".join(f"{x * scale:.{digits}f}" for x in c.rounds))
    return "\n".join(lines)


def machine() -> str:
    """One paragraph naming the machine, the versions and the date."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{cpu}, {os.cpu_count()} cores", f"Python {platform.python_version()}"]
    from importlib import metadata

    for mod in ("tagpipe", "tokenizers", "gigatoken", "fastokens", "tiktoken", "numpy"):
        try:  # (the installed distribution's version: not every module has __version__)
            parts.append(f"{mod} {metadata.version(mod)}")
        except metadata.PackageNotFoundError:
            pass
    try:
        import tagpipe

        parts.append(f"tagpipe kernel {tagpipe.kernels().active}")
    except ImportError:
        pass
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent).stdout.strip()
        if rev:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ":(top)",
                                    ":(top,exclude)bench/results"],  # (not the reports being written)
                                   capture_output=True, text=True, cwd=Path(__file__).parent).stdout.strip()
            parts.append(f"commit {rev}" + (" with uncommitted changes" if dirty else ""))
    except OSError:
        pass
    parts.append(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    return "; ".join(parts)


def write_report(name: str, title: str, command: str, body: str) -> Path:
    out = Path(__file__).resolve().parent / "results" / f"{name}.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(f"# {title}\n\n`{command}`\n\n{machine()}\n\n{body}\n")
    return out
