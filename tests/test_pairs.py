"""Tokenizer.encode_batch_pairs: ids, type ids, special-tokens and attention masks equal to
tokenizers' ``encode_batch`` of the same texts or pairs, under delegation_disabled() -- on the
fixtures (corpora, hypothesis text), and over every short length x truncation x padding for
each post-processor form (tagpipe.plan.pairs)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe

from support import strategies as S
from support.data import SHARED, needs_shared
from support.layouts import PADDINGS, PROCESSORS, TRUNCATIONS, WORDS, assert_rows, small_doc

MODELS = ["bert-wiki", "all-minilm-l6-v2", "roberta-base", "gpt2", "llama2", "llama3", "t5-small"]
# (NFC: a text that is not NFC-inert is delegated -- its sequence spliced in from the oracle)
SPLICED = ["qwen3"]


def load(name: str) -> str:
    return (SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8")


def assert_same(tok: tagpipe.Tokenizer, oracle, texts, pairs, add_special=True, strict=True) -> None:
    """tagpipe's rows equal the oracle's encodings, field by field (or both raise)."""
    assert_rows(tok, oracle, texts, pairs, add_special, strict)


@needs_shared
@pytest.mark.parametrize("name", MODELS + SPLICED)
def test_fixtures_on_the_corpora(name):
    text = load(name)
    tok, oracle = tagpipe.Tokenizer(text), tokenizers.Tokenizer.from_str(text)
    docs = [d.text for d in S.corpus_documents(24, seed=3)] + ["", " ", "[SEP] <s> </s> x"]
    pairs = docs[::-1]
    for add in (True, False):
        assert_same(tok, oracle, docs, pairs, add, strict=name not in SPLICED)
        assert_same(tok, oracle, docs, None, add, strict=name not in SPLICED)


@needs_shared
@pytest.mark.parametrize("name", ["bert-wiki", "roberta-base", "llama2", "t5-small"])
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(S.text(12), S.text(12)), min_size=1, max_size=4), st.booleans())
def test_hypothesis_pairs(name, rows, add):
    text = load(name)
    tok, oracle = _cached(text)
    a, b = (list(x) for x in zip(*rows))
    # (t5's NFKC: a text that is not NFKC-inert is delegated per text, its sequence spliced in)
    assert_same(tok, oracle, a, b, add, strict=name != "t5-small")


_CACHE: dict = {}


def _cached(text: str):
    if text not in _CACHE:
        _CACHE[text] = (tagpipe.Tokenizer(text), tokenizers.Tokenizer.from_str(text))
    return _CACHE[text]


# -- every form x every short truncation and padding -------------------------------------------


@pytest.mark.parametrize("processor", sorted(PROCESSORS))
def test_every_short_truncation_and_padding(processor):
    """Every (n1, n2) up to 9 ids x max_length x strategy x direction x stride x padding, each
    row alone (an error of the oracle is raised by it: asked again) and as one batch."""
    doc = small_doc()
    doc["post_processor"] = PROCESSORS[processor]
    firsts, seconds = (list(x) for x in zip(*itertools.product(WORDS, repeat=2)))
    for trunc, pad in itertools.product(TRUNCATIONS, PADDINGS):
        doc["truncation"], doc["padding"] = trunc, pad
        text = json.dumps(doc)
        tok, oracle = tagpipe.Tokenizer(text), tokenizers.Tokenizer.from_str(text)
        assert tok.native and not tok.explain_pairs()
        for add in (True, False):
            assert_same(tok, oracle, firsts, seconds, add)
            assert_same(tok, oracle, firsts, None, add)
            for a, b in zip(firsts[::5], seconds[::5]):
                assert_same(tok, oracle, [a], [b], add)


def test_encodings_api():
    doc = small_doc()
    doc["post_processor"] = PROCESSORS["bert"]
    doc["padding"] = PADDINGS[1] | {"direction": "Right", "pad_type_id": 0}
    tok = tagpipe.Tokenizer(json.dumps(doc))
    enc = tok.encode_batch_pairs(["a b", "a"], ["b", "b b a"])
    assert len(enc) == 2 and enc.lengths.tolist() == [7, 7]
    assert enc[0].ids == [1, 3, 4, 2, 4, 2, 0] and enc[0].type_ids == [0, 0, 0, 0, 1, 1, 0]
    assert enc[-1].special_tokens_mask == [1, 0, 1, 0, 0, 0, 1] and enc[1].attention_mask == [1] * 7
    arrays = enc.to_numpy()
    assert arrays["ids"].shape == (2, 7) and arrays["ids"].dtype == np.int64
    assert tok.encode_pair("a", "b") == tok.encode_batch_pairs(["a"], ["b"])[0]
    assert tok.encode_pair("a").ids == [1, 3, 2]
    with pytest.raises(IndexError):
        enc[2]
    with pytest.raises(ValueError, match="2 texts but 1 pairs"):
        tok.encode_batch_pairs(["a", "b"], ["c"])
    ragged = tagpipe.Tokenizer(json.dumps(doc | {"padding": None}))
    with pytest.raises(ValueError, match="row 1 has"):
        ragged.encode_batch_pairs(["a", "a b"]).to_numpy()
