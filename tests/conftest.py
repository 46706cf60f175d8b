"""pytest hooks.  The tests' shared helpers are the `support` package (tests/support/), not
this file; the data they need is found through TAGPIPE_TEST_DATA (support.data)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tagpipe
from support.data import SHARED, needs_shared  # noqa: F401  (the bench tests' imports, until bench/ is a package)

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    # The checkout's bench/ and fuzz/ packages are imported by their tests.  Appended, not
    # prepended: the tagpipe under test (installed, or a built tree on PYTHONPATH) comes first,
    # never the checkout's tagpipe/, which a clean clone has not built.
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))


def bench_env() -> dict[str, str]:
    """The environment of a bench/ script run by a test (until bench/ is a package)."""
    root = str(Path(tagpipe.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, TAGPIPE_TEST_DATA=str(SHARED), OPENBLAS_NUM_THREADS="1")


def run_bench_script(script: str, *argv: str) -> subprocess.CompletedProcess:
    """bench/<script> with argv and --no-write (see bench_env)."""
    return subprocess.run([sys.executable, str(REPO / "bench" / script), *argv, "--no-write"],
                          capture_output=True, text=True, env=bench_env(), cwd=str(REPO / "bench"), timeout=600)
