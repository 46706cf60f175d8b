"""Errors a user can act on (issue 42, items 7-10): each names the argument, file, item or JSON
path and says what was expected.  A template naming a missing special token, batches that are
not batches, lone surrogates in a batch, a MODEL that is not a tokenizer, a Hub with no
network, a Sequence nested past serde_json's limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import tokenizers

import tagpipe
from tagpipe import cli
from tagpipe.columns import text_column
from tagpipe.spec import TokenizerJsonError

GPT2 = cli.bundled_tokenizer_json()


@pytest.fixture(scope="module")
def gpt2():
    return tagpipe.Tokenizer.from_str(GPT2)


# -- 7: a template naming a special token missing from special_tokens -----------------------


def template_tokenizer(special_tokens: dict) -> str:
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
                "special_tokens": special_tokens,
            },
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2}, "unk_token": "[UNK]"},
        }
    )


def test_template_with_a_missing_special_token():
    """The oracle loads the file and panics (a BaseException) on every encode that adds special
    tokens; without them it encodes.  tagpipe loads it too, says why in explain(), encodes like
    the oracle without special tokens, and with them raises a TokenizerJsonError naming the
    template's JSON path instead of the panic."""
    text = template_tokenizer({})
    oracle = tokenizers.Tokenizer.from_str(text)
    tok = tagpipe.Tokenizer.from_str(text)
    assert "post_processor: TemplateProcessing -> DELEGATED: single[1]: the special token '[SEP]'" in tok.explain()
    texts = ["a b", "b a c", ""]
    assert [tok.encode(t, add_special_tokens=False) for t in texts] == [
        oracle.encode(t, add_special_tokens=False).ids for t in texts
    ]
    assert tok.encode_batch(texts, add_special_tokens=False) == [
        e.ids for e in oracle.encode_batch(texts, add_special_tokens=False)
    ]
    with pytest.raises(BaseException) as panic:  # the oracle: pyo3's PanicException
        oracle.encode("a b")
    assert not isinstance(panic.value, Exception)
    for call in (lambda: tok.encode("a b"), lambda: tok.encode_batch(["a", "b"]), lambda: tok.encode_to_numpy("a")):
        with pytest.raises(TokenizerJsonError) as info:
            call()
        assert info.value.path == "post_processor.single[1]"
        assert "'[SEP]' is not in special_tokens" in str(info.value) and "add_special_tokens=False" in str(info.value)
    # with the token, the template is native and adds it
    fixed = template_tokenizer({"[SEP]": {"id": "[SEP]", "ids": [7], "tokens": ["[SEP]"]}})
    tok = tagpipe.Tokenizer.from_str(fixed)
    assert tok.native and tok.encode("a b") == tokenizers.Tokenizer.from_str(fixed).encode("a b").ids == [0, 1, 7]


# -- 8: what a batch is ------------------------------------------------------------------------


def _not_batches():
    return {
        "str": "ab",
        "bytes": b"ab",
        "bytearray": bytearray(b"ab"),
        "set": {"a", "b"},
        "frozenset": frozenset({"a"}),
        "dict": {"a": "b"},
        "dict keys": {"a": 1}.keys(),
        "dict values": {"a": "x"}.values(),
        "None": None,
        "int": 3,
    }


@pytest.mark.parametrize("kind", list(_not_batches()))
def test_what_the_oracle_refuses_as_a_batch_is_a_type_error(gpt2, kind):
    oracle = tokenizers.Tokenizer.from_str(GPT2)
    with pytest.raises(TypeError):
        oracle.encode_batch(_not_batches()[kind])
    for call in (gpt2.encode_batch, gpt2.encode_batch_flat, gpt2.encode_arrow):
        with pytest.raises(TypeError, match="expected a batch of texts|str items"):
            call(_not_batches()[kind])


def test_iterators_are_read_once_in_their_order(gpt2):
    """A generator, map or iterator has a defined order: tagpipe reads it (the oracle refuses it)."""

    def gen():
        yield from ["a b", "c"]

    want = [gpt2.encode("a b"), gpt2.encode("c")]
    for make in (gen, lambda: iter(["a b", "c"]), lambda: map(str, ["a b", "c"])):
        assert gpt2.encode_batch(make()) == want
        ids, offsets = gpt2.encode_batch_flat(make())
        assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(2)] == want
    with pytest.raises(TypeError, match="str items"):
        gpt2.encode_batch(iter([b"a"]))


def test_sequences_of_texts_stay_accepted(gpt2):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")

    class Texts:  # a sequence by protocol (len and indexing), as the oracle accepts
        def __len__(self):
            return 2

        def __getitem__(self, i):
            if i >= 2:
                raise IndexError(i)
            return ["a b", "c"][i]

    want = [gpt2.encode("a b"), gpt2.encode("c")]
    for batch in (
        ["a b", "c"],
        ("a b", "c"),
        np.array(["a b", "c"]),
        np.array(["a b", "c"], dtype=object),
        pd.Series(["a b", "c"]),
        pa.array(["a b", "c"]),
        pa.chunked_array([["a b"], ["c"]]),
        text_column(pa.array(["a b", "c"])),  # (as the Spark integration passes it on)
        Texts(),
    ):
        assert gpt2.encode_batch(batch) == want, type(batch)
    assert gpt2.encode_batch([]) == [] and gpt2.encode_batch(()) == []


@pytest.mark.parametrize("native", [True, False])
def test_a_lone_surrogate_in_a_batch_names_the_text(gpt2, native):
    tok = gpt2
    if not native:  # a delegated tokenizer (BPE dropout is random: never native)
        j = json.loads(GPT2)
        j["model"]["dropout"] = 0.5
        tok = tagpipe.Tokenizer.from_str(json.dumps(j))
        assert not tok.native, tok.explain()
    batch = ["fine", "also fine", "bad \udc80 here"]
    for call in (tok.encode_batch, tok.encode_batch_flat, tok.encode_arrow, lambda b: tok.encode_batch(np.array(b))):
        with pytest.raises(ValueError, match=r"text 2 of the batch contains a lone surrogate U\+DC80 at index 4"):
            call(batch)


# -- 9: MODEL arguments that are not tokenizers, and the Hub without network --------------------


def test_a_text_file_as_model_says_what_model_is(tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Just some English text.\n", encoding="utf-8")
    b.write_text("More.\n", encoding="utf-8")
    assert cli.main(["encode", str(a), str(b), "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert f"MODEL '{a}': not a tokenizer.json (invalid JSON at line 1 column 1" in err, err
    assert "MODEL is a tokenizer.json, a tokenizer.model, a directory holding one, a Hub id or 'bundled'" in err
    assert f"tagpipe encode bundled {a} {b} -o" in err  # how to say what was meant
    assert cli.main(["explain", str(a)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tagpipe explain: MODEL") and "not a tokenizer.json" in err
    (tmp_path / "manifest.json").write_text('{"format": "bin", "dtype": "<u2"}', encoding="utf-8")
    assert cli.main(["explain", str(tmp_path / "manifest.json")]) == 2
    assert "not a tokenizer.json" in capsys.readouterr().err
    # a broken tokenizer.json is not "not a tokenizer.json": its JSON path is named
    bad = json.loads(GPT2)
    bad["model"]["vocab"]["Ġthe"] = -1
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    assert cli.main(["explain", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert "model.vocab['Ġthe']" in err and "not a tokenizer.json" not in err


def test_a_random_binary_as_model_is_not_a_sentencepiece_model(tmp_path, capsys):
    path = tmp_path / "random.model"
    path.write_bytes(np.random.default_rng(4).integers(0, 256, 3000, dtype=np.uint8).tobytes())
    with pytest.raises(ValueError, match=f"{path}: not a SentencePiece model file \\("):
        tagpipe.from_pretrained(path)
    assert cli.main(["explain", str(path)]) == 2
    assert f"{path}: not a SentencePiece model file" in capsys.readouterr().err
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "tokenizer.model").write_bytes(b"\xff" * 100)
    with pytest.raises(ValueError, match="tokenizer.model: not a SentencePiece model file"):
        tagpipe.from_pretrained(tmp_path / "dir")


def test_the_hub_without_network_fails_fast_and_says_what_to_do(tmp_path):
    """No network (an endpoint that refuses connections, nothing cached): the error comes in
    seconds, not after huggingface_hub's ~25 s of retries per file, and names HF_HUB_OFFLINE
    and local_files_only.  A tokenizer that is in the cache still loads."""
    pytest.importorskip("huggingface_hub")
    script = (
        "import time, tagpipe\n"
        "t = time.time()\n"
        "try:\n"
        "    tagpipe.from_pretrained('acme/never-downloaded')\n"
        "except OSError as e:\n"
        "    print(round(time.time() - t, 1)); print(e)\n"
    )
    env = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "home"))
    env.pop("HF_HUB_OFFLINE", None)
    t0 = time.time()
    r = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    seconds, message = r.stdout.split("\n", 1)
    assert float(seconds) < 10 and time.time() - t0 < 60, (seconds, r.stderr[-2000:])
    assert "acme/never-downloaded: the Hub cannot be reached" in message
    assert "HF_HUB_OFFLINE=1" in message and "local_files_only=True" in message
    assert "Retrying" not in r.stderr  # (huggingface_hub's backoff never started)


def test_the_hub_without_network_still_reads_the_cache(tmp_path):
    """A tokenizer.model cached, no tokenizer.json: the fast path falls back to it."""
    from support.data import SHARED

    if SHARED is None:
        pytest.skip("TAGPIPE_TEST_DATA / ../shared not found")
    import hashlib

    repo = tmp_path / "hub" / "models--acme--llama"
    data = (SHARED / "tokenizers" / "llama2" / "tokenizer.model").read_bytes()
    (repo / "blobs").mkdir(parents=True)
    (repo / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
    snap = repo / "snapshots" / ("1" * 40)
    snap.mkdir(parents=True)
    (snap / "tokenizer.model").symlink_to(repo / "blobs" / hashlib.sha256(data).hexdigest())
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("1" * 40)
    script = "import tagpipe\nprint(tagpipe.from_pretrained('acme/llama').encode('Hello world'))\n"
    env = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:9", HF_HUB_CACHE=str(tmp_path / "hub"))
    env.pop("HF_HUB_OFFLINE", None)
    t0 = time.time()
    r = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[1, 15043, 3186]" and time.time() - t0 < 60


# -- 10: a Sequence nested past serde_json's recursion limit ------------------------------------


def test_deep_nesting_message_is_short():
    j = json.loads(GPT2)
    node = json.dumps(j["pre_tokenizer"])
    for _ in range(10_000):
        node = '{"type": "Sequence", "pretokenizers": [' + node + "]}"
    j["pre_tokenizer"] = None
    text = json.dumps(j).replace('"pre_tokenizer": null', '"pre_tokenizer": ' + node, 1)
    with pytest.raises(Exception):
        tokenizers.Tokenizer.from_str(text)  # the oracle refuses it too
    with pytest.raises(TokenizerJsonError) as info:
        tagpipe.Tokenizer.from_str(text)
    message = str(info.value)
    assert len(message) < 200, message
    assert message.startswith("pre_tokenizer.pretokenizers[0](.pretokenizers[0])×")
    assert "nested more than 127 levels deep" in message and "line 1 column" in message
    repeats = int(message.split("×", 1)[1].split(":", 1)[0])  # the path itself stays whole
    assert info.value.path == "pre_tokenizer" + ".pretokenizers[0]" * (repeats + 1)
    # ordinary paths are left as they are
    assert str(TokenizerJsonError("normalizer.normalizers[0].normalizers[1]", "x")).startswith(
        "normalizer.normalizers[0].normalizers[1]: x"
    )
    four_deep = "pre_tokenizer" + ".pretokenizers[0]" * 4  # short: written out whole
    assert str(TokenizerJsonError(four_deep, "x")) == f"{four_deep}: x"
