"""Offsets and overflowing rows: Tokenizer.encode_batch_pairs(offsets=True, overflowing=True)
equal to tokenizers' encode_batch -- each encoding and its overflowing ones, field by field with
the offsets -- under delegation_disabled() where the path is native: on the fixtures (corpora,
hypothesis text, truncations with a stride), every short truncation x padding of each
post-processor form, each native normalizer's alignments, and BPE's spans (unk, byte fallback,
prefixes, dropped characters)."""

from __future__ import annotations

import itertools
import json

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe

from support import layouts
from support import strategies as S
from support.data import SHARED, needs_shared
from support.layouts import PADDINGS, PROCESSORS, WORDS, small_doc

MODELS = ["bert-wiki", "all-minilm-l6-v2", "roberta-base", "gpt2", "llama2", "llama3", "t5-small"]
# (NFC, t5's NFKC: a text that is not inert is delegated, per text -- its sequence spliced in)
SPLICED = {"t5-small", "qwen3"}


def load(name: str) -> dict:
    return json.loads((SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))


_CACHE: dict = {}


def pair_of(text: str):
    if text not in _CACHE:
        _CACHE.clear()  # (one at a time: the fixtures are big)
        _CACHE[text] = (tagpipe.Tokenizer(text), tokenizers.Tokenizer.from_str(text))
    return _CACHE[text]


def assert_rows(tok, oracle, texts, pairs, add=True, strict=True, overflowing=True) -> None:
    """tagpipe's rows equal the oracle's encodings with their offsets, and their overflowing
    ones (or both raise)."""
    layouts.assert_rows(tok, oracle, texts, pairs, add, strict, offsets=True, overflowing=overflowing)


def with_truncation(doc: dict, max_length, stride, strategy="LongestFirst", direction="Right", padding=None) -> str:
    doc = dict(doc, padding=padding)
    doc["truncation"] = {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}
    return json.dumps(doc)


@needs_shared
@pytest.mark.parametrize("name", MODELS + ["qwen3"])
def test_fixtures_on_the_corpora(name):
    doc = load(name)
    docs = [d.text for d in S.corpus_documents(8, seed=4)] + ["", " ", "[SEP] <s> </s> x  y"]
    strict = name not in SPLICED
    tok, oracle = pair_of(json.dumps(dict(doc, truncation=None, padding=None)))
    assert not tok.explain_offsets(), tok.explain()
    assert_rows(tok, oracle, docs, docs[::-1], True, strict, overflowing=False)
    assert_rows(tok, oracle, docs, None, False, strict, overflowing=False)
    # (only_second with a stride, as question answering asks: tests/test_accelerate_offsets.py)
    short = [d[:300] for d in docs]  # (a pair's windows multiply: short texts)
    tok, oracle = pair_of(with_truncation(doc, 24, 5, "LongestFirst", "Left", PADDINGS[1]))
    assert_rows(tok, oracle, short, short[::-1], True, strict)
    assert_rows(tok, oracle, short, None, False, strict)


@needs_shared
@pytest.mark.parametrize("name", ["bert-wiki", "roberta-base", "gpt2", "llama2", "llama3", "t5-small"])
@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(S.text(12), S.text(6)), min_size=1, max_size=3), st.booleans())
def test_hypothesis_offsets(name, rows, add):
    tok, oracle = pair_of(json.dumps(dict(load(name), truncation=None, padding=None)))
    a, b = (list(x) for x in zip(*rows))
    assert_rows(tok, oracle, a, b, add, strict=name not in SPLICED, overflowing=False)
    assert_rows(tok, oracle, a, None, add, strict=name not in SPLICED, overflowing=False)


@needs_shared
def test_trim_reads_an_added_tokens_matched_text():
    """gpt-neox-20b: ByteLevel's trim_offsets, normalized added tokens of spaces (whose matched
    text the trim reads) and NFC (native where it changes nothing: the rest spliced in)."""
    tok, oracle = pair_of(json.dumps(dict(load("gpt-neox-20b"), truncation=None, padding=None)))
    assert not tok.explain_offsets()
    texts = ["x" + " " * k + "y" for k in range(1, 28)] + ["  a   b\n\n   c", " " * 40, "é\u0301  x"]
    assert_rows(tok, oracle, texts, texts[::-1], True, strict=False, overflowing=False)
    with tagpipe.delegation_disabled():
        assert_rows(tok, oracle, texts[:-1], None, False, overflowing=False)


# -- every form x every short truncation (with a stride) and padding ---------------------------


STRATEGIES = ["LongestFirst", "OnlyFirst", "OnlySecond"]
EVERY = list(itertools.product(STRATEGIES, ["Right", "Left"], [0, 1, 2, 3, 5, 7], [0, 1, 2], PADDINGS))
SOME = list(itertools.product(STRATEGIES, ["Right", "Left"], [0, 2, 5], [0, 1], PADDINGS[:2]))


@pytest.mark.parametrize("processor", sorted(PROCESSORS))
def test_short_truncations_overflow_as_the_oracle(processor):
    check_truncations(processor, SOME)


@pytest.mark.parametrize("processor", sorted(PROCESSORS))
def test_every_short_truncation_overflows_as_the_oracle(processor):
    check_truncations(processor, EVERY)


def check_truncations(processor, grid):
    """Every (n1, n2) up to 9 ids x max_length x strategy x direction x stride x padding, with
    the overflowing rows -- and the offsets, where native (not RobertaProcessing's trim on a
    WordLevel model)."""
    doc = small_doc()
    doc["post_processor"] = PROCESSORS[processor]
    firsts, seconds = (list(x) for x in zip(*itertools.product(WORDS, repeat=2)))
    for strategy, direction, max_length, stride, padding in grid:
        text = with_truncation(doc, max_length, stride, strategy, direction, padding)
        tok, oracle = tagpipe.Tokenizer(text), tokenizers.Tokenizer.from_str(text)
        strict = not tok.explain_offsets()
        for add in (True, False):
            assert_rows(tok, oracle, firsts, seconds, add, strict)
            assert_rows(tok, oracle, firsts, None, add, strict)
            for a, b in zip(firsts[::7], seconds[::7]):
                assert_rows(tok, oracle, [a], [b], add, strict)
    assert processor != "roberta" or "trim_offsets" in tok.explain_offsets()


# -- each native normalizer's alignments ---------------------------------------------------------

NORMALIZERS = {  # fmt: skip
    "nfd_lower_strip": [{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}],
    "nfkd": [{"type": "NFKD"}],
    "nfc": [{"type": "NFC"}],
    "nfkc": [{"type": "NFKC"}],
    "bert": [
        {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        }
    ],
    "bert_cased": [
        {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": False,
            "strip_accents": True,
            "lowercase": False,
        }
    ],
    "prepend_replace": [
        {"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ],
    "replace_longer": [{"type": "Replace", "pattern": {"String": "ab"}, "content": "xyz"}],
    "replace_shorter": [{"type": "Replace", "pattern": {"String": "a b"}, "content": "Q"}],
    "space_runs": [
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"},
        {"type": "Strip", "strip_left": False, "strip_right": True},
    ],
    "strip_left": [{"type": "Strip", "strip_left": True, "strip_right": False}],
}
NEEDS_SHARED_CHARSMAP = {"t5-small", "marian-ortx-nmt"}


def char_doc(normalizers: list) -> str:
    """A tokenizer.json whose every normalized character is a token of its own (FixedLength 1,
    WordLevel with an unk token): its offsets are the normalizer's alignment of each one."""
    return json.dumps(
        {
            "version": "1.0", "truncation": None, "padding": None, "decoder": None, "post_processor": None,
            "added_tokens": [{"id": 1, "content": "<s>", "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True}],
            "normalizer": {"type": "Sequence", "normalizers": normalizers},
            "pre_tokenizer": {"type": "FixedLength", "length": 1},
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "<s>": 1, "a": 2}, "unk_token": "[UNK]"},
        }
    )  # fmt: skip


def _charsmap(name: str) -> dict:
    normalizer = load(name)["normalizer"]
    return normalizer if normalizer["type"] == "Precompiled" else normalizer["normalizers"][0]


@pytest.mark.parametrize("name", sorted(NORMALIZERS) + sorted(NEEDS_SHARED_CHARSMAP))
@settings(max_examples=40, deadline=None)
@given(texts=st.lists(S.text_with(["a b", "ab", "  ", " ", "<s>", "\u00ad", "\x8f", "½", "e\u0301"], 10), max_size=4))
def test_normalizer_alignments(name, texts):
    if name in NEEDS_SHARED_CHARSMAP:
        if not (SHARED / "tokenizers" / name).exists():
            pytest.skip("needs the shared tokenizers")
        normalizers = [_charsmap(name)]
    else:
        normalizers = NORMALIZERS[name]
    tok, oracle = pair_of(char_doc(normalizers))
    assert tok.native and not tok.explain_offsets(), tok.explain()
    strict = name not in {"nfc", "nfkc"} | NEEDS_SHARED_CHARSMAP  # (a text they may change: delegated)
    assert_rows(tok, oracle, texts, None, True, strict, overflowing=False)


# -- BPE's spans ---------------------------------------------------------------------------------

BPE_VOCAB = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "<unk>": 5, "é": 6, "<0xE4>": 7, "<0xB8>": 8, "<0x80>": 9}
BPE_MERGES = [["a", "b"], ["ab", "c"]]
BPE_VARIANTS = {
    "unk": {"unk_token": "<unk>"},
    "unk_fused": {"unk_token": "<unk>", "fuse_unk": True},
    "byte_fallback": {"unk_token": "<unk>", "byte_fallback": True},
    "dropped": {},  # (no unk token: an unknown character is dropped, and the offsets shift)
    "ignore_merges": {"ignore_merges": True, "unk_token": "<unk>"},
}


def bpe_doc(options: dict, prefix: str = "", suffix: str = "") -> str:
    vocab = dict(BPE_VOCAB)
    for s in ("b", "c", "bc", "é"):
        if prefix:
            vocab.setdefault(prefix + s, len(vocab))
        if suffix:
            vocab.setdefault(s + suffix, len(vocab))
    merges = [["a", prefix + "b"], ["ab", prefix + "c"]] if prefix else BPE_MERGES
    model = {
        "type": "BPE", "vocab": vocab, "merges": merges, "dropout": None, "continuing_subword_prefix": prefix or None,
        "end_of_word_suffix": suffix or None, "fuse_unk": False, "byte_fallback": False,
    } | options  # fmt: skip
    return json.dumps(
        {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
         "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None, "model": model}
    )  # fmt: skip


@pytest.mark.parametrize("variant", sorted(BPE_VARIANTS))
@pytest.mark.parametrize("affix", ["", "prefix", "suffix"])
@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.text(alphabet="abcé丁€ x", max_size=12), max_size=4))
def test_bpe_spans(variant, affix, texts):
    """Spans proven natively or the text delegated (then the oracle's): always the oracle's
    offsets -- also where they shift (a dropped character) or grow (a prefix's bytes falling
    back to <0xXX> tokens)."""
    text = bpe_doc(BPE_VARIANTS[variant], "##" if affix == "prefix" else "", "</w>" if affix == "suffix" else "")
    tok, oracle = pair_of(text)
    assert not tok.explain_offsets()
    assert_rows(tok, oracle, texts, None, True, strict=False, overflowing=False)
    with tagpipe.delegation_disabled():  # (the plain words are native)
        assert_rows(tok, oracle, ["abc ab c", "c c ab"], None, True, overflowing=False)


def test_explain_offsets_names_what_is_delegated():
    doc = json.loads(bpe_doc({}, prefix="##"))
    doc["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
    tok = tagpipe.Tokenizer(json.dumps(doc))
    assert tok.native and "continuing_subword_prefix" in tok.explain_offsets()
    assert "offsets: DELEGATED" in tok.explain()
    doc = small_doc()
    doc["post_processor"] = PROCESSORS["roberta"]
    assert "trim_offsets" in tagpipe.Tokenizer(json.dumps(doc)).explain_offsets()
    assert "offsets: native" in tagpipe.Tokenizer(json.dumps(small_doc())).explain()
    with tagpipe.delegation_disabled(), pytest.raises(tagpipe.DelegationError):
        tok.encode_batch_pairs(["ab"], offsets=True)


def test_encoding_api():
    doc = small_doc()
    doc["post_processor"] = PROCESSORS["bert"]
    tok = tagpipe.Tokenizer(with_truncation(doc, 4, 1, padding=PADDINGS[2]))
    one = tok.encode_pair("a b c d e", offsets=True, overflowing=True)
    assert one.offsets == [(0, 0), (0, 1), (2, 3), (0, 0)] + [(0, 0)] * 8  # (Fixed 9, a multiple of 4)
    assert [e.ids[1:3] for e in one.overflowing] == [[4, 5], [5, 6], [6, 7]]
    assert tok.encode_pair("a b").offsets is None and tok.encode_pair("a b c d e").overflowing == []
    rows = tok.encode_batch_pairs(["a b c", "a"], offsets=True, overflowing=True)
    assert rows.overflow_to_sample_mapping.tolist() == [0, 0, 1]
    arrays = rows.to_numpy()
    assert arrays["offset_mapping"].shape == (3, 12, 2) and arrays["ids"].shape == (3, 12)
