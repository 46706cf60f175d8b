"""bench/misses.py, the new-word benchmark: its text holds every word once (none of the
warm-up's), and a tiny run end to end (worker processes, every id verified, rounds pooled)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import REPO, bench_env, needs_shared, run_bench_script


def run_bench(*argv: str):
    return run_bench_script("misses.py", *argv)


# (in a process of its own: bench/ and fuzz/ each have a module named harness)
CHECK = """
import json, sys
sys.path.insert(0, sys.argv[1])
import misses
warm, docs, per_byte = misses.new_word_documents("russian")
words = [w for d in docs for w in d.split(" ")[1:]]
print(json.dumps({"words": len(words), "distinct": len(set(words)),
                  "warm_shared": len(set(words) & {w for d in warm for w in misses.WORD.findall(d)}),
                  "not_words": sum(not misses.WORD.fullmatch(w) for w in words),
                  "per_byte_words": per_byte * sum(len(d.encode()) for d in docs)}))
"""


@needs_shared
def test_every_word_once_and_none_of_the_warm_up():
    out = subprocess.run([sys.executable, "-c", CHECK, str(REPO / "bench")], capture_output=True, text=True,
                         env=bench_env(), cwd=str(REPO / "bench"), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout)
    assert got["words"] == got["distinct"] > 1000
    assert got["warm_shared"] == 0 and got["not_words"] == 0
    assert got["per_byte_words"] == pytest.approx(got["words"])


@needs_shared
def test_a_pooled_run_verifies_every_id():
    out = run_bench("--models", "gpt2", "--corpora", "english", "--engines", "tagpipe",
                    "--rounds", "2", "--repeat", "2")
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    text = out.stdout
    assert re.search(r"^\| english \| \d+ \| [\d.]+ \(\d+\) \| n/a \| n/a \| n/a \|$", text, re.M), text
    line = re.search(r"^- english / tagpipe 1t: (.*)$", text, re.M)
    assert line and len(line.group(1).split(", ")) == 4, text  # two rounds from each run
    assert "VERIFY FAILED" not in text and "NOT VERIFIED" not in text


@needs_shared
def test_rounds_must_be_positive():
    out = run_bench("--rounds", "0")
    assert out.returncode != 0 and "must be at least 1" in out.stderr
