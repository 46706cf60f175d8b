"""Tokenizer.profile: every stage named, the miss figures consistent with each other."""

from __future__ import annotations

import gzip
import importlib.resources
import math

import pytest

import tagpipe


@pytest.fixture(scope="module")
def gpt2():
    data = (importlib.resources.files("tagpipe") / "data/gpt2.tokenizer.json.gz").read_bytes()
    return tagpipe.Tokenizer(gzip.decompress(data).decode("utf-8"), cache_bytes=1 << 20)


def test_profile_names_every_stage(gpt2):
    text = "The quick brown fox jumps over the lazy dog; zyxwvutsrq qqqzzzxxx. " * 20
    p = gpt2.profile([text, "héllo 東京"])
    assert set(p) == {"normalize", "split", "model", "miss_rate", "ns_per_miss"}
    assert p["split"] > 0 and p["model"] > 0 and p["normalize"] >= 0
    assert 0 < p["miss_rate"] <= 1  # (the made-up words are no vocabulary string)
    assert p["ns_per_miss"] > 0


def test_no_miss_means_no_time_per_miss(gpt2):
    gpt2.encode("hello world")  # now cached
    p = gpt2.profile(["hello world"])
    assert p["miss_rate"] == 0 and math.isnan(p["ns_per_miss"])
