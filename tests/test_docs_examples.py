"""docs/distributed.md's per-engine examples run as written, every id checked against
tokenizers (docs/run_examples.py), for each engine installed here."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tagpipe

from support.data import REPO, needs_shared

NEEDS = {"datasets": ["datasets"], "ray": ["ray"], "spark": ["pyspark"]}


def _runnable(engine: str) -> bool:
    if any(importlib.util.find_spec(m) is None for m in NEEDS[engine] + ["pyarrow"]):
        return False
    return engine != "spark" or bool(shutil.which("java") or os.environ.get("JAVA_HOME"))


@needs_shared
@pytest.mark.parametrize("engine", list(NEEDS))
def test_the_documented_example_runs_and_its_ids_are_exact(engine, tmp_path):
    if not _runnable(engine):
        pytest.skip(f"{engine} (or pyarrow, or Java for Spark) is not installed")
    # the examples' processes import the tagpipe these tests run against, from anywhere
    home = str(Path(tagpipe.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p))
    run = subprocess.run(
        [sys.executable, str(REPO / "docs" / "run_examples.py"), "--engines", engine, "--kb", "60"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{engine}: " in run.stdout and "ids equal to tokenizers" in run.stdout, run.stdout
