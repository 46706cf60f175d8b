"""The worker protocol: each engine runs in a process of its own, one per thread count.

Peers fix their thread count per process (fastokens reads FASTOKENS_BPE_THREADS once and by
default splits even a single 10 kB document across all cores; rayon pools read
RAYON_NUM_THREADS once), so every engine -- tagpipe too, so that all are measured alike --
runs in a worker process started for the purpose (`environment`), which it shares with no
other engine (no memory, threads or crash in common): one thread
(RAYON_NUM_THREADS=1, FASTOKENS_BPE_THREADS=1, TOKENIZERS_PARALLELISM=false) or N, the peers'
opt-in input caches (FASTOKENS_INPUT_CACHE / _SEGMENT_CACHE) unset, TAGPIPE_DELEGATION=error.

Requests and replies are pickled through the worker's stdin and original stdout (whatever
the libraries print goes to stderr); documents go in and ids come out untimed:

    ("load", key, kind, path, special, threads) -> ("ok", version) | ("skip", why)
    ("run", key, documents)                     -> ("ok", ids, offsets, ns, cpu_ns,
                                                    threads before loading, threads now)
                                                 | ("error", why)
    ("quit",)

Two checks that one thread is one thread: the CPU time over each timed call (`Clock`), and
the worker's own thread count before loading and after every run.  Before loading anything
the worker writes and frees 256 MiB (`pretouch`).

    python -m bench.worker      (started by `Worker`, never by hand)
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import tagpipe

from bench.drivers import DRIVERS, Clock, Skip, version

PRETOUCH_MIB = 256
BENCH_ROOT = Path(__file__).resolve().parent.parent


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def pretouch(mib: int = PRETOUCH_MIB) -> None:
    """Write `mib` MiB of fresh memory and free it, before the engine loads.  On these VMs a
    page the guest has never touched costs far more the first time than a recycled one, and
    an engine whose tables grow during the rounds would pay for it there (in a process shared
    by two tagpipe tokenizers, llama2 Russian's misses ran 40-85% slower in the first one).
    Every engine then starts on pages the guest has touched."""
    import numpy as np

    blocks = [np.ones(16 << 20, dtype=np.uint8) for _ in range(mib // 16)]
    del blocks


def serve() -> int:
    """The worker's side: answer requests until "quit" or the end of stdin."""
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
        try:
            if msg[0] == "quit":
                return 0
            reply = _answer(msg, engines, threads_at_start)
        except Exception as e:  # noqa: BLE001 - reported in the table, not fatal
            reply = ("error", f"{type(e).__name__}: {str(e)[:300]}")
        pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


def _answer(msg: tuple, engines: dict, threads_at_start: int) -> tuple:
    if msg[0] == "load":
        _, key, kind, path, special, threads = msg
        try:
            engines[key] = DRIVERS[kind](path, special, threads)
        except Skip as e:
            return ("skip", str(e))
        kernel = f", kernel {tagpipe.kernels().active}" if kind.startswith("tagpipe") else ""
        return ("ok", version(kind) + kernel)
    if msg[0] == "run":
        _, key, docs = msg
        clock = Clock()
        ids, offsets = engines[key].run(docs, clock)
        return ("ok", ids, offsets, clock.ns, clock.cpu, threads_at_start, _threads())
    return ("error", f"unknown request {msg[0]!r}")


def python_env() -> dict[str, str]:
    """This environment, with a PYTHONPATH on which a child process finds the tagpipe this
    process runs and the bench package, after anything already on it."""
    env = dict(os.environ)
    home = str(Path(tagpipe.__file__).resolve().parent.parent)
    path = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(path + [home, str(BENCH_ROOT)]))
    return env


def environment(threads: int) -> dict[str, str]:
    """A worker's environment (`python_env`), with the thread settings the engines read once
    per process."""
    env = python_env()
    for var in ("FASTOKENS_INPUT_CACHE", "FASTOKENS_SEGMENT_CACHE"):  # the peers' opt-in input caches
        env.pop(var, None)
    env.update(
        RAYON_NUM_THREADS=str(threads),
        FASTOKENS_BPE_THREADS=str(threads),
        TAGPIPE_DELEGATION="error",
        OPENBLAS_NUM_THREADS="1",
    )
    if threads == 1:
        env["TOKENIZERS_PARALLELISM"] = "false"
    else:
        env.pop("TOKENIZERS_PARALLELISM", None)
    return env


class Worker:
    """The parent's side: one worker process at one thread count.  Requests never raise: a
    dead worker answers ("error", why).  It runs in an empty directory, so that its sys.path
    starts with nothing that could shadow the tagpipe this process imported."""

    def __init__(self, threads: int):
        self.threads = threads
        self.home = tempfile.TemporaryDirectory(prefix="tagpipe-bench-worker-")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environment(threads),
            cwd=self.home.name,
        )

    def send(self, *msg) -> None:
        try:
            pickle.dump(msg, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except OSError:
            pass  # receive() reports it

    def call(self, *msg) -> tuple:
        self.send(*msg)
        return self.receive()

    def receive(self) -> tuple:
        try:
            return pickle.load(self.proc.stdout)
        except (EOFError, pickle.UnpicklingError, OSError) as e:
            try:
                code = self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            return ("error", f"its process died ({type(e).__name__}, exit code {code})")

    def close(self) -> None:
        try:
            pickle.dump(("quit",), self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.home.cleanup()


if __name__ == "__main__":
    sys.exit(serve())
