"""tagpipe.accelerate with sequence pairs, token type ids, special-tokens masks and lengths:
the same BatchEncoding as the unaccelerated transformers tokenizer (every key, type and dtype)
on the fixtures' BERT, RoBERTa, gpt2, llama2, llama3 and t5, every truncation strategy and side
and padding side -- and the call took the tagpipe path whenever the original gives a result
(a call the original raises on raises the same error)."""

from __future__ import annotations

import itertools

import pytest

import tagpipe

from support.data import SHARED, needs_shared
from support.hf import check, hf_tokenizer, same, samples

transformers = pytest.importorskip("transformers")

MODELS = ["bert-wiki", "roberta-base", "gpt2", "llama2", "llama3", "t5-small"]

CALLS = [
    {"padding": True, "truncation": True, "max_length": 32, "return_tensors": "np"},
    {"padding": True, "truncation": True, "max_length": 512, "return_tensors": "np"},
    {"padding": "max_length", "truncation": True, "max_length": 20, "return_special_tokens_mask": True},
    {"padding": True, "return_length": True, "return_special_tokens_mask": True, "return_tensors": "np"},
    {"truncation": "only_first", "max_length": 24, "padding": True, "pad_to_multiple_of": 8},
    {"truncation": "only_second", "max_length": 24, "return_length": True},
    {"truncation": "longest_first", "max_length": 7, "stride": 2, "return_token_type_ids": True},
    {"truncation": True, "max_length": 3, "padding": True, "return_tensors": "np"},
    {"add_special_tokens": False, "truncation": True, "max_length": 9, "padding": "max_length"},
    {"return_attention_mask": False, "return_token_type_ids": False, "padding": True},
    {},
]


def accelerated(name):
    return hf_tokenizer(name), tagpipe.accelerate(hf_tokenizer(name))


@needs_shared
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("sides", [("right", "right"), ("left", "left"), ("left", "right")])
def test_pairs_equal_the_original(name, sides):
    original, fast = accelerated(name)
    for tok in (original, fast):
        tok.truncation_side, tok.padding_side = sides
    texts = samples(16, seed=1)
    seconds = texts[::-1]
    for kw in CALLS:
        check(original, fast, texts, seconds, **kw)  # a batch of pairs
        check(original, fast, texts, **kw)  # a batch of single texts (type ids, masks, lengths)
        for a, b in zip(texts[:6], seconds[:6]):
            check(original, fast, a, b, **kw)  # one pair ("" as the pair: one text, as the backend)


@needs_shared
@pytest.mark.parametrize("name", MODELS)
def test_every_truncation_of_short_pairs(name):
    """Every (length, length) of two short texts x max_length x strategy x stride: where the
    room is shared, too short, or a stride the cut cannot take (the backend's error)."""
    original, fast = accelerated(name)
    words = ["a", "a b", "a b c", "a b c d e f", "a b c d e f g h i j k l"]
    firsts, seconds = zip(*itertools.product(words, repeat=2))
    for strategy, max_length, stride in itertools.product(
        ["longest_first", "only_first", "only_second"], range(0, 17, 2), [0, 1, 3]
    ):
        kw = {"truncation": strategy, "max_length": max_length, "stride": stride, "padding": True}
        check(original, fast, list(firsts), list(seconds), return_token_type_ids=True, **kw)
        for a, b in zip(firsts, seconds):
            check(original, fast, a, b, return_special_tokens_mask=True, **kw)


@needs_shared
def test_the_backends_errors_are_its_own():
    original, fast = accelerated("bert-wiki")
    for args, kw in [
        (([],), {"padding": True}),  # an empty batch
        ((["a", "b"], ["c"]), {}),  # texts and pairs of different lengths
        (("a b c", "d e f"), {"truncation": True, "max_length": 4, "stride": 2}),  # enable_truncation's check
        (("a b c", "d e f g"), {"truncation": "only_first", "max_length": 6}),  # the first is too short
    ]:
        assert not check(original, fast, *args, **kw), (args, kw)


@needs_shared
def test_autotokenizer_bert_runs_on_tagpipe():
    """A BERT loaded as users load it (AutoTokenizer: BertTokenizer, token_type_ids by default)."""
    path = SHARED / "tokenizers" / "all-minilm-l6-v2"
    original = transformers.AutoTokenizer.from_pretrained(str(path))
    fast = tagpipe.accelerate(transformers.AutoTokenizer.from_pretrained(str(path)))
    assert "token_type_ids" in original.model_input_names
    texts = samples(16, seed=2)
    served = 0
    for kw in CALLS:
        served += check(original, fast, texts, **kw)
        served += check(original, fast, texts, texts[::-1], **kw)
    assert fast.tagpipe_stats["tagpipe"] == served >= len(CALLS)


@needs_shared
def test_a_pair_form_that_is_not_native_names_why():
    original, fast = accelerated("bert-wiki")
    proc = __import__("tokenizers").processors
    bert = proc.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    for tok in (original, fast):
        tok.backend_tokenizer.post_processor = proc.Sequence([bert, bert])
    tagpipe.accelerate(fast)
    plain = {"return_token_type_ids": False}  # (ids alone: the single form's tokens are known)
    assert same(original("a b", **plain), fast("a b", **plain)) and fast.tagpipe_last_path == "tagpipe"
    assert same(original("a b"), fast("a b")) and "Sequence of several" in fast.tagpipe_last_path
    kw = {"text": "a b", "text_pair": "c", "return_token_type_ids": True}
    try:
        want = original(**kw)
    except BaseException as e:  # (the oracle panics on this Sequence's pair form)
        with pytest.raises(type(e)):
            fast(**kw)
    else:
        assert same(want, fast(**kw))
    assert "Sequence of several post-processors" in fast.tagpipe_last_path
