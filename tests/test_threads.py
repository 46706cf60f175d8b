"""The native thread pool behind encode_batch: every thread count gives the one-thread ids,
batches from several Python threads at once, and fork() after the pool has started (the
child must not wait for the parent's threads).  Runs without ../shared (bundled GPT-2)."""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from pathlib import Path

import pytest
import tokenizers

import tagpipe
from tagpipe import cli

TIMEOUT = 120


@pytest.fixture(scope="module")
def setup():
    text = cli.bundled_tokenizer_json()
    docs = cli.stdlib_documents(0.4)
    want = [e.ids for e in tokenizers.Tokenizer.from_str(text).encode_batch(docs)]
    return tagpipe.Tokenizer.from_str(text), docs, want


def test_every_thread_count_and_order(setup):
    tok, docs, want = setup
    for threads in (2, 1, 4, 3, 2, 7, 1, 2):  # the pool grows, and serves fewer than it has
        assert tok.encode_batch(docs, num_threads=threads) == want, threads
    assert tok.encode_batch(docs[:1], num_threads=4) == want[:1]
    assert tok.encode_batch([], num_threads=4) == []


def _cpus_allowed() -> dict[int, set[int]]:
    """Each thread of this process: the CPUs it may run on (/proc's list, e.g. "0-3,6")."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                cpus = set()
                for part in line.split(":", 1)[1].strip().split(","):
                    lo, _, hi = part.partition("-")
                    cpus.update(range(int(lo), int(hi or lo) + 1))
                out[int(task.name)] = cpus
    return out


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or not hasattr(os, "sched_getaffinity"),
    reason="Linux: the pool binds its threads to CPUs only there",
)
def test_pool_threads_are_unbound_after_a_batch(setup):
    """The pool binds each of its threads to one CPU for a batch (thread_pool.cpp,
    Placement) and must hand them back free: afterwards every thread of the process may
    use at least what the calling thread may, and the caller is never bound."""
    tok, docs, want = setup
    mask = os.sched_getaffinity(0)
    for threads in (2, 3, 2):
        assert tok.encode_batch(docs, num_threads=threads) == want
        assert os.sched_getaffinity(0) == mask
        bound = {t: c for t, c in _cpus_allowed().items() if not c >= mask}
        assert not bound, (threads, mask, bound)
    if len(mask) > 1:  # a caller limited to one CPU: the pool works there, and is freed
        os.sched_setaffinity(0, {min(mask)})
        try:
            assert tok.encode_batch(docs, num_threads=2) == want
            assert os.sched_getaffinity(0) == {min(mask)}
        finally:
            os.sched_setaffinity(0, mask)
        assert tok.encode_batch(docs, num_threads=2) == want
        bound = {t: c for t, c in _cpus_allowed().items() if not c >= mask}
        assert not bound, (mask, bound)


def test_batches_from_many_python_threads(setup):
    tok, docs, want = setup
    results, errors = {}, []

    def run(k):
        try:
            for r in range(3):
                order = docs[k:] + docs[:k]
                results[(k, r)] = tok.encode_batch(order, num_threads=2 + k % 2) == want[k:] + want[:k]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "deadlock: a batch never finished"
    assert not errors and len(results) == 18 and all(results.values())


def test_fork_after_the_pool_started(setup):
    tok, docs, want = setup
    try:
        import pyarrow as arrow
    except ImportError:
        arrow = None
    assert tok.encode_batch(docs, num_threads=2) == want  # the pool's threads exist now
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "fork() with threads" (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: its own pool, same ids (and through the Arrow path the engines use)
        code = 1
        try:
            code = 0 if tok.encode_batch(docs, num_threads=2) == want else 3
            if code == 0 and arrow is not None:
                code = 0 if tok.encode_arrow(arrow.array(docs), num_threads=2).to_pylist() == want else 4
        finally:
            os._exit(code)
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung in encode_batch")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
    assert tok.encode_batch(docs, num_threads=2) == want  # and the parent's pool still works


def test_pickle_round_trip_in_another_process(setup, tmp_path):
    import pickle
    import subprocess
    import sys

    tok, docs, want = setup
    small = tagpipe.Tokenizer.from_str(tok._json, cache_bytes=1 << 20, metaspace_runs=False)
    data = pickle.dumps(small)
    assert len(data) < len(tok._json.encode()) + 1000  # the JSON and options, nothing more
    again = pickle.loads(data)
    assert again.cache_bytes == 1 << 20 and again.encode_batch(docs) == want
    (tmp_path / "tok.pkl").write_bytes(data)
    script = (
        "import pickle, sys; t = pickle.load(open(sys.argv[1], 'rb')); print(t.encode('Hello world'), t.cache_bytes)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "tok.pkl")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("]")[0] + "]" == str(tok.encode("Hello world")) and out.stdout.split()[-1] == str(1 << 20)


def test_new_caches_do_not_resize_one_in_use(tmp_path):
    """A fresh tokenizer's first batch on two threads: the second thread's new word cache
    shrank the first one's budget -- and cleared it -- while the first thread was using
    it (a crash, mostly with small budgets).  In a subprocess, so a crash is a failure."""
    import subprocess
    import sys

    script = (
        "import tagpipe\nfrom tagpipe import cli\n"
        "text = cli.bundled_tokenizer_json(); docs = cli.stdlib_documents(0.4)\n"
        "want = tagpipe.Tokenizer.from_str(text).encode_batch(docs, num_threads=1)\n"
        "for i in range(10):\n"
        "    tok = tagpipe.Tokenizer.from_str(text, cache_bytes=64 << 10)\n"
        "    assert tok.encode_batch(docs, num_threads=2) == want, i\n"
    )
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            p for p in [str(Path(tagpipe.__file__).parent.parent), os.environ.get("PYTHONPATH", "")] if p
        ),
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
