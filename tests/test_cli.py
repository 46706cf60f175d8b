"""The command line and the bundled GPT-2 (these run without ../shared)."""

from __future__ import annotations

import os

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe
from tagpipe import cli


@pytest.fixture(scope="module")
def bundled():
    text = cli.bundled_tokenizer_json()
    return tagpipe.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)


def test_bundled_gpt2_is_native_and_exact(bundled):
    tok, oracle = bundled
    assert tok.native, tok.explain()
    for text in [cli.sample_text(), cli.SENTENCE, "", " ", "<|endoftext|>x<|endoftext|>", "  \n\t 123456 '"]:
        assert tok.encode(text) == oracle.encode(text).ids, text
    docs = cli.stdlib_documents(0.3)
    assert len(docs) > 10
    assert tok.encode_batch(docs) == [e.ids for e in oracle.encode_batch(docs)]


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=80))
def test_bundled_gpt2_generated(bundled, text):
    tok, oracle = bundled
    assert tok.encode(text) == oracle.encode(text).ids


def test_demo_checks_its_ids(capsys):
    assert cli.main(["demo", "--megabytes", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "MB/s" in out and "run natively by tagpipe" in out
    # both thread rows, over the same text, each against tokenizers on that text
    assert "tagpipe     1 thread " in out and "tokenizers  1 thread " in out
    if (os.cpu_count() or 1) > 1:
        assert f"tagpipe     {os.cpu_count()} threads (every core)" in out
    checked = out.split("ids identical on ")[1].split()
    assert checked[0] == checked[2] and int(checked[0]) > 0


def test_explain(tmp_path, capsys):
    path = tmp_path / "tokenizer.json"
    path.write_text(cli.bundled_tokenizer_json(), encoding="utf-8")
    assert cli.main(["explain", str(path)]) == 0
    assert "pre_tokenizer" in capsys.readouterr().out
