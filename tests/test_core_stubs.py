"""tagpipe/_core/*.pyi describe the built extension: mypy's stubtest imports tagpipe._core
(and tagpipe._core.testing) and fails on any name, class or function the stubs miss, add or
get wrong.  tests/core_stubs_allowlist.txt lists what stubtest cannot see, with why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tagpipe


def test_core_stubs_match_the_extension(tmp_path):
    root = Path(tagpipe.__file__).resolve().parent.parent
    allowlist = Path(__file__).resolve().parent / "core_stubs_allowlist.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p))
    if root.name not in ("site-packages", "dist-packages"):  # a source tree (mypy finds installed stubs itself)
        env["MYPYPATH"] = str(root)
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "tagpipe._core", "--allowlist", str(allowlist)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
