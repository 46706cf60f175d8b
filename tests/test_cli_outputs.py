"""`tagpipe encode -o OUT` never destroys data: an output that is (through links) an input or
the model is refused, two runs to one output name cannot mix their files (a lock, and a
manifest that names the exact files it describes), `-o dir/` is refused, and the temporary
files of a killed run are removed by the next run to the same name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import tokenizers

from tagpipe import cli
from tagpipe.cli import tokenfile

GPT2 = cli.bundled_tokenizer_json()


@pytest.fixture(scope="module")
def oracle():
    return tokenizers.Tokenizer.from_str(GPT2)


def run(*argv) -> int:
    return cli.main(["encode", *map(str, argv)])


def cmd(*argv) -> list[str]:
    """`tagpipe encode ...` in a process of its own (the tagpipe this test imports)."""
    return [
        sys.executable,
        "-c",
        "import sys; from tagpipe.cli import main; sys.exit(main())",
        "encode",
        *map(str, argv),
    ]


def snapshot(d) -> dict:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file() and not p.is_symlink()}


# -- an output that is an input or the model ---------------------------------------------------


@pytest.mark.parametrize(
    "input_name, out",
    [
        ("data.json", "data"),  # the manifest would replace the input
        ("data.json", "data.json"),
        ("t.bin", "t"),  # the ids would
        ("t.bin", "t.bin"),
        ("t.idx", "t"),  # the index would
        ("t.npy", "t.npy"),  # --format npy by name
        ("t.idx.npy", "t.npy"),
    ],
)
def test_an_output_that_is_an_input_is_refused(tmp_path, monkeypatch, capsys, input_name, out):
    src = tmp_path / input_name
    src.write_text("Some text that must survive.\n", encoding="utf-8")
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run("bundled", input_name, "-o", out, "--errors", "replace") == 2
    err = capsys.readouterr().err
    assert f"is the input '{input_name}'" in err and "choose another -o" in err, err
    assert snapshot(tmp_path) == before  # nothing written, nothing left behind


def test_links_are_resolved(tmp_path, capsys):
    """Through a symlinked directory, and a symlink named like an output."""
    (tmp_path / "data.json").write_text('{"text": "keep me"}\n', encoding="utf-8")
    (tmp_path / "here").symlink_to(tmp_path)
    before = snapshot(tmp_path)
    assert run("bundled", tmp_path / "data.json", "-o", tmp_path / "here" / "data") == 2
    assert "is the input" in capsys.readouterr().err
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.bin").symlink_to(tmp_path / "data.json")
    assert run("bundled", tmp_path / "data.json", "-o", tmp_path / "sub" / "x") == 2
    assert "is the input" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_an_output_that_is_the_model_is_refused(tmp_path, capsys):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "tokenizer.json").write_text(GPT2, encoding="utf-8")
    (tmp_path / "a.txt").write_text("hello", encoding="utf-8")
    for model, out in [(model_dir / "tokenizer.json", model_dir / "tokenizer"), (model_dir, model_dir / "tokenizer")]:
        assert run(model, tmp_path / "a.txt", "-o", out) == 2
        assert "is the model" in capsys.readouterr().err
    assert (model_dir / "tokenizer.json").read_text(encoding="utf-8") == GPT2
    assert sorted(p.name for p in model_dir.iterdir()) == ["tokenizer.json"]


# -- -o a directory ----------------------------------------------------------------------------


def test_a_directory_is_not_an_output_name(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("hello", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    for name in (f"{out}/", str(out), f"{tmp_path}/new/"):
        assert run(tmp_path / "a.txt", "-o", name) == 2
        assert "an output name, not a directory" in capsys.readouterr().err
    assert list(out.iterdir()) == []  # no hidden .bin / .idx / .json in it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "out"]
    assert run(tmp_path / "a.txt", "-o", out / "corpus") == 0  # the documented way
    assert sorted(p.name for p in out.iterdir()) == ["corpus.bin", "corpus.idx", "corpus.json"]


# -- two runs to one output name ---------------------------------------------------------------


def test_two_concurrent_runs_cannot_mix_their_files(tmp_path, oracle):
    """Run A holds the output (its input, standard input, stays open); run B to the same name
    is refused while A runs and leaves A's files alone; A's output is complete and checks."""
    (tmp_path / "b.txt").write_text("run B's text, which is longer than A's", encoding="utf-8")
    a = subprocess.Popen(cmd("bundled", "-", "-o", "out"), stdin=subprocess.PIPE, cwd=tmp_path, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 120
        while not (tmp_path / ".out.lock").exists() and time.time() < deadline and a.poll() is None:
            time.sleep(0.02)
        assert (tmp_path / ".out.lock").exists(), "run A never took the lock"
        b = subprocess.run(
            cmd("bundled", "b.txt", "-o", "out"), cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert b.returncode == 2, b.stderr
        assert "another process" in b.stderr and f"pid {a.pid}" in b.stderr, b.stderr
        assert not (tmp_path / "out.bin").exists() and not (tmp_path / "out.json").exists()
        a.stdin.write("run A's text".encode())
        a.stdin.close()
        assert a.wait(timeout=120) == 0, a.stderr.read()
    finally:
        if a.poll() is None:
            a.kill()
    ids, idx, meta = tokenfile.read(str(tmp_path / "out"))
    assert ids.tolist() == oracle.encode("run A's text").ids
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt", "out.bin", "out.idx", "out.json"]  # lock gone


def test_the_manifest_names_the_exact_files(tmp_path, oracle):
    """Two runs' files mixed by hand (what unlocked concurrent renames could leave): the same
    sizes, other ids.  The manifest's sizes and sha256 tell them apart."""
    for name, text in (("a", "one two three"), ("b", "four five six")):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        assert run("bundled", tmp_path / f"{name}.txt", "-o", tmp_path / name) == 0
    meta = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert set(meta["files"]) == {"a.bin", "a.idx"}
    assert meta["files"]["a.bin"]["bytes"] == (tmp_path / "a.bin").stat().st_size
    assert len(meta["files"]["a.bin"]["sha256"]) == 64
    tokenfile.read(str(tmp_path / "a"))  # intact: reads
    assert (tmp_path / "a.bin").stat().st_size == (tmp_path / "b.bin").stat().st_size
    os.replace(tmp_path / "b.bin", tmp_path / "a.bin")  # a.json + a.idx with b's ids
    with pytest.raises(ValueError, match="sha256 is not the one"):
        tokenfile.read(str(tmp_path / "a"))
    tokenfile.read(str(tmp_path / "a"), verify=False)  # sizes only: the same, so it reads
    with open(tmp_path / "a.bin", "ab") as f:
        f.write(b"\0\0")
    with pytest.raises(ValueError, match="size is not the one"):
        tokenfile.read(str(tmp_path / "a"), verify=False)


# -- a killed run's temporary files ------------------------------------------------------------


def test_a_later_run_removes_the_partials_of_a_killed_run(tmp_path, oracle):
    (tmp_path / "a.txt").write_text("after the crash", encoding="utf-8")
    killed = subprocess.Popen(cmd("bundled", "-", "-o", "out"), stdin=subprocess.PIPE, cwd=tmp_path)
    try:
        deadline = time.time() + 120
        while len(list(tmp_path.glob(".out.*.partial-*"))) < 2 and time.time() < deadline and killed.poll() is None:
            time.sleep(0.02)
        killed.stdin.write(b"some text")
        killed.stdin.flush()
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=60)
    stale = sorted(p.name for p in tmp_path.glob(".out.*.partial-*"))
    assert stale == [f".out.bin.partial-{killed.pid}", f".out.idx.partial-{killed.pid}"]
    # a live process's partial (another writer's, say an older tagpipe's) is kept
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        (tmp_path / f".out.json.partial-{live.pid}").write_text("{}")
        assert run("bundled", tmp_path / "a.txt", "-o", tmp_path / "out") == 0
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == [f".out.json.partial-{live.pid}", "a.txt", "out.bin", "out.idx", "out.json"]
    finally:
        live.kill()
        live.wait()
    assert tokenfile.read(str(tmp_path / "out"))[0].tolist() == oracle.encode("after the crash").ids
