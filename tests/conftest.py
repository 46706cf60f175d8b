"""Shared test setup.

Tests that need the real tokenizers and corpora find them through one setting:
``TAGPIPE_TEST_DATA`` (the ``shared/`` folder), defaulting to ``../shared`` beside the
checkout.  They run whenever it exists (CI always has it) and skip otherwise.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tagpipe

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path | None:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    path = Path(env) if env else REPO.parent / "shared"
    return path if (path / "corpora").is_dir() else None


SHARED = shared_dir()
CORPORA = sorted((SHARED / "corpora").glob("*.txt")) if SHARED else []
KERNELS = tagpipe.kernels().available
SIMD_KERNELS = [k for k in KERNELS if k != "scalar"]
ALPHABETS = sorted(tagpipe.alphabets())

needs_shared = pytest.mark.skipif(SHARED is None, reason="TAGPIPE_TEST_DATA / ../shared not found")


def bench_env() -> dict[str, str]:
    """The environment of a bench/ script run by a test: it (and its worker processes)
    imports the tagpipe these tests run against -- the installed package in CI, or a source
    tree with its built core on PYTHONPATH; never the checkout's own tagpipe/ for its own
    sake (a clean clone has no _core there: run such a process from bench/, not the root)."""
    root = str(Path(tagpipe.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, TAGPIPE_TEST_DATA=str(SHARED), OPENBLAS_NUM_THREADS="1")


def run_bench_script(script: str, *argv: str) -> subprocess.CompletedProcess:
    """bench/<script> with argv and --no-write (see bench_env)."""
    return subprocess.run([sys.executable, str(REPO / "bench" / script), *argv, "--no-write"],
                          capture_output=True, text=True, env=bench_env(), cwd=str(REPO / "bench"), timeout=600)


def corpus_ids(paths):
    return [p.stem for p in paths]
