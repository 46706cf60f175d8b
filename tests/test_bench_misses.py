"""bench.misses, the new-word benchmark: its text holds every word once (none of the
warm-up's), and a tiny run end to end (worker processes, every id verified, rounds pooled)."""

from __future__ import annotations

import re

import pytest

from bench import misses
from support.bench import run_bench
from support.data import needs_shared

pytestmark = pytest.mark.bench


@needs_shared
def test_every_word_once_and_none_of_the_warm_up():
    warm, docs, per_byte = misses.new_word_documents("russian")
    words = [w for d in docs for w in d.split(" ")[1:]]
    assert len(words) == len(set(words)) > 1000
    assert not set(words) & {w for d in warm for w in misses.WORD.findall(d)}
    assert not [w for w in words if not misses.WORD.fullmatch(w)]
    assert per_byte * sum(len(d.encode()) for d in docs) == pytest.approx(len(words))


@needs_shared
def test_a_pooled_run_verifies_every_id():
    out = run_bench(
        "misses", "--models", "gpt2", "--corpora", "english", "--engines", "tagpipe", "--rounds", "2", "--repeat", "2"
    )
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    text = out.stdout
    # (the columns are the engines asked for; no peer, so no ratio)
    assert re.search(r"^\| english \| \d+ \| [\d.]+ \(\d+\) \| n/a \|$", text, re.M), text
    line = re.search(r"^- english / tagpipe 1t: (.*)$", text, re.M)
    assert line and len(line.group(1).split(", ")) == 4, text  # two rounds from each run
    assert "VERIFY FAILED" not in text and "NOT VERIFIED" not in text


@needs_shared
def test_rounds_must_be_positive():
    out = run_bench("misses", "--rounds", "0")
    assert out.returncode != 0 and "must be at least 1" in out.stderr
