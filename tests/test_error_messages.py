"""Errors a user can act on (issue 42, items 7-10): each names the argument, file, item or JSON
path and says what was expected.  A template naming a missing special token, batches that are
not batches, lone surrogates in a batch, a MODEL that is not a tokenizer, a Hub with no
network, a Sequence nested past serde_json's limit."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tokenizers

import tagpipe
from tagpipe import cli
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
    def gen():
        yield "a"

    return {
        "str": "ab",
        "bytes": b"ab",
        "bytearray": bytearray(b"ab"),
        "set": {"a", "b"},
        "frozenset": frozenset({"a"}),
        "dict": {"a": "b"},
        "dict keys": {"a": 1}.keys(),
        "dict values": {"a": "x"}.values(),
        "generator": gen(),
        "iterator": iter(["a", "b"]),
        "map": map(str, "ab"),
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
