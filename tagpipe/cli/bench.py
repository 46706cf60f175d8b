"""`tagpipe bench [MODEL] [FILES...]`: tagpipe against tokenizers on your text, on one thread
and on every core, in MB/s and tokens/s, every id checked.

MODEL is a tokenizer.json, a directory holding one, or "bundled" (GPT-2, shipped with
tagpipe).  FILES are UTF-8 text files cut into documents of about 10 kB (at line ends where
possible); without them the text is the Python standard library's own source (offline).

How it measures:
  * each engine at each thread count is its own tokenizer, loaded from the same
    tokenizer.json; tokenizers' one-thread rows are its batch call with
    TOKENIZERS_PARALLELISM=false (its serial path), its all-cores rows the same call on its
    thread pool (RAYON_NUM_THREADS, which the pool reads once per process);
  * each is warmed on one slice of the text, then timed on fresh slices, one per round,
    that it has not seen; engines take turns within a round (the order rotates);
  * only the engine's own call is timed, never turning its output into Python lists;
  * the ids of every run are checked document by document against tokenizers (run
    separately, untimed); a difference is printed as MISMATCH and the exit code is 1.

The other fast tokenizers (gigatoken, fastokens, ...) are compared in the project's own
benchmarks: bench/ in the source repository (python -m bench.encode).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

from tagpipe._kernels import kernels
from tagpipe._version import __version__
from tagpipe.cli.resources import DOC_BYTES, load_model, stdlib_documents
from tagpipe.tokenizer import Tokenizer

ENGINES = ["tagpipe", "tokenizers"]
DEFAULT_MEGABYTES = 4.0


def _flat(arrays) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=offsets[1:])
    ids = np.concatenate(arrays).astype(np.uint32, copy=False) if arrays else np.zeros(0, np.uint32)
    return ids, offsets


@contextlib.contextmanager
def _env(**values: Optional[str]) -> Iterator[None]:
    """Environment variables set (None: unset) for the block, restored after it."""
    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Skip(Exception):
    """An engine that cannot be timed here (not installed, cannot load the model)."""


class TagpipeEngine:
    def __init__(self, json_text: str, special: bool, threads: int):
        self.tok = Tokenizer.from_str(json_text)
        self.version = f"tagpipe {__version__} (kernel {kernels().active})"
        self.special, self.threads = special, threads

    def run(self, docs: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
        t0 = time.perf_counter_ns()
        ids, offsets = self.tok.encode_batch_flat(docs, add_special_tokens=self.special, num_threads=self.threads)
        return ids, offsets, time.perf_counter_ns() - t0


def _tokenizers():
    try:
        import tokenizers
    except ImportError:
        raise Skip("not installed (pip install tokenizers)") from None
    return tokenizers


class TokenizersEngine:
    """Its fastest batch call (encode_batch_fast: no offsets); the Encodings' ids are read
    untimed."""

    def __init__(self, json_text: str, special: bool, threads: int):
        tokenizers = _tokenizers()
        try:
            self.tok = tokenizers.Tokenizer.from_str(json_text)
        except Exception as e:  # noqa: BLE001
            raise Skip(f"cannot load this tokenizer: {type(e).__name__}: {str(e)[:120]}") from None
        self.call = getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)
        self.version = f"tokenizers {tokenizers.__version__}"
        self.special, self.threads = special, threads

    def run(self, docs: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
        with _env(TOKENIZERS_PARALLELISM="false" if self.threads == 1 else "true"):
            t0 = time.perf_counter_ns()
            encodings = self.call(docs, add_special_tokens=self.special)
            ns = time.perf_counter_ns() - t0
        return (*_flat([np.asarray(e.ids, dtype=np.uint32) for e in encodings]), ns)


IMPLS = {"tagpipe": TagpipeEngine, "tokenizers": TokenizersEngine}


def cut_documents(data: bytes, size: int = DOC_BYTES) -> list[tuple[str, int]]:
    """(document, its first line number) for UTF-8 `data` cut into pieces of about `size`
    bytes: at a line end when one falls in the last quarter of the window, else at a
    character boundary."""
    docs, i, line = [], 0, 1
    while i < len(data):
        j = min(i + size, len(data))
        if j < len(data):
            nl = data.rfind(b"\n", i + size * 3 // 4, j)
            if nl >= 0:
                j = nl + 1
            else:
                while j > i + 1 and (data[j] & 0xC0) == 0x80:  # do not cut a character
                    j -= 1
        docs.append((data[i:j].decode("utf-8"), line))
        line += data.count(b"\n", i, j)
        i = j
    return docs


def file_documents(paths: list[str], megabytes: Optional[float], size: int = DOC_BYTES) -> tuple[list[str], list[str]]:
    """The files' documents and, for each, where it starts ("FILE line N"); at most
    `megabytes` in all when given."""
    docs, where, total = [], [], 0
    limit = int(megabytes * 1e6) if megabytes else None
    for p in paths:
        data = Path(p).read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{p} is not UTF-8 (byte {e.start})") from None
        for doc, line in cut_documents(data, size):
            if limit is not None and total >= limit:
                return docs, where
            docs.append(doc)
            where.append(f"{p} line {line}")
            total += len(doc.encode("utf-8"))
    return docs, where


class Reference:
    """The ids of tokenizers (its own instance, untimed) for every document, flat."""

    def __init__(self, json_text: str, docs: list[str], special: bool):
        import tokenizers

        tok = tokenizers.Tokenizer.from_str(json_text)
        call = getattr(tok, "encode_batch_fast", tok.encode_batch)
        arrays = [np.asarray(e.ids, dtype=np.uint32) for e in call(docs, add_special_tokens=special)]
        self.ids, self.offsets = _flat(arrays)
        self.version = f"tokenizers {tokenizers.__version__}"

    def tokens(self, start: int, stop: int) -> int:
        return int(self.offsets[stop] - self.offsets[start])

    def check(self, start: int, stop: int, ids: np.ndarray, offsets: np.ndarray) -> Optional[tuple[int, str]]:
        """None when documents start..stop-1 have exactly the expected ids, else (the first
        wrong document's index, what differs)."""
        n = stop - start
        offsets = np.asarray(offsets, dtype=np.int64)
        if len(offsets) != n + 1 or offsets[0] != 0 or offsets[-1] != len(ids):
            return start, f"{len(offsets) - 1} documents in its output for {n} given"
        want_offsets = self.offsets[start : stop + 1] - self.offsets[start]
        want = self.ids[self.offsets[start] : self.offsets[stop]]
        if np.array_equal(offsets, want_offsets) and np.array_equal(ids, want):
            return None
        for i in range(n):
            got = np.asarray(ids[offsets[i] : offsets[i + 1]])
            exp = self.ids[self.offsets[start + i] : self.offsets[start + i + 1]]
            if not np.array_equal(got, exp):
                k = min(len(got), len(exp))
                j = next((x for x in range(k) if got[x] != exp[x]), k)
                return start + i, (
                    f"{len(got)} ids, expected {len(exp)}; first difference at id {j}: "
                    f"{got[j : j + 3].tolist()} vs {exp[j : j + 3].tolist()}"
                )
        return start, "the output differs"  # not reached: equal documents make equal arrays


class Result:
    def __init__(self, engine: str, threads: int):
        self.engine, self.threads = engine, threads
        self.status: Optional[str] = None  # why it was not timed (or broke)
        self.version = ""
        self.mbps: list[float] = []
        self.tokps: list[float] = []
        self.mismatch: Optional[str] = None
        self.runs = 0
        self.impl = None

    @property
    def ok(self) -> bool:
        return self.status is None and bool(self.mbps)


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _fmt(x: float, digits: int = 1) -> str:
    if x != x:
        return "—"
    return f"{x:,.0f}" if x >= 1000 else f"{x:.{digits}f}"


def report(results: list[Result], thread_counts: list[int]) -> str:
    head = ["engine", "threads", "MB/s", "M tokens/s", "tagpipe / engine", "MB/s min–max", "ids"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in thread_counts:
        ours = next((r for r in results if r.engine == "tagpipe" and r.threads == t and r.ok and not r.mismatch), None)
        for r in (r for r in results if r.threads == t):
            if r.status and not r.mbps:
                lines.append(f"| {r.engine} | {t} | — | — | — | — | {r.status} |")
                continue
            mb, tk = _median(r.mbps), _median(r.tokps)
            bad = " ✗" if r.mismatch else ""
            # the median of the rounds' ratios: in each round both engines encoded the same text
            ratio = (
                "—"
                if ours is None or r.mismatch or r.status
                else f"{_median([a / b for a, b in zip(ours.mbps, r.mbps)]):.2f}×"
            )
            ids = ("MISMATCH" if r.mismatch else "✓") + (f"; {r.status}" if r.status else "")
            lines.append(
                f"| {r.engine} | {t} | {_fmt(mb)}{bad} | {_fmt(tk, 2)}{bad} | {ratio} | "
                f"{_fmt(min(r.mbps))}–{_fmt(max(r.mbps))} | {ids} |"
            )
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", nargs="?", default="bundled", help='a tokenizer.json, a directory holding one, or "bundled" (default)'
    )
    parser.add_argument(
        "files",
        nargs="*",
        help="UTF-8 text files, cut into ~10 kB documents (default: the Python standard library's source)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="threads for the all-cores rows (default: every core, %(default)s here)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds, each on fresh text (default 3)")
    parser.add_argument(
        "--megabytes",
        type=float,
        default=None,
        help=f"text to use: of the bundled text (default {DEFAULT_MEGABYTES:g}), "
        "or at most this much of FILES (default: all of them)",
    )
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=ENGINES,
        default=ENGINES,
        metavar="ENGINE",
        help="engines to time, of: " + " ".join(ENGINES) + " (default: both)",
    )
    parser.add_argument("--no-special", action="store_true", help="add_special_tokens=False (default True)")


def _slices(n: int, rounds: int) -> tuple[list[int], tuple[int, int], list[tuple[int, int]]]:
    """For n documents: the order to use them in (the warm-up documents, then one fresh
    set per round, each taking every `rounds`-th document, so that the rounds are alike and
    comparable), the warm-up slice and the rounds' slices of that order."""
    warm = max(1, min(10, n // (4 * (rounds + 1))))
    per = (n - warm) // rounds
    rest = range(warm, warm + per * rounds)
    order = list(range(warm)) + [i for r in range(rounds) for i in rest[r::rounds]]
    return order, (0, warm), [(warm + r * per, warm + (r + 1) * per) for r in range(rounds)]


def _text(args: argparse.Namespace) -> tuple[list[str], list[str], str]:
    """The documents, where each starts, and what the text is."""
    if args.files:
        docs, where = file_documents(args.files, args.megabytes)
        if len(docs) < args.rounds + 1:  # a small text: smaller documents, so every round has fresh ones
            total = sum(len(d.encode("utf-8")) for d in docs)
            docs, where = file_documents(args.files, args.megabytes, max(64, total // (4 * (args.rounds + 1))))
        what = ", ".join(args.files)
    else:
        docs = stdlib_documents(args.megabytes or DEFAULT_MEGABYTES)
        where = [""] * len(docs)
        what = "the Python standard library's source (the bundled default text)"
    if len(docs) < args.rounds + 1:
        raise ValueError(
            f"the text makes {len(docs)} documents: too little for a warm-up and "
            f"{args.rounds} fresh rounds (give more text or fewer --rounds)"
        )
    return docs, where, what


def run(args: argparse.Namespace) -> int:
    try:
        # (tokenizers' pool of threads, for its all-cores rows, reads this once per process)
        with _env(RAYON_NUM_THREADS=os.environ.get("RAYON_NUM_THREADS") or str(args.threads)):
            return _run(args)
    except (OSError, ValueError) as err:
        print(f"tagpipe bench: {err}", file=sys.stderr)
        return 2


class _Check:
    """Times one run of one engine, checks its ids and keeps its figures."""

    def __init__(self, ref: Optional[Reference], sizes: np.ndarray, where: list[str]):
        self.ref, self.sizes, self.where = ref, sizes, where

    def __call__(self, r: Result, start: int, stop: int, docs: list[str], timed: bool) -> None:
        if r.status:  # broke in an earlier run
            return
        try:
            ids, offsets, ns = r.impl.run(docs[start:stop])
        except Exception as e:  # noqa: BLE001 - reported in the table, never fatal
            r.status = f"error: {type(e).__name__}: {str(e)[:300]}"
            return
        r.runs += 1
        if self.ref is not None and r.mismatch is None:
            problem = self.ref.check(start, stop, ids, offsets)
            if problem:
                d, what = problem
                r.mismatch = f"{r.engine}, {r.threads} thread{'s' * (r.threads > 1)}: {self.where[d]}: {what}"
        if timed:
            seconds = max(ns, 1) / 1e9
            tokens = self.ref.tokens(start, stop) if self.ref is not None and not r.mismatch else len(ids)
            r.mbps.append(self.sizes[start:stop].sum() / seconds / 1e6)
            r.tokps.append(tokens / seconds / 1e6)


def _load(results: list[Result], json_text: str, special: bool) -> list[Result]:
    for r in results:
        try:
            r.impl = IMPLS[r.engine](json_text, special, r.threads)
            r.version = r.impl.version
        except Skip as e:
            r.status = str(e)
    return [r for r in results if r.impl is not None]


def _reference(json_text: str, docs: list[str], special: bool) -> Optional[Reference]:
    try:
        return Reference(json_text, docs, special)
    except ImportError:
        return None
    except Exception as e:  # noqa: BLE001
        print(f"tokenizers cannot load this tokenizer ({type(e).__name__}: {e}): ids not verified")
        return None


def _run(args: argparse.Namespace) -> int:
    if args.rounds < 1 or args.threads < 1:
        raise ValueError("--rounds and --threads must be at least 1")
    kinds = [e for e in ENGINES if e in args.engines]
    special = not args.no_special
    tok, name = load_model(args.model)
    docs, where, what = _text(args)
    order, warm, rounds = _slices(len(docs), args.rounds)
    docs = [docs[i] for i in order]
    where = [f"document {i}" + (f", {where[i]}" if where[i] else "") for i in order]
    sizes = np.array([len(d.encode("utf-8")) for d in docs], dtype=np.int64)
    thread_counts = [1] if args.threads == 1 else [1, args.threads]

    print(f"tagpipe bench: {name}")
    print(
        f"Text: {sizes.sum() / 1e6:.2f} MB of {what}, {len(docs)} documents of ~"
        f"{int(np.median(sizes)):,} bytes; add_special_tokens={special}"
    )
    print(
        f"Warm-up on {warm[1]} documents, then {args.rounds} timed round{'s' * (args.rounds > 1)} of "
        f"{rounds[0][1] - rounds[0][0]} fresh documents (~{sizes[rounds[0][0] : rounds[0][1]].sum() / 1e6:.2f} MB) "
        f"each; threads: {' and '.join(map(str, thread_counts))} ({os.cpu_count()} cores here)"
    )
    if not tok.native:
        print(
            "Note: tagpipe hands this tokenizer to tokenizers (delegation), so its rows time "
            "that; `tagpipe explain MODEL` says why"
        )
    sys.stdout.flush()

    json_text = tok.to_str()  # (every engine and the reference load the same text)
    results = [Result(k, t) for t in thread_counts for k in kinds]
    running = _load(results, json_text, special)
    ref = _reference(json_text, docs, special)
    one = _Check(ref, sizes, where)
    for r in running:
        one(r, *warm, docs, timed=False)
    for n, (start, stop) in enumerate(rounds):
        if sys.stderr.isatty():
            print(f"  round {n + 1}/{len(rounds)}", end="\r", file=sys.stderr, flush=True)
        k = n % len(running) if running else 0
        for r in running[k:] + running[:k]:
            one(r, start, stop, docs, timed=True)
    if sys.stderr.isatty():
        print(" " * 20, end="\r", file=sys.stderr, flush=True)
    return _summary(results, thread_counts, ref, len(docs))


def _summary(results: list[Result], thread_counts: list[int], ref: Optional[Reference], n_docs: int) -> int:
    versions = [r.version for r in results if r.version and r.threads == 1] or [r.version for r in results if r.version]
    print("Engines: " + ", ".join(dict.fromkeys(versions)) + "\n")
    print(report(results, thread_counts))
    print()
    status = 0
    for r in results:
        if r.mismatch:
            print(f"MISMATCH: {r.mismatch}")
            status = 1
    for r in results:
        if r.engine == "tagpipe" and r.status:
            print(f"tagpipe, {r.threads} thread{'s' * (r.threads > 1)}: {r.status}")
            status = 1
    if ref is None:
        print("ids NOT verified: tokenizers is not installed or cannot load this tokenizer (pip install tokenizers)")
    elif status == 0:
        runs = sum(r.runs for r in results)
        print(
            f"ids verified: {n_docs} documents, document by document against {ref.version}, "
            f"in each of the {runs} runs (warm-up and timed) of the engines above"
        )
    return status
