"""Running a bench/ module as its users do, ``python -m bench.<module>``, in a process of its own.

The process (and the worker processes it starts) must import the tagpipe these tests run
against -- the installed package in CI, or a source tree with its built core on
PYTHONPATH -- and the checkout's bench package.  So it starts in an empty directory (the
checkout's root first on sys.path would put its tagpipe/, which has no built core in a
clean clone, before the installed one), with PYTHONPATH naming tagpipe's home first and
the checkout after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import tagpipe

from .data import REPO, SHARED


def bench_env() -> dict[str, str]:
    home = str(Path(tagpipe.__file__).resolve().parent.parent)
    path = [home] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p] + [str(REPO)]
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(dict.fromkeys(path)),
        TAGPIPE_TEST_DATA=str(SHARED),
        OPENBLAS_NUM_THREADS="1",
    )


def run_bench(
    module: str, *argv: str, write: bool = False, env: dict[str, str] = None, timeout: float = 600
) -> subprocess.CompletedProcess:
    """``python -m bench.<module> ARGV`` (with --no-write unless `write`), its output captured."""
    args = [sys.executable, "-m", f"bench.{module}", *argv] + ([] if write else ["--no-write"])
    with tempfile.TemporaryDirectory(prefix="tagpipe-test-bench-") as home:
        return subprocess.run(args, capture_output=True, text=True, env=env or bench_env(), cwd=home, timeout=timeout)
