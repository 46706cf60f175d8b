"""`tagpipe bench MODEL [FILES...]`: tagpipe against tokenizers (and gigatoken, fastokens and
tiktoken when they are installed), on one thread and on every core, in MB/s and tokens/s.

MODEL is a tokenizer.json, a directory holding one, or "bundled" (GPT-2, shipped with
tagpipe).  FILES are UTF-8 text files cut into documents of about 10 kB (at line ends where
possible); without them the text is the Python standard library's own source (offline).

How it measures:
  * every engine runs in a process of its own, one per thread count, started for the
    purpose with the thread settings the peers read once per process (RAYON_NUM_THREADS,
    FASTOKENS_BPE_THREADS, TOKENIZERS_PARALLELISM=false for one thread); tagpipe too, so
    every engine is measured the same way;
  * each engine is warmed on one slice of the text, then timed on fresh slices, one per
    round, that it has not seen; engines take turns within a round (the order rotates);
  * only the engine's own call is timed, never turning its output into Python lists;
  * the ids of every run are checked document by document against tokenizers (run
    separately, untimed); a difference is printed as MISMATCH and the exit code is 1.

    python -m tagpipe.benchmark MODEL [FILES...] [--threads N] [--rounds 3] ...
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

ENGINES = ["tagpipe", "tokenizers", "gigatoken", "fastokens", "tiktoken"]
# engines that can add a post-processor's special tokens (BOS/EOS) on request
ADDS_SPECIAL_TOKENS = {"tagpipe": True, "tokenizers": True, "fastokens": True, "gigatoken": False, "tiktoken": False}
DOC_BYTES = 10_000
DEFAULT_MEGABYTES = 4.0


class Skip(Exception):
    """An engine that cannot be timed here (not installed, cannot load the model, n/a)."""


# ----------------------------------------------------------------------------------------
# Worker side: one engine in a process of its own.  `run(docs, clock)` returns flat ids and
# offsets, timing only the engine's own call(s) with `clock`.
# ----------------------------------------------------------------------------------------

def _flat(arrays) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=offsets[1:])
    ids = np.concatenate(arrays).astype(np.uint32, copy=False) if arrays else np.zeros(0, np.uint32)
    return ids, offsets


class Clock:
    """`with clock:` around an engine's own call; sums the wall time of those calls only, and
    the process's CPU time (all threads) over them (`cpu`: how many cores the calls used)."""

    def __init__(self) -> None:
        self.ns = self.cpu = 0

    def __enter__(self) -> "Clock":
        self.c0 = time.process_time_ns()
        self.t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc) -> None:
        self.ns += time.perf_counter_ns() - self.t0
        self.cpu += time.process_time_ns() - self.c0


def _version(module: Any, dist: str) -> str:
    v = getattr(module, "__version__", None)
    if not v:
        try:
            from importlib import metadata

            v = metadata.version(dist)
        except Exception:  # noqa: BLE001
            v = "?"
    return f"{dist} {v}"


def _import(name: str):
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skip(f"not installed (pip install {name})") from None


def _cannot_load(e: Exception) -> Skip:
    return Skip(f"cannot load this tokenizer: {type(e).__name__}: {str(e)[:120]}")


class TagpipeEngine:
    def __init__(self, path: str, special: bool, threads: int):
        tagpipe = _import("tagpipe")
        try:
            self.tok = tagpipe.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.version = _version(tagpipe, "tagpipe")
        self.special, self.threads = special, threads

    def run(self, docs, clock):
        with clock:
            ids, offsets = self.tok.encode_batch_flat(docs, add_special_tokens=self.special,
                                                      num_threads=self.threads)
        return np.asarray(ids, dtype=np.uint32), np.asarray(offsets, dtype=np.int64)


class TokenizersEngine:
    """Its fastest batch call (encode_batch_fast: no offsets); one thread is the same call in
    a process with TOKENIZERS_PARALLELISM=false; the Encodings' ids are read untimed."""

    def __init__(self, path: str, special: bool, threads: int):
        tokenizers = _import("tokenizers")
        try:
            self.tok = tokenizers.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.call = getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)
        self.version = _version(tokenizers, "tokenizers")
        self.special = special

    def run(self, docs, clock):
        with clock:
            encodings = self.call(docs, add_special_tokens=self.special)
        return _flat([np.asarray(e.ids, dtype=np.uint32) for e in encodings])


class GigatokenEngine:
    """One thread: backend.encode(doc) per document; N threads: encode_batch_padded(...,
    parallel=True) (its list-free forms).  Its pool is rayon's (RAYON_NUM_THREADS)."""

    def __init__(self, path: str, special: bool, threads: int):
        gigatoken = _import("gigatoken")
        try:
            self.tok = gigatoken.Tokenizer(path).backend
            self.pad = gigatoken.gigatoken_rs.PadTruncate(0)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.version = _version(gigatoken, "gigatoken")
        self.threads = threads

    def run(self, docs, clock):
        if self.threads == 1:
            out, encode = [], self.tok.encode
            for d in docs:
                with clock:
                    a = encode(d)
                out.append(a)
            return _flat(out)
        with clock:
            matrix, lengths = self.tok.encode_batch_padded(docs, self.pad, parallel=True)
        return _flat([row[:n] for row, n in zip(matrix, lengths)])


class FastokensEngine:
    """encode_batch_flat -> (uint32 ids bytes, uint64 offsets bytes); threads from
    FASTOKENS_BPE_THREADS."""

    def __init__(self, path: str, special: bool, threads: int):
        fastokens = _import("fastokens")
        try:
            self.tok = fastokens.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.version = _version(fastokens, "fastokens")
        self.special = special

    def run(self, docs, clock):
        with clock:
            ids, offsets = self.tok.encode_batch_flat(docs, add_special_tokens=self.special)
        return np.frombuffer(ids, dtype=np.uint32), np.frombuffer(offsets, dtype=np.uint64).astype(np.int64)


def byte_level_alphabet() -> dict[str, int]:
    """Byte-level BPE's printable stand-ins: vocabulary character -> the byte it stands for
    (the inverse of tagpipe.pretokenizer.BYTE_CHARS)."""
    from tagpipe.pretokenizer import BYTE_CHARS

    return {c: b for b, c in enumerate(BYTE_CHARS)}


GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def tiktoken_encoding(path: str):
    """A tiktoken Encoding that gives the same ids as a tokenizer.json, when the model is a
    plain byte-level BPE (no normalizer, one split regex) whose merges come in id order; else
    Skip("n/a ...")."""
    import json

    tiktoken = _import("tiktoken")
    spec = json.loads(Path(path).read_text(encoding="utf-8"))
    model, pre = spec.get("model") or {}, spec.get("pre_tokenizer") or {}
    if (model.get("type", "BPE") != "BPE" or spec.get("normalizer") or model.get("byte_fallback")
            or model.get("dropout") or model.get("continuing_subword_prefix")
            or model.get("end_of_word_suffix")):
        raise Skip("n/a (not a plain byte-level BPE without normalizer)")
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    if (len(steps) == 1 and steps[0].get("type") == "ByteLevel" and steps[0].get("use_regex", True)
            and not steps[0].get("add_prefix_space")):
        pattern = GPT2_SPLIT
    elif (len(steps) == 2 and steps[0].get("type") == "Split" and "Regex" in (steps[0].get("pattern") or {})
          # tiktoken keeps the matches of its regex and drops the text between them
          and (steps[0].get("behavior"), bool(steps[0].get("invert"))) in {("Isolated", False), ("Removed", True)}
          and steps[1].get("type") == "ByteLevel" and not steps[1].get("use_regex", True)
          and not steps[1].get("add_prefix_space")):
        pattern = steps[0]["pattern"]["Regex"]
    else:
        raise Skip("n/a (the pre-tokenizer is not one regex + byte-level)")
    added = spec.get("added_tokens") or []
    if any(t.get("lstrip") or t.get("rstrip") or t.get("single_word") for t in added):
        raise Skip("n/a (added tokens with lstrip/rstrip/single_word)")
    # added tokens are matched in the text first, as tiktoken does with its special tokens
    specials = {t["content"]: t["id"] for t in added}
    vocab = model.get("vocab") or {}
    alphabet = byte_level_alphabet()
    try:
        ranks = {bytes(alphabet[c] for c in token): i for token, i in vocab.items() if token not in specials}
    except KeyError:
        raise Skip("n/a (the vocabulary is not in the byte-level alphabet)") from None
    # tiktoken merges by the rank (= id) of the result, tokenizers by the merge's position:
    # the same when new results come in id order (later merges that make a token again, as
    # in vocabularies converted from tiktoken, are its other splits)
    last, seen = -1, set()
    for merge in model.get("merges") or []:
        a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
        i = vocab.get(a + b)
        if i is None or (i <= last and i not in seen):
            raise Skip("n/a (the merges are not in id order)")
        last = max(last, i)
        seen.add(i)
    try:
        return tiktoken.Encoding(f"tagpipe-bench:{path}", pat_str=pattern, mergeable_ranks=ranks,
                                 special_tokens=specials)
    except Exception as e:  # noqa: BLE001
        raise _cannot_load(e) from None


class TiktokenEngine:
    """encode_to_numpy per document; over a thread pool of N for N threads (as tiktoken's own
    encode_batch does)."""

    def __init__(self, path: str, special: bool, threads: int):
        self.enc = tiktoken_encoding(path)
        self.version = _version(sys.modules["tiktoken"], "tiktoken")
        self.pool = None
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(threads)

    def one(self, doc):
        return self.enc.encode_to_numpy(doc, allowed_special="all")

    def run(self, docs, clock):
        if self.pool is None:
            out, one = [], self.one
            for d in docs:
                with clock:
                    a = one(d)
                out.append(a)
        else:
            with clock:
                out = list(self.pool.map(self.one, docs))
        return _flat(out)


IMPLS = {"tagpipe": TagpipeEngine, "tokenizers": TokenizersEngine, "gigatoken": GigatokenEngine,
         "fastokens": FastokensEngine, "tiktoken": TiktokenEngine}


def worker_main() -> int:
    """Serve pickled requests from stdin, replies pickled on the original stdout (whatever
    the libraries print goes to stderr):
        ("load", engine, path, special, threads) -> ("ok", version) | ("skip", why)
        ("docs", documents)                      -> ("ok",)
        ("run", start, stop)                     -> ("ok", ids, offsets, ns) | ("error", why)
        ("quit",)"""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    engine, docs = None, []
    while True:
        try:
            msg = pickle.load(inp)
        except EOFError:
            return 0
        try:
            if msg[0] == "quit":
                return 0
            if msg[0] == "load":
                _, kind, path, special, threads = msg
                try:
                    engine = IMPLS[kind](path, special, threads)
                    reply: tuple = ("ok", engine.version)
                except Skip as e:
                    reply = ("skip", str(e))
            elif msg[0] == "docs":
                docs = msg[1]
                reply = ("ok",)
            elif msg[0] == "run":
                clock = Clock()
                ids, offsets = engine.run(docs[msg[1]:msg[2]], clock)
                reply = ("ok", ids, offsets, clock.ns)
            else:
                reply = ("error", f"unknown request {msg[0]!r}")
        except Exception as e:  # noqa: BLE001 - reported in the table, never fatal
            reply = ("error", f"{type(e).__name__}: {str(e)[:300]}")
        pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


# ----------------------------------------------------------------------------------------
# Parent side.
# ----------------------------------------------------------------------------------------

def _worker_env(threads: int) -> dict[str, str]:
    import tagpipe

    env = dict(os.environ)
    for var in ("FASTOKENS_INPUT_CACHE", "FASTOKENS_SEGMENT_CACHE"):  # the peers' opt-in input caches
        env.pop(var, None)
    env.update(RAYON_NUM_THREADS=str(threads), FASTOKENS_BPE_THREADS=str(threads))
    if threads == 1:
        env["TOKENIZERS_PARALLELISM"] = "false"
    else:
        env.pop("TOKENIZERS_PARALLELISM", None)
    # the worker imports the tagpipe this process imported (after anything on PYTHONPATH)
    home = str(Path(tagpipe.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), home) if p)
    return env


class Worker:
    """One engine at one thread count, in a process of its own (`python -m tagpipe.benchmark
    --worker`).  Requests never raise: a dead worker answers ("error", why)."""

    def __init__(self, engine: str, threads: int, cwd: str):
        self.engine, self.threads = engine, threads
        self.proc = subprocess.Popen([sys.executable, "-m", "tagpipe.benchmark", "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=_worker_env(threads), cwd=cwd)

    def send(self, *msg) -> None:
        try:
            pickle.dump(msg, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # receive() reports it

    def receive(self) -> tuple:
        try:
            return pickle.load(self.proc.stdout)
        except (EOFError, pickle.UnpicklingError, OSError) as e:
            try:
                code = self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            return ("error", f"its process died ({type(e).__name__}, exit code {code})")

    def call(self, *msg) -> tuple:
        self.send(*msg)
        return self.receive()

    def load(self, path: str, special: bool) -> tuple:
        return self.call("load", self.engine, path, special, self.threads)

    def run(self, start: int, stop: int) -> tuple:
        return self.call("run", start, stop)

    def close(self) -> None:
        self.send("quit")
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


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
    """The ids of tokenizers (in this process, untimed) for every document, flat."""

    def __init__(self, path: str, docs: list[str], special: bool):
        import tokenizers

        tok = tokenizers.Tokenizer.from_file(path)
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
        want_offsets = self.offsets[start:stop + 1] - self.offsets[start]
        want = self.ids[self.offsets[start]:self.offsets[stop]]
        if np.array_equal(offsets, want_offsets) and np.array_equal(ids, want):
            return None
        for i in range(n):
            got = np.asarray(ids[offsets[i]:offsets[i + 1]])
            exp = self.ids[self.offsets[start + i]:self.offsets[start + i + 1]]
            if not np.array_equal(got, exp):
                k = min(len(got), len(exp))
                j = next((x for x in range(k) if got[x] != exp[x]), k)
                return start + i, (f"{len(got)} ids, expected {len(exp)}; first difference at id {j}: "
                                   f"{got[j:j + 3].tolist()} vs {exp[j:j + 3].tolist()}")
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
            ratio = "—" if ours is None or r.mismatch or r.status else \
                f"{_median([a / b for a, b in zip(ours.mbps, r.mbps)]):.2f}×"
            ids = ("MISMATCH" if r.mismatch else "✓") + (f"; {r.status}" if r.status else "")
            lines.append(f"| {r.engine} | {t} | {_fmt(mb)}{bad} | {_fmt(tk, 2)}{bad} | {ratio} | "
                         f"{_fmt(min(r.mbps))}–{_fmt(max(r.mbps))} | {ids} |")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default="bundled",
                        help='a tokenizer.json, a directory holding one, or "bundled" (default)')
    parser.add_argument("files", nargs="*",
                        help="UTF-8 text files, cut into ~10 kB documents (default: the Python "
                             "standard library's source)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="threads for the all-cores rows (default: every core, %(default)s here)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds, each on fresh text (default 3)")
    parser.add_argument("--megabytes", type=float, default=None,
                        help=f"text to use: of the bundled text (default {DEFAULT_MEGABYTES:g}), "
                             "or at most this much of FILES (default: all of them)")
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=ENGINES, metavar="ENGINE",
                        help="engines to time, of: " + " ".join(ENGINES) + " (default: all; those "
                             "not installed are reported as such)")
    parser.add_argument("--no-special", action="store_true", help="add_special_tokens=False (default True)")


def _slices(n: int, rounds: int) -> tuple[list[int], tuple[int, int], list[tuple[int, int]]]:
    """For n documents: the order to send them in (the warm-up documents, then one fresh
    set per round, each taking every `rounds`-th document, so that the rounds are alike and
    comparable), the warm-up slice and the rounds' slices of that order."""
    warm = max(1, min(10, n // (4 * (rounds + 1))))
    per = (n - warm) // rounds
    rest = range(warm, warm + per * rounds)
    order = list(range(warm)) + [i for r in range(rounds) for i in rest[r::rounds]]
    return order, (0, warm), [(warm + r * per, warm + (r + 1) * per) for r in range(rounds)]


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (OSError, ValueError) as err:
        print(f"tagpipe bench: {err}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from tagpipe.cli import load_model, stdlib_documents

    if args.rounds < 1 or args.threads < 1:
        raise ValueError("--rounds and --threads must be at least 1")
    kinds = [e for e in ENGINES if e in args.engines]
    special = not args.no_special
    tok, name = load_model(args.model)

    # the text
    if args.files:
        docs, where = file_documents(args.files, args.megabytes)
        if len(docs) < args.rounds + 1:  # a small text: smaller documents, so every round has fresh ones
            total = sum(len(d.encode("utf-8")) for d in docs)
            docs, where = file_documents(args.files, args.megabytes, max(64, total // (4 * (args.rounds + 1))))
        what = ", ".join(args.files)
    else:
        megabytes = args.megabytes or DEFAULT_MEGABYTES
        docs = stdlib_documents(megabytes)
        where = [""] * len(docs)
        what = "the Python standard library's source (the bundled default text)"
    if len(docs) < args.rounds + 1:
        raise ValueError(f"the text makes {len(docs)} documents: too little for a warm-up and "
                         f"{args.rounds} fresh rounds (give more text or fewer --rounds)")
    order, warm, rounds = _slices(len(docs), args.rounds)
    docs = [docs[i] for i in order]
    where = [f"document {i}" + (f", {where[i]}" if where[i] else "") for i in order]
    sizes = np.array([len(d.encode("utf-8")) for d in docs], dtype=np.int64)
    thread_counts = [1] if args.threads == 1 else [1, args.threads]

    print(f"tagpipe bench: {name}")
    print(f"Text: {sizes.sum() / 1e6:.2f} MB of {what}, {len(docs)} documents of ~"
          f"{int(np.median(sizes)):,} bytes; add_special_tokens={special}")
    print(f"Warm-up on {warm[1]} documents, then {args.rounds} timed round{'s' * (args.rounds > 1)} of "
          f"{rounds[0][1] - rounds[0][0]} fresh documents (~{sizes[rounds[0][0]:rounds[0][1]].sum() / 1e6:.2f} MB) "
          f"each; threads: {' and '.join(map(str, thread_counts))} ({os.cpu_count()} cores here)")
    if not tok.native:
        print("Note: tagpipe hands this tokenizer to tokenizers (delegation), so its rows time "
              "that; `tagpipe explain MODEL` says why")
    sys.stdout.flush()

    with tempfile.TemporaryDirectory(prefix="tagpipe-bench-") as tmp:
        if args.model == "bundled":
            path = str(Path(tmp) / "tokenizer.json")
            Path(path).write_text(tok.to_str(), encoding="utf-8")
        else:
            path = Path(args.model)
            path = str((path / "tokenizer.json" if path.is_dir() else path).resolve())
        adds = tok.encode("Hello world", add_special_tokens=True) != tok.encode("Hello world", add_special_tokens=False)

        results = [Result(k, t) for t in thread_counts for k in kinds]
        workers: dict[int, Worker] = {}
        try:
            for i, r in enumerate(results):
                if special and adds and not ADDS_SPECIAL_TOKENS[r.engine]:
                    r.status = "n/a (cannot add the special tokens; try --no-special)"
                else:
                    workers[i] = Worker(r.engine, r.threads, tmp)
            for i, w in workers.items():  # the processes load at the same time
                w.send("load", w.engine, path, special, w.threads)
            for i, w in list(workers.items()):
                reply = w.receive()
                if reply[0] == "ok":
                    results[i].version = reply[1]
                    reply = w.call("docs", docs)
                if reply[0] != "ok":
                    results[i].status = reply[1]
                    w.close()
                    del workers[i]

            try:
                ref: Optional[Reference] = Reference(path, docs, special)
            except ImportError:
                ref = None
            except Exception as e:  # noqa: BLE001
                print(f"tokenizers cannot load this tokenizer ({type(e).__name__}: {e}): ids not verified")
                ref = None

            def one(i: int, start: int, stop: int, timed: bool) -> None:
                r = results[i]
                if r.status:  # broke in an earlier run
                    return
                reply = workers[i].run(start, stop)
                if reply[0] != "ok":
                    r.status = "error: " + reply[1]
                    return
                _, ids, offsets, ns = reply
                r.runs += 1
                if ref is not None and r.mismatch is None:
                    problem = ref.check(start, stop, ids, offsets)
                    if problem:
                        d, what_ = problem
                        r.mismatch = f"{r.engine}, {r.threads} thread{'s' * (r.threads > 1)}: {where[d]}: {what_}"
                if timed:
                    seconds = max(ns, 1) / 1e9
                    tokens = ref.tokens(start, stop) if ref is not None and not r.mismatch else len(ids)
                    r.mbps.append(sizes[start:stop].sum() / seconds / 1e6)
                    r.tokps.append(tokens / seconds / 1e6)

            order = list(workers)
            for i in order:
                one(i, *warm, timed=False)
            for n, (start, stop) in enumerate(rounds):
                if sys.stderr.isatty():
                    print(f"  round {n + 1}/{len(rounds)}", end="\r", file=sys.stderr, flush=True)
                k = n % len(order) if order else 0
                for i in order[k:] + order[:k]:
                    one(i, start, stop, timed=True)
            if sys.stderr.isatty():
                print(" " * 20, end="\r", file=sys.stderr, flush=True)
        finally:
            for w in workers.values():
                w.close()

    versions = [r.version for r in results if r.version and r.threads == 1] or [r.version for r in results if r.version]
    print("Engines: " + ", ".join(dict.fromkeys(versions)) + "\n")
    print(report(results, thread_counts))
    print()
    status = 0
    for r in results:
        if r.mismatch:
            print(f"MISMATCH: {r.mismatch}")
            status = 1
    broken = [r for r in results if r.engine == "tagpipe" and r.status]
    for r in broken:
        print(f"tagpipe, {r.threads} thread{'s' * (r.threads > 1)}: {r.status}")
        status = 1
    if ref is None:
        print("ids NOT verified: tokenizers is not installed or cannot load this tokenizer "
              "(pip install tokenizers)")
    elif status == 0:
        runs = sum(r.runs for r in results)
        print(f"ids verified: {len(docs)} documents, document by document against {ref.version}, "
              f"in each of the {runs} runs (warm-up and timed) of the engines above")
    return status


def main(argv: Optional[list[str]] = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--worker"]:
        return worker_main()
    ap = argparse.ArgumentParser(prog="tagpipe bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap)
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
