"""Truncation and padding (tagpipe/plan/post_processors.py) against the oracle.

A small byte-level BPE (fast to load: the test loads one per combination) gets a
TemplateProcessing that adds special tokens (so the limit is
``max_length - n_added``) and every combination of truncation and padding settings, written
into its tokenizer.json; tagpipe (natively: every call under delegation_disabled) and the
oracle load the same file.
``encode`` is compared with the oracle's ``encode``, ``encode_batch_flat`` with its
``encode_batch`` (where BatchLongest pads to the longest of the batch).  Settings the oracle
fails on (OnlySecond with a text to cut, a stride the cut cannot take) must fail in tagpipe too.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import tokenizers

import tagpipe
from tagpipe.pretokenizer import BYTE_CHARS

from support.data import SHARED, needs_shared

TEXTS = [
    "",
    "a",
    "Hello world",
    "one two three four five six seven eight nine ten eleven",
    "x" * 40,
    " ".join(str(i) for i in range(60)),
    "unicode: ünïcode 中文 ▁test",
]

TRUNCATIONS = [None] + [
    {"direction": d, "max_length": m, "strategy": s, "stride": st}
    for d, m, s, st in itertools.product(
        ["Right", "Left"], [0, 1, 2, 3, 5, 17], ["LongestFirst", "OnlyFirst", "OnlySecond"], [0, 2]
    )
]
PADDINGS = [None] + [
    {"strategy": strat, "direction": d, "pad_to_multiple_of": mult, "pad_id": 7, "pad_type_id": 0, "pad_token": "("}
    for strat, d, mult in itertools.product(
        ["BatchLongest", {"Fixed": 0}, {"Fixed": 9}, {"Fixed": 40}], ["Right", "Left"], [None, 0, 8]
    )
]


def _base() -> dict:
    vocab = {c: i for i, c in enumerate(BYTE_CHARS)}
    merges = [["t", "h"], ["th", "e"], ["Ġ", "t"], ["o", "n"], ["e", "n"]]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = EOT
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "normalizer": None,
        "decoder": None,
        "added_tokens": [
            {
                "id": EOT,
                "content": "<|endoftext|>",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "vocab": vocab, "merges": merges},
    }
    eot = {"id": "<|endoftext|>", "type_id": 0}
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": eot}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": eot}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [EOT], "tokens": ["<|endoftext|>"]}},
    }
    return doc


EOT = 300
BASE = _base()


def _outcome(fn):
    try:
        return fn()
    except BaseException as e:  # the oracle's panics are BaseExceptions (pyo3 PanicException)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return "error"


def _pair(trunc, pad):
    doc = dict(BASE, truncation=trunc, padding=pad)
    text = json.dumps(doc)
    return tagpipe.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)


@pytest.mark.parametrize(
    "trunc",
    TRUNCATIONS,
    ids=lambda t: "none" if t is None else f"{t['direction']}-{t['max_length']}-{t['strategy']}-s{t['stride']}",
)
def test_truncation_and_padding_equal_the_oracle(trunc):
    """Natively: under delegation_disabled every call the oracle answers gives its ids; where
    the oracle fails, tagpipe may only fail or ask the oracle -- and then fail as it does."""
    for pad in PADDINGS:
        tok, ref = _pair(trunc, pad)
        assert tok.native, tok.explain()
        for special in (True, False):
            for text in TEXTS:
                want = _outcome(lambda: ref.encode(text, add_special_tokens=special).ids)
                got = _native(lambda: tok.encode(text, add_special_tokens=special), want)
                assert got == want, (trunc, pad, special, text)
            want = _outcome(lambda: [e.ids for e in ref.encode_batch(TEXTS, add_special_tokens=special)])

            def flat():
                ids, offsets = tok.encode_batch_flat(TEXTS, add_special_tokens=special, num_threads=2)
                return [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(TEXTS))]

            assert _native(flat, want) == want, (trunc, pad, special)


def _native(fn, want):
    """``fn()`` under delegation_disabled; a delegation is allowed only where the oracle fails
    (``want`` is "error"), and then the call with delegation allowed must fail too."""
    with tagpipe.delegation_disabled():
        try:
            return fn()
        except tagpipe.DelegationError:
            if want != "error":
                raise
        except BaseException as e:  # noqa: BLE001 - an error is an outcome (as _outcome)
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            return "error"
    return _outcome(fn)


def test_native_tokenizer_stays_native_when_nothing_fails():
    trunc = {"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 0}
    pad = {
        "strategy": {"Fixed": 9},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 7,
        "pad_type_id": 0,
        "pad_token": "(",
    }
    tok, ref = _pair(trunc, pad)
    with tagpipe.delegation_disabled():
        for text in TEXTS:
            assert tok.encode(text) == ref.encode(text).ids
        ids, offsets = tok.encode_batch_flat(TEXTS)
        assert np.all(np.diff(offsets) == 9)
    assert "truncation: LongestFirst(max_length=5" in tok.explain()
    assert "padding: Fixed(9), Right, pad_id=7 -> native" in tok.explain()


def test_oracle_errors_are_raised_not_hidden():
    # OnlySecond on one sequence that must be cut: the oracle errors; tagpipe asks it.
    trunc = {"direction": "Right", "max_length": 4, "strategy": "OnlySecond", "stride": 0}
    tok, ref = _pair(trunc, None)
    with tagpipe.delegation_disabled():  # short enough: no error, native
        assert tok.encode("a") == ref.encode("a").ids == [EOT, BYTE_CHARS.index("a"), EOT]
    with pytest.raises(Exception, match="Second sequence not provided") as oracle_error:
        ref.encode("one two three four five")
    with pytest.raises(type(oracle_error.value)) as info:  # the oracle's own error, delegated to it
        tok.encode("one two three four five")
    assert type(info.value) is type(oracle_error.value) and str(info.value) == str(oracle_error.value)
    with tagpipe.delegation_disabled(), pytest.raises(tagpipe.DelegationError):
        tok.encode("one two three four five")


def test_huge_fixed_padding_is_refused_with_its_name():
    pad = {
        "strategy": {"Fixed": 1 << 40},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 7,
        "pad_type_id": 0,
        "pad_token": "(",
    }
    tok, _ = _pair(None, pad)
    with pytest.raises(ValueError, match="padding"):
        tok.encode("a")


def test_arrow_columns_are_truncated_and_padded_like_lists():
    pa = pytest.importorskip("pyarrow")
    trunc = {"direction": "Left", "max_length": 6, "strategy": "LongestFirst", "stride": 0}
    pad = {
        "strategy": "BatchLongest",
        "direction": "Left",
        "pad_to_multiple_of": 4,
        "pad_id": 7,
        "pad_type_id": 0,
        "pad_token": "(",
    }
    tok, ref = _pair(trunc, pad)
    want = [e.ids for e in ref.encode_batch(TEXTS)]
    ids, offsets = tok.encode_batch_flat(pa.array(TEXTS))
    assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(TEXTS))] == want
    # A null row stays empty (no pads) and does not count towards the longest.
    column = pa.array(TEXTS[:2] + [None])
    out = tok.encode_arrow(column, nulls="null").to_pylist()
    assert out == [e.ids for e in ref.encode_batch(TEXTS[:2])] + [None]


# -- the native cut: a right truncation stops the model once the body is long enough --------

EARLY_STOP_NAMES = ["gpt2", "llama2", "all-minilm-l6-v2", "bert-wiki", "t5-small", "llama3", "gemma3"]


def _truncated(text: str, max_length: int, direction: str = "Right", padding=None) -> str:
    doc = json.loads(text)
    doc["truncation"] = {"direction": direction, "max_length": max_length, "strategy": "LongestFirst", "stride": 0}
    doc["padding"] = padding
    return json.dumps(doc)


def _padding(strategy, direction: str, multiple=None) -> dict:
    return {
        "strategy": strategy,
        "direction": direction,
        "pad_to_multiple_of": multiple,
        "pad_id": 3,
        "pad_type_id": 0,
        "pad_token": "<pad>",
    }


# The real-file cut runs with each of these in turn (one per limit and direction).
CUT_PADDINGS = [
    None,
    _padding("BatchLongest", "Right"),
    _padding({"Fixed": 64}, "Left"),
    _padding("BatchLongest", "Left", 8),
    _padding({"Fixed": 7}, "Right", 5),
]


@needs_shared
@pytest.mark.parametrize("name", EARLY_STOP_NAMES)
def test_native_cut_equals_the_oracle_on_real_files(name):
    """Documents far longer than the limit, with added tokens before, at and after the cut:
    the model stops early (right) or everything is encoded and the tail kept (left); either
    way the ids are the oracle's, with and without special tokens, and with padding (a
    different setting per limit and direction: CUT_PADDINGS)."""
    text = (SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8")
    specials = [t["content"] for t in json.loads(text)["added_tokens"]][:4]
    docs = [
        d
        for corpus in ("english", "multilingual", "code")
        for d in (SHARED / "corpora" / f"{corpus}.txt").read_text(encoding="utf-8").split("\n\n")[3:6]
    ]
    docs = [d[:3000] for d in docs]
    docs += [f"{specials[i % len(specials)]} ".join(docs[i].split(" ", 40)) for i in range(3)]
    docs += ["", " ", specials[0] * 30, "a " * 200 + specials[-1]]
    configs = itertools.product((0, 1, 2, 7, 64, 200), ("Right", "Left"))
    for k, (max_length, direction) in enumerate(configs):
        padding = CUT_PADDINGS[k % len(CUT_PADDINGS)]
        cut = _truncated(text, max_length, direction, padding)
        ref = tokenizers.Tokenizer.from_str(cut)
        with tagpipe.delegation_disabled():
            tok = tagpipe.Tokenizer.from_str(cut)
            for add in (True, False):
                want = [e.ids for e in ref.encode_batch(docs, add_special_tokens=add)]
                ids, offsets = tok.encode_batch_flat(docs, add_special_tokens=add, num_threads=2)
                got = [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(docs))]
                assert got == want, (name, max_length, direction, padding, add)
                single = ref.encode(docs[0], add_special_tokens=add).ids  # (BatchLongest: its own length)
                assert tok.encode(docs[0], add_special_tokens=add) == single, (name, max_length, direction, padding)


def test_native_cut_does_not_hide_an_error_after_the_limit():
    """A WordPiece without an unk token errors on an unknown word anywhere in the text -- also
    after the part truncation keeps -- so that text is not cut short: the oracle raises."""
    vocab = {"[CLS]": 0, "[SEP]": 1, "a": 2, "b": 3, "##a": 4, "##b": 5}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": vocab,
        },
    }
    cut = _truncated(json.dumps(doc), 2)
    ref = tokenizers.Tokenizer.from_str(cut)
    tok = tagpipe.Tokenizer.from_str(cut)
    assert tok.encode("a b ab ba") == ref.encode("a b ab ba").ids == [2, 3]
    with pytest.raises(Exception) as oracle_error:
        ref.encode("a b ab zz")
    with pytest.raises(type(oracle_error.value)):
        tok.encode("a b ab zz")
    with pytest.raises(type(oracle_error.value)):
        tok.encode_batch_flat(["a b", "a b ab zz"])


@needs_shared
def test_special_ids_and_options_are_the_templates_and_the_arguments():
    """special_ids are the ids the oracle's template puts around one sequence (a BERT: [CLS] ... [SEP])."""
    path = SHARED / "tokenizers" / "all-minilm-l6-v2" / "tokenizer.json"
    tok = tagpipe.Tokenizer.from_file(path, cache_bytes=1 << 20, metaspace_runs=False)
    oracle = tokenizers.Tokenizer.from_file(str(path))
    oracle.no_padding()  # (this file pads to 128: the template alone is compared)
    ids = oracle.encode("hello").ids
    body = oracle.encode("hello", add_special_tokens=False).ids
    prefix, suffix = tok.special_ids
    assert prefix + body + suffix == ids and prefix and suffix
    assert tok.options == {"cache_bytes": 1 << 20, "metaspace_runs": False}
    tok.options["cache_bytes"] = 0  # a copy: the tokenizer's own options stay
    assert tok.options["cache_bytes"] == 1 << 20
