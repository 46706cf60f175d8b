"""`tagpipe bench` (tagpipe/cli/bench.py): offline, on the bundled GPT-2 and tiny texts.
(The peers' drivers and the worker processes are bench/'s: tests/test_bench_drivers.py.)"""

from __future__ import annotations

import argparse
import re

import pytest

from tagpipe import cli
from tagpipe.cli import bench as benchmark


def bench(*argv: str) -> int:
    ap = argparse.ArgumentParser()
    benchmark.add_arguments(ap)
    return benchmark.run(ap.parse_args(list(argv)))


def row(out: str, engine: str, threads: int) -> list[str]:
    """The table row of (engine, threads), as its cells."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] == engine and cells[1] == str(threads):
            return cells
    raise AssertionError(f"no row for {engine} / {threads} in:\n{out}")


@pytest.fixture(scope="module")
def gpt2_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tokenizer.json"
    path.write_text(cli.bundled_tokenizer_json(), encoding="utf-8")
    return path


def test_bundled_default_text_one_and_two_threads(capsys):
    assert bench("--megabytes", "0.2", "--rounds", "2", "--threads", "2", "--engines", "tagpipe", "tokenizers") == 0
    out = capsys.readouterr().out
    assert "the bundled GPT-2" in out and "standard library" in out
    for threads in (1, 2):
        ours, theirs = row(out, "tagpipe", threads), row(out, "tokenizers", threads)
        assert ours[6] == theirs[6] == "✓"
        assert float(ours[2]) > 0 and float(ours[3]) > 0 and ours[4] == "1.00×"
        assert re.fullmatch(r"\d+\.\d\d×", theirs[4])  # tagpipe / tokenizers
        lo, hi = (float(x) for x in theirs[5].split("–"))
        assert lo <= float(theirs[2]) <= hi
    n = int(re.search(r"ids verified: (\d+) documents", out).group(1))
    order, warm, rounds = benchmark._slices(len(cli.stdlib_documents(0.2)), 2)
    assert n == len(order) == rounds[-1][1] > warm[1] > 0  # the warm-up and 2 fresh rounds
    assert "MISMATCH" not in out


def test_explicit_files_and_no_special(tmp_path, gpt2_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"line {i}: naïve café, 東京 {i * 7919}\n" for i in range(1500)), encoding="utf-8")
    b.write_text("<|endoftext|> words  and   spaces\t\n" * 300, encoding="utf-8")
    assert (
        bench(
            str(gpt2_path),
            str(a),
            str(b),
            "--rounds",
            "2",
            "--threads",
            "1",
            "--engines",
            "tagpipe",
            "tokenizers",
            "--no-special",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert str(gpt2_path) in out and str(a) in out and "add_special_tokens=False" in out
    assert row(out, "tagpipe", 1)[6] == "✓" and row(out, "tokenizers", 1)[6] == "✓"
    assert "| tagpipe | 2 |" not in out
    n = int(re.search(r"ids verified: (\d+) documents", out).group(1))
    assert n >= 5


def test_small_file_is_cut_finer_and_tiny_one_refused(tmp_path, capsys):
    small = tmp_path / "small.txt"
    small.write_text("A short text that fits in one document, not four.\n" * 40, encoding="utf-8")
    assert bench("bundled", str(small), "--rounds", "3", "--threads", "1", "--engines", "tagpipe", "tokenizers") == 0
    assert "ids verified" in capsys.readouterr().out
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("hi", encoding="utf-8")
    assert bench("bundled", str(tiny), "--engines", "tagpipe") == 2
    assert "too little" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff no")
    assert bench("bundled", str(bad)) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_cut_documents_at_line_ends_and_characters():
    text = "".join(f"{i} ünïcödé 東京 line\n" for i in range(2000))
    docs = benchmark.cut_documents(text.encode("utf-8"), 1000)
    assert "".join(d for d, _ in docs) == text
    assert all(len(d.encode("utf-8")) <= 1000 for d, _ in docs)
    assert all(d.endswith("\n") for d, _ in docs)
    assert [line for _, line in docs][:2] == [1, docs[0][0].count("\n") + 1]
    solid = "東" * 1000  # no line ends: cut at character boundaries
    docs = benchmark.cut_documents(solid.encode("utf-8"), 100)
    assert "".join(d for d, _ in docs) == solid and [len(d) for d, _ in docs] == [33] * 30 + [10]


class CorruptingEngine(benchmark.TokenizersEngine):
    """A real tokenizers engine with one id altered in its first timed round."""

    runs = 0

    def run(self, docs):
        ids, offsets, ns = super().run(docs)
        CorruptingEngine.runs += 1
        if CorruptingEngine.runs == 2:  # (the first run is the warm-up)
            ids = ids.copy()
            ids[offsets[1] + 2] += 1  # the slice's second document, third id
        return ids, offsets, ns


def test_a_wrong_id_is_a_mismatch(monkeypatch, capsys):
    monkeypatch.setitem(benchmark.IMPLS, "tokenizers", CorruptingEngine)
    CorruptingEngine.runs = 0
    assert bench("--megabytes", "0.2", "--rounds", "1", "--threads", "1", "--engines", "tagpipe", "tokenizers") == 1
    out = capsys.readouterr().out
    assert row(out, "tagpipe", 1)[6] == "✓"
    bad = row(out, "tokenizers", 1)
    assert bad[6] == "MISMATCH" and bad[2].endswith("✗") and bad[4] == "—"
    order, _, rounds = benchmark._slices(len(cli.stdlib_documents(0.2)), 1)
    doc = order[rounds[0][0] + 1]
    assert re.search(rf"^MISMATCH: tokenizers, 1 thread: document {doc}: .*first difference at id 2", out, re.M)
    assert "ids verified" not in out


def test_reference_check_names_the_document():
    docs = ["Hello world", "second one", "", "third <|endoftext|>"]
    ref = benchmark.Reference(cli.bundled_tokenizer_json(), docs, True)
    ids, offsets = ref.ids.copy(), ref.offsets.copy()
    assert ref.check(0, 4, ids, offsets) is None
    assert ref.check(1, 3, ids[offsets[1] : offsets[3]], offsets[1:4] - offsets[1]) is None
    moved = offsets.copy()
    moved[1] += 1  # same ids, other document boundaries
    assert ref.check(0, 4, ids, moved)[0] == 0
    ids[-1] += 1
    assert ref.check(0, 4, ids, offsets)[0] == 3
    assert ref.check(0, 4, ids, offsets[:-1])[1].startswith("3 documents")
