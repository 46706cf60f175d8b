"""tagpipe.accelerate with return_offsets_mapping and return_overflowing_tokens (with stride):
the same BatchEncoding as the unaccelerated transformers tokenizer -- every key (offset_mapping,
overflow_to_sample_mapping, token_type_ids, the masks), type and dtype -- on the fixtures' BERT,
RoBERTa, gpt2, llama2, llama3 and t5 and an AutoTokenizer BERT, single texts, batches and
pairs, both truncation and padding sides; each call took the tagpipe path, with delegation
disabled (t5 aside: a text its NFKC changes goes to the oracle, and its row is spliced in)."""

from __future__ import annotations

import pytest

import tagpipe

from support.data import SHARED, needs_shared
from support.hf import check, hf_tokenizer, same, samples

transformers = pytest.importorskip("transformers")

MODELS = ["bert-wiki", "roberta-base", "gpt2", "llama2", "llama3", "t5-small"]
# (t5-small's NFKC: a text that is not NFKC-inert is delegated, per text)
SPLICED = {"t5-small"}

OFFSETS = {"return_offsets_mapping": True}
OVERFLOW = {"return_overflowing_tokens": True}
CALLS = [
    {**OFFSETS},
    {**OFFSETS, "padding": True, "truncation": True, "max_length": 32, "return_tensors": "np"},
    {**OFFSETS, **OVERFLOW, "truncation": "only_second", "max_length": 40, "stride": 8, "padding": "max_length"},
    {**OFFSETS, **OVERFLOW, "truncation": True, "max_length": 16, "stride": 4, "padding": True, "return_tensors": "np"},
    {**OVERFLOW, "truncation": "longest_first", "max_length": 20, "stride": 2, "return_special_tokens_mask": True},
    {**OFFSETS, **OVERFLOW, "truncation": "only_first", "max_length": 24, "stride": 3, "return_length": True},
    {**OFFSETS, **OVERFLOW, "truncation": True, "max_length": 9, "add_special_tokens": False, "padding": True},
    {**OFFSETS, **OVERFLOW, "return_token_type_ids": True, "padding": True, "pad_to_multiple_of": 8},
]


def accelerated(name):
    return hf_tokenizer(name), tagpipe.accelerate(hf_tokenizer(name))


@needs_shared
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("sides", [("right", "right"), ("left", "left")])
def test_offsets_and_overflow_equal_the_original(name, sides):
    original, fast = accelerated(name)
    for tok in (original, fast):
        tok.truncation_side, tok.padding_side = sides
    strict = name not in SPLICED
    texts = samples(8, seed=4)
    seconds = texts[::-1]
    served = 0
    for kw in CALLS:
        served += check(original, fast, texts, seconds, strict=strict, **kw)  # a batch of pairs
        served += check(original, fast, texts, strict=strict, **kw)  # a batch of single texts
        for a, b in zip(texts[:4], seconds[:4]):
            served += check(original, fast, a, b, strict=strict, **kw)  # one pair
            served += check(original, fast, a, strict=strict, **kw)  # one text: a batch dimension with overflow
    assert served > len(CALLS) * 4


@needs_shared
def test_autotokenizer_bert_offsets():
    """A BERT loaded as users load it (BertTokenizerFast: BertNormalizer, token_type_ids)."""
    path = str(SHARED / "tokenizers" / "all-minilm-l6-v2")
    original = transformers.AutoTokenizer.from_pretrained(path)
    fast = tagpipe.accelerate(transformers.AutoTokenizer.from_pretrained(path))
    texts = samples(8, seed=6)
    for kw in CALLS:
        check(original, fast, texts, strict=True, **kw)
        check(original, fast, texts, texts[::-1], strict=True, **kw)
    kw = {"padding": True, "truncation": True, "return_tensors": "np", "return_offsets_mapping": True}
    assert check(original, fast, texts, strict=True, **kw)
    assert check(original, fast, texts, texts[::-1], strict=True, **kw)


@needs_shared
def test_offsets_that_are_not_native_name_why():
    """A ByteLevel BPE whose offsets are delegated (a continuing_subword_prefix): the original
    backend serves the call, and the path says why."""
    original, fast = accelerated("gpt2")
    for tok in (original, fast):
        tok.backend_tokenizer.model = __import__("tokenizers").models.BPE(
            vocab={"a": 0, "b": 1, "##b": 2}, merges=[], continuing_subword_prefix="##"
        )
    tagpipe.accelerate(fast)
    assert "offsets" in fast._tagpipe.tok.explain()
    assert same(original("ab", **OFFSETS), fast("ab", **OFFSETS))
    assert fast.tagpipe_last_path.startswith("original: return_offsets_mapping: model: BPE")
    assert same(original("ab"), fast("ab")) and fast.tagpipe_last_path == "tagpipe"
