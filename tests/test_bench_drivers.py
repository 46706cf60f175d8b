"""bench/drivers.py and bench/worker.py: every exact peer of PEERS.md is driven in a worker
process and gives tokenizers' ids on the fixtures it serves (skipped, with the reason, on
the others); engines missing, refusing or crashing are reported, never fatal; the one
add_special_tokens setting every engine can run."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
import tokenizers

from tagpipe import cli

from bench import drivers, encode, harness
from bench.worker import Worker
from support.data import SHARED, needs_shared

pytestmark = pytest.mark.bench

# PEERS.md: what each exact peer serves, of the fixtures below (its other loads may be inexact)
SERVES = {
    "fastokens": {"gpt2", "llama2"},
    "gigatoken": {"gpt2", "gpt-4o", "llama2"},
    "snaptokens": {"gpt2"},
    "splintr": {"gpt2", "gpt-4o", "llama2"},
    "tuetoken": {"gpt2", "gpt-4o", "llama2"},
    "toktok": {"gpt-4o"},
    "nanotoken": {"bert-wiki"},
}
FIXTURES = ["gpt2", "gpt-4o", "llama2", "bert-wiki"]
# The peers are an extra (pip install ".[peers]"); CI installs them and sets this, so there
# a peer that is missing fails instead of skipping.
REQUIRE_PEERS = os.environ.get("TAGPIPE_REQUIRE_PEERS") == "1"


@pytest.fixture(scope="module")
def gpt2_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tokenizer.json"
    path.write_text(cli.bundled_tokenizer_json(), encoding="utf-8")
    return path


def test_every_exact_peer_has_a_driver():
    assert set(SERVES) == set(drivers.PEERS) <= set(drivers.DRIVERS)


@needs_shared
@pytest.mark.parametrize("kind", drivers.PEERS)
def test_peer_is_exact_where_it_serves_and_says_why_not_elsewhere(kind):
    # (the corpora's text: PEERS.md's exactness; some peers do not look for added tokens in the text)
    docs = harness.documents("english")[:2] + harness.documents("chinese")[:1] + ["", "  x \n\n"]
    w = Worker(1)
    try:
        for model in FIXTURES:
            path = harness.tokenizer_path(model)
            adds = harness.Reference(path, True).adds()
            special = drivers.SPECIAL[kind] != "never" or not adds
            reply = w.call("load", model, kind, path, special, 1)
            if reply[0] == "skip" and reply[1].startswith("not installed") and not REQUIRE_PEERS:
                pytest.skip(f"{kind}: {reply[1]} -- or pip install '.[peers]'")
            if reply[0] == "skip":
                assert model not in SERVES[kind], f"{kind} / {model}: {reply[1]}"
                assert reply[1].startswith(("n/a (", "cannot load this tokenizer: ")), reply[1]
                continue
            assert reply[0] == "ok" and reply[1].startswith(drivers.DISTRIBUTIONS.get(kind, kind)), reply
            out = w.call("run", model, docs)
            assert out[0] == "ok", out
            problem = harness.Reference(path, special).check(docs, out[1], out[2])
            assert problem is None or model not in SERVES[kind], f"{kind} / {model}: {problem}"
    finally:
        w.close()


def test_the_special_tokens_setting_every_engine_can_run():
    assert drivers.choose_special(["tagpipe", "gigatoken"], adds=False)[0] is True
    assert drivers.choose_special(["tagpipe", "splintr"], adds=True)[0] is True
    add, why = drivers.choose_special(["tagpipe", "gigatoken", "splintr"], adds=True)
    assert add is False and "gigatoken cannot" in why
    assert drivers.choose_special(["gigatoken"], adds=True, setting="true") == (True, "set with --special")
    assert drivers.cannot_run("gigatoken", True, adds=True).startswith("n/a (cannot add")
    assert drivers.cannot_run("splintr", False, adds=True).startswith("n/a (always adds")
    assert drivers.cannot_run("splintr", False, adds=False) == drivers.cannot_run("tagpipe", True, True) == ""


@needs_shared
def test_missing_refusing_and_crashing_peers_are_reported(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "fakes"
    fake.mkdir()
    (fake / "gigatoken.py").write_text('raise ImportError("not here")\n')
    (fake / "tiktoken.py").write_text(
        "class Encoding:\n    def __init__(self, *a, **k):\n        raise ValueError('refused')\n"
    )
    (fake / "fastokens.py").write_text(
        "import os\nclass Tokenizer:\n    @staticmethod\n    def from_file(path):\n        return Tokenizer()\n"
        "    def encode_batch_flat(self, docs, add_special_tokens):\n        os._exit(3)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(fake))  # the workers import these instead of the real peers
    shared = _shared_with(tmp_path, "gpt2", json.loads(cli.bundled_tokenizer_json()))
    monkeypatch.setenv("TAGPIPE_TEST_DATA", str(shared))
    md, _, ok = encode.run_models(
        ["gpt2"],
        ["english"],
        ["tagpipe", "tokenizers", "gigatoken", "fastokens", "tiktoken"],
        [1],
        rounds=1,
        round_docs=2,
    )
    assert not ok  # (a crashed engine is an error of the run, and named)
    assert "gigatoken 1t: not installed (pip install gigatoken)" in md
    assert "tiktoken 1t: cannot load this tokenizer: ValueError: refused" in md
    assert re.search(r"fastokens 1t: error: its process died \(\w+, exit code 3\)", md), md
    row = next(line for line in md.splitlines() if line.startswith("| english |")).split(" | ")
    assert "✗" not in row[1] and "✗" not in row[2] and row[3] == "error"  # tagpipe, tokenizers, fastokens
    assert "english / tagpipe 1t" in md and "english / tokenizers 1t" in md
    assert not re.search(r"english / (tagpipe|tokenizers) 1t: .*NOT VERIFIED", md)


def _shared_with(tmp_path, name: str, spec: dict):
    """A shared/ folder holding one tokenizer (`spec`) and the real corpora."""
    shared = tmp_path / "shared"
    (shared / "tokenizers" / name).mkdir(parents=True)
    (shared / "tokenizers" / name / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    (shared / "corpora").symlink_to(SHARED / "corpora")
    return shared


@needs_shared
def test_peers_that_cannot_add_special_tokens_are_not_applicable(tmp_path, monkeypatch, capsys):
    spec = json.loads(cli.bundled_tokenizer_json())
    spec["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [50256], "tokens": ["<|endoftext|>"]}},
    }
    monkeypatch.setenv("TAGPIPE_TEST_DATA", str(_shared_with(tmp_path, "gpt2-bos", spec)))
    md, _, ok = encode.run_models(
        ["gpt2-bos"],
        ["english"],
        ["tagpipe", "tokenizers", "gigatoken", "tiktoken"],
        [1],
        rounds=1,
        round_docs=2,
        special="true",
    )
    assert ok
    assert "gigatoken 1t: n/a (cannot add the special tokens)" in md
    assert "tiktoken 1t: n/a (cannot add the special tokens)" in md
    assert "add_special_tokens=True" in md and "english / tagpipe 1t" in md


def test_byte_level_alphabet_and_tiktoken_encoding(gpt2_path):
    alphabet = drivers.byte_level_alphabet()
    assert sorted(alphabet.values()) == list(range(256)) and len(alphabet) == 256
    vocab = json.loads(cli.bundled_tokenizer_json())["model"]["vocab"]
    assert all(ch in vocab for ch in alphabet)  # GPT-2 has every byte as a token
    assert alphabet["Ġ"] == ord(" ") and alphabet["Ċ"] == ord("\n")
    pytest.importorskip("tiktoken")
    enc = drivers.tiktoken_encoding(str(gpt2_path))
    oracle = tokenizers.Tokenizer.from_file(str(gpt2_path))
    for text in [cli.sample_text(), "  héllo\n\n 東京 12345 <|endoftext|>'s"] + cli.stdlib_documents(0.05):
        assert np.array_equal(enc.encode_to_numpy(text, allowed_special="all"), oracle.encode(text).ids)
