"""bench/encode.py, the issues' benchmark: a tiny run end to end (worker processes, every id
verified), and --repeat pooling the rounds of new worker processes."""
from __future__ import annotations

import re

from conftest import needs_shared, run_bench_script


def run_bench(*argv: str):
    return run_bench_script("encode.py", *argv)


@needs_shared
def test_repeat_pools_the_rounds_of_new_workers():
    out = run_bench("--models", "gpt2", "--corpora", "english", "--engines", "tagpipe", "tokenizers",
                    "--threads", "1", "--rounds", "2", "--round-docs", "2", "--repeat", "2")
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    text = out.stdout
    assert text.count("new worker processes, every engine loaded and warmed again") == 2
    assert "2 rounds in each of 2 runs" in text and "the median of all 4" in text
    for engine in ("tagpipe", "tokenizers"):
        line = re.search(rf"^- english / {engine} 1t: (.*?); cores", text, re.M)
        assert line, text
        assert len(line.group(1).split(", ")) == 4  # two rounds from each run
    assert "VERIFY FAILED" not in text and "NOT VERIFIED" not in text


@needs_shared
def test_repeat_must_be_positive():
    out = run_bench("--repeat", "0")
    assert out.returncode != 0 and "--repeat must be at least 1" in out.stderr
