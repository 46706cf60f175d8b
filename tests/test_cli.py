"""The command line and the bundled GPT-2 (these run without ../shared)."""
from __future__ import annotations

import numpy as np
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
    assert "MB/s" in out and "tagpipe: native" in out
    checked = out.split("ids identical on ")[1].split()
    assert checked[0] == checked[2] and int(checked[0]) > 0


def test_encode_files_and_lines(tmp_path, capsys, bundled):
    tok, oracle = bundled
    path = tmp_path / "tokenizer.json"
    path.write_text(cli.bundled_tokenizer_json(), encoding="utf-8")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Hello world\nsecond line\n", encoding="utf-8")
    b.write_text("東京 ünïcode 12345", encoding="utf-8")
    out = tmp_path / "ids.npz"
    assert cli.main(["encode", str(path), str(a), str(b), "-o", str(out)]) == 0
    z = np.load(out)
    ids, offsets = z["ids"], z["offsets"]
    assert len(offsets) == 3
    for i, f in enumerate([a, b]):
        assert ids[offsets[i]:offsets[i + 1]].tolist() == oracle.encode(f.read_text(encoding="utf-8")).ids
    assert cli.main(["encode", str(tmp_path), str(a), "--lines", "-o", str(out)]) == 0
    z = np.load(out)
    assert len(z["offsets"]) == 3
    assert z["ids"][z["offsets"][1]:z["offsets"][2]].tolist() == oracle.encode("second line\n").ids
    assert "2 documents" in capsys.readouterr().err


def test_encode_errors_name_the_problem(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff no")
    with pytest.raises(SystemExit, match="not UTF-8"):
        cli.main(["encode", "bundled", str(bad)])
    assert cli.main(["encode", str(tmp_path / "missing.json"), str(bad)]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_explain(tmp_path, capsys):
    path = tmp_path / "tokenizer.json"
    path.write_text(cli.bundled_tokenizer_json(), encoding="utf-8")
    assert cli.main(["explain", str(path)]) == 0
    assert "pre_tokenizer" in capsys.readouterr().out
