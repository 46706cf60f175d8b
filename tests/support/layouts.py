"""Post-processor forms, truncations and paddings of the layout tests (tests/test_pairs.py,
tests/test_offsets.py): a small WordLevel tokenizer.json to put them in, cheap to build many
times; and the comparison of tagpipe's rows with the oracle's encodings."""

from __future__ import annotations

import contextlib
import itertools

import pytest

import tagpipe

FIELDS = ("ids", "type_ids", "special_tokens_mask", "attention_mask")


def assert_rows(tok, oracle, texts, pairs, add=True, strict=True, offsets=False, overflowing=False) -> None:
    """Tokenizer.encode_batch_pairs equals the oracle's encode_batch, field by field -- the
    offsets too with `offsets`, and each encoding's overflowing ones after it with
    `overflowing` -- under delegation_disabled() when `strict` (or both raise)."""
    inputs = texts if pairs is None else list(zip(texts, pairs))
    kw = {"offsets": offsets, "overflowing": overflowing}
    try:
        want = oracle.encode_batch(inputs, add_special_tokens=add)
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        with pytest.raises(BaseException) as raised:  # (the oracle's own error, asked again)
            tok.encode_batch_pairs(texts, pairs, add, **kw)
        assert not isinstance(raised.value, (AssertionError, tagpipe.DelegationError))
        return
    with tagpipe.delegation_disabled() if strict else contextlib.nullcontext():
        got = tok.encode_batch_pairs(texts, pairs, add, **kw)
    rows = [(i, r) for i, e in enumerate(want) for r in ([e] + list(e.overflowing) if overflowing else [e])]
    assert len(got) == len(rows)
    if overflowing:
        assert got.overflow_to_sample_mapping.tolist() == [i for i, _ in rows]
    for k, (g, (i, w)) in enumerate(zip(got, rows)):
        for f in FIELDS + (("offsets",) if offsets else ()):
            assert getattr(g, f) == getattr(w, f), (f, k, inputs[i])


def _special(token: str, ids: list[int]) -> dict:
    return {"id": token, "ids": ids, "tokens": [token] * len(ids)}


PROCESSORS = {
    "none": None,
    "byte_level": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
    "bert": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
    "roberta": {
        "type": "RobertaProcessing",
        "sep": ["[SEP]", 2],
        "cls": ["[CLS]", 1],
        "trim_offsets": True,
        "add_prefix_space": False,
    },  # fmt: skip
    "template_b_first": {
        "type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 2}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "pair": [
            {"SpecialToken": {"id": "[CLS]", "type_id": 3}},
            {"Sequence": {"id": "B", "type_id": 1}},
            {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
        ],
        "special_tokens": {"[CLS]": _special("[CLS]", [1, 4, 1]), "[SEP]": _special("[SEP]", [2])},
    },
}
PROCESSORS["sequence"] = {"type": "Sequence", "processors": [PROCESSORS["byte_level"], PROCESSORS["bert"]]}

TRUNCATIONS = [None] + [
    {"max_length": m, "strategy": s, "stride": stride, "direction": d}
    for s, d, m, stride in itertools.product(
        ["LongestFirst", "OnlyFirst", "OnlySecond"], ["Right", "Left"], [0, 1, 2, 3, 4, 5, 7, 10], [0, 1, 2]
    )
]
PADDINGS = [
    None,
    {
        "strategy": "BatchLongest",
        "direction": "Left",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 5,
        "pad_token": "[PAD]",
    },  # fmt: skip
    {
        "strategy": {"Fixed": 9},
        "direction": "Right",
        "pad_to_multiple_of": 4,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    },  # fmt: skip
]
WORDS = ["", "a", "a b", "a b c", "a b c d e", "a b c d e f g h i"]


def small_doc() -> dict:
    """A WordLevel tokenizer.json of a few words (cheap to build 1000 times)."""
    vocab = {w: i for i, w in enumerate(["[PAD]", "[CLS]", "[SEP]", *"abcdefghi"])}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[PAD]"},
    }  # fmt: skip
