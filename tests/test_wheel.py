"""The release path: `python -m build` makes an sdist and a wheel from the checkout (the wheel
built from the sdist, so the sdist is complete), the wheel installs into a fresh virtual
environment, and there `tagpipe demo` and an id check against tokenizers pass on the bundled
GPT-2: the test-command cibuildwheel runs on every wheel (pyproject.toml).

Offline: the wheel is installed with --no-deps, and the fresh environment reaches its
dependencies (numpy, pydantic, tokenizers) through a .pth file naming this environment's
site-packages, placed after its own, so the wheel's tagpipe is the one imported.  Slow (a
full compile of the core): listed in conftest.py's SLOW, run by --run-slow as in CI."""

from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from support.data import REPO

BUILD_TIMEOUT = 1800  # seconds: a full compile of the core on a busy 2-core machine


def _cibuildwheel_test_commands() -> list[str]:
    """The commands cibuildwheel runs on each wheel it builds (pyproject.toml)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11: pip's copy of the same parser
        from pip._vendor import tomli as tomllib
    with open(REPO / "pyproject.toml", "rb") as f:
        command = tomllib.load(f)["tool"]["cibuildwheel"]["test-command"]
    return [command] if isinstance(command, str) else command


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    run = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert run.returncode == 0, f"{cmd} exited with {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run


def _build(out: Path) -> tuple[Path, Path]:
    if importlib.util.find_spec("build") is None:
        pytest.fail("the `build` package is missing (it is in the test extras: pip install build)")
    out.mkdir(parents=True)
    cmd = [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)]
    # offline when this environment has the build requirements; else pip fetches them
    if all(importlib.util.find_spec(m) for m in ("scikit_build_core", "pybind11")):
        cmd.insert(3, "--no-isolation")
    _run(cmd, timeout=BUILD_TIMEOUT, cwd=out)
    (sdist,) = out.glob("tagpipe-*.tar.gz")
    (wheel,) = out.glob("tagpipe-*.whl")
    return sdist, wheel


def _fresh_venv(where: Path) -> tuple[Path, dict]:
    _run([sys.executable, "-m", "venv", str(where)])
    python = where / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()}
    Path(purelib, "zz_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join([str(where / "bin"), env.get("PATH", "")])
    env["HF_HUB_OFFLINE"] = "1"
    return python, env


def test_the_wheel_installs_and_its_ids_are_exact(tmp_path):
    sdist, wheel = _build(tmp_path / "dist")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    assert any(n.endswith("/cpp/sources.txt") for n in names) and any(n.endswith("/pyproject.toml") for n in names)
    with zipfile.ZipFile(wheel) as zf:
        files = zf.namelist()
    assert "tagpipe/data/gpt2.tokenizer.json.gz" in files, files
    assert [f for f in files if f.startswith("tagpipe/_core") and f.endswith((".so", ".pyd"))], files

    python, env = _fresh_venv(tmp_path / "venv")
    # --ignore-installed: the tagpipe installed in this environment is on the venv's path (the
    # .pth above); pip must install the wheel beside it, neither skip it nor uninstall ours
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", str(wheel)], env=env)
    where = _run([str(python), "-c", "import tagpipe; print(tagpipe.__file__)"], env=env, cwd=tmp_path).stdout
    assert str(tmp_path / "venv") in where, f"imported {where}, not the wheel's tagpipe"

    # what cibuildwheel runs on every wheel: the demo, then every id of the bundled GPT-2
    out = ""
    for command in _cibuildwheel_test_commands():
        out += _run(["sh", "-c", command], env=env, cwd=tmp_path).stdout
    assert "run natively by tagpipe" in out and "ids identical on" in out, out
