"""tagpipe.accelerate on transformers tokenizers: the same input_ids and attention_mask as the
original for single texts, batches, padding and truncation (both sides, tensors), and the
original backend for whatever tagpipe does not serve -- with the path each call took."""

from __future__ import annotations

import pytest

import tagpipe

from support.data import SHARED, needs_shared
from support.hf import PAD, same, samples

transformers = pytest.importorskip("transformers")

CALLS = [
    {},
    {"padding": True},
    {"padding": "longest", "return_tensors": "np"},
    {"padding": "max_length", "max_length": 64, "truncation": True},
    {"truncation": True, "max_length": 5},
    {"truncation": "only_first", "max_length": 2},
    {"truncation": True, "max_length": 16, "padding": True, "pad_to_multiple_of": 8},
    {"add_special_tokens": False, "truncation": True, "max_length": 3, "padding": "max_length"},
    {"return_attention_mask": False, "padding": True},
]


def pair(name):
    path = str(SHARED / "tokenizers" / name / "tokenizer.json")
    a, b = (transformers.PreTrainedTokenizerFast(tokenizer_file=path, pad_token=PAD[name]) for _ in range(2))
    return a, tagpipe.accelerate(b)


@needs_shared
@pytest.mark.parametrize("name", ["gpt2", "llama2", "llama3"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_same_ids_and_masks(name, side):
    original, fast = pair(name)
    for tok in (original, fast):
        tok.truncation_side = tok.padding_side = side
    texts = samples()
    for kw in CALLS:
        assert same(original(texts, **kw), fast(texts, **kw)), kw  # a batch
        assert fast.tagpipe_last_path == "tagpipe", (kw, fast.tagpipe_last_path)
        for t in texts[:8]:  # single texts
            assert same(original(t, **kw), fast(t, **kw)), (kw, t)
    for t in texts:
        assert original.encode(t) == fast.encode(t)
        assert original.encode(t, truncation=True, max_length=4) == fast.encode(t, truncation=True, max_length=4)
    assert fast.tagpipe_stats["original"] == 0


@needs_shared
def test_what_tagpipe_does_not_serve_goes_to_the_original():
    original, fast = pair("gpt2")
    cases = [
        ({"text": ["a", "b"], "is_split_into_words": True}, "is_split_into_words"),
        ({"text": "a <|endoftext|>", "split_special_tokens": True}, "split_special_tokens"),
    ]
    assert fast.tokenize("Hello world") == original.tokenize("Hello world")  # (reads .encodings)
    assert "tokenize()" in fast.tagpipe_last_path
    for kw, why in cases:
        assert same(original(**kw), fast(**kw)), kw
        assert fast.tagpipe_last_path.startswith("original: ") and why in fast.tagpipe_last_path, (
            kw,
            fast.tagpipe_last_path,
        )
    assert fast.tagpipe_stats["original"] == len(cases) + 1


@needs_shared
def test_pairs_type_ids_lengths_offsets_and_overflow_are_served():
    """(They went to the original before tests/test_accelerate_pairs.py's and
    tests/test_accelerate_offsets.py's work.)"""
    original, fast = pair("gpt2")
    cases = [
        {"text": "a b", "text_pair": "c d"},
        {"text": "a b", "return_token_type_ids": True},
        {"text": "a b", "return_length": True},
        {"text": "a b", "return_special_tokens_mask": True},
        {"text": "a b", "return_offsets_mapping": True},
        {"text": "a b c d e", "truncation": True, "max_length": 2, "return_overflowing_tokens": True, "stride": 1},
    ]
    for kw in cases:
        assert same(original(**kw), fast(**kw)), kw
        assert fast.tagpipe_last_path == "tagpipe", (kw, fast.tagpipe_last_path)
    assert fast.tagpipe_stats["original"] == 0


@needs_shared
def test_a_changed_tokenizer_falls_back_until_accelerated_again():
    original, fast = pair("gpt2")
    for tok in (original, fast):
        tok.add_tokens(["<new-token>"])
    text = "x <new-token> y"
    assert fast(text) == original(text) and "changed" in fast.tagpipe_last_path
    tagpipe.accelerate(fast)
    assert fast(text) == original(text) and fast.tagpipe_last_path == "tagpipe"


def test_refuses_what_is_not_a_transformers_tokenizer():
    with pytest.raises(TypeError, match="transformers fast tokenizer"):
        tagpipe.accelerate(object())
