"""bench.encode, the issues' benchmark: a tiny run end to end (worker processes, every id
verified), --repeat pooling the rounds of new worker processes, and a wrong id caught."""

from __future__ import annotations

import re

import pytest

from bench import encode, worker
from support.bench import run_bench
from support.data import needs_shared

pytestmark = pytest.mark.bench


@needs_shared
def test_repeat_pools_the_rounds_of_new_workers():
    out = run_bench(
        "encode",
        "--models",
        "gpt2",
        "--corpora",
        "english",
        "--engines",
        "tagpipe",
        "tokenizers",
        "--threads",
        "1",
        "--rounds",
        "2",
        "--round-docs",
        "2",
        "--repeat",
        "2",
    )
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    text = out.stdout
    assert text.count("new worker processes, every engine loaded and warmed again") == 2
    assert "2 rounds in each of 2 runs" in text and "the median of all 4" in text
    for engine in ("tagpipe", "tokenizers"):
        line = re.search(rf"^- english / {engine} 1t: (.*?); cores", text, re.M)
        assert line, text
        assert len(line.group(1).split(", ")) == 4  # two rounds from each run
    assert "VERIFY FAILED" not in text and "NOT VERIFIED" not in text
    assert re.search(r"tagpipe kernel \w+", text) and "tagpipe in the workers: tagpipe" in text


@needs_shared
def test_repeat_must_be_positive():
    out = run_bench("encode", "--repeat", "0")
    assert out.returncode != 0 and "--repeat must be at least 1" in out.stderr


class CorruptingWorker(worker.Worker):
    """A real worker whose tokenizers engine has one id altered in its first timed round."""

    corrupted: list[int] = []

    def call(self, *msg):
        reply = super().call(*msg)
        if msg[:2] == ("run", "tokenizers 1t") and reply[0] == "ok":
            self.runs = getattr(self, "runs", 0) + 1
            if self.runs == 2:  # (the first run is the warm-up)
                ids, offsets = reply[1].copy(), reply[2]
                ids[offsets[1] + 2] += 1  # the slice's second document, third id
                CorruptingWorker.corrupted.append(1)
                reply = ("ok", ids) + reply[2:]
        return reply


@needs_shared
def test_a_wrong_id_is_a_mismatch(monkeypatch, capsys):
    monkeypatch.setattr(encode, "Worker", CorruptingWorker)
    CorruptingWorker.corrupted.clear()
    md, cells, ok = encode.run_models(["gpt2"], ["english"], ["tagpipe", "tokenizers"], [1], rounds=1, round_docs=3)
    out = capsys.readouterr().out
    assert not ok and CorruptingWorker.corrupted == [1]
    assert re.search(r"VERIFY FAILED tokenizers 1t / english round 0: document 1: .*first difference at 2", out)
    row = next(line for line in md.splitlines() if line.startswith("| english |"))
    assert row.split(" | ")[1] != "—" and "✗" not in row.split(" | ")[1]  # tagpipe: verified
    assert row.split(" | ")[2].endswith("✗")  # tokenizers: not
    assert "- english / tokenizers 1t: " in md and "NOT VERIFIED" in md
