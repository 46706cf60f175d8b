"""Native decode (cpp/decode/) against the oracle's: ``Tokenizer.decode`` / ``decode_batch``
equal to ``tokenizers.Tokenizer.decode`` / ``decode_batch``, and ``Tokenizer.decode_stream``
equal to ``tokenizers.decoders.DecodeStream``, on every shared fixture, with and without
skip_special_tokens.

Every comparison of a natively decoded fixture runs under ``tagpipe.delegation_disabled()``,
so a fallback to the oracle would raise instead of checking the oracle against itself.  The
id lists are the oracle's encodings of corpus documents and hypothesis text, and random ids
salted with the special, added and byte-fallback ("<0xHH>") ids, whose runs may be invalid
UTF-8."""

from __future__ import annotations

import functools
import json
import re

import pytest
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tagpipe

from support.data import SHARED, needs_shared
from support.strategies import corpus_documents, text

pytestmark = needs_shared

FIXTURES = (
    sorted(p.name for p in (SHARED / "tokenizers").iterdir() if (p / "tokenizer.json").is_file()) if SHARED else []
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.lru_cache(maxsize=None)
def pair(name: str) -> tuple[tagpipe.Tokenizer, tokenizers.Tokenizer]:
    path = str(SHARED / "tokenizers" / name / "tokenizer.json")
    return tagpipe.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)


@functools.lru_cache(maxsize=None)
def salient_ids(name: str) -> list[int]:
    """The ids a decoder treats apart: added tokens (special or not) and byte-fallback tokens."""
    _, oracle = pair(name)
    vocab = oracle.get_vocab(with_added_tokens=True)
    added = list(oracle.get_added_tokens_decoder())
    byte_ids = [i for t, i in vocab.items() if re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", t)]
    return sorted(set(added + byte_ids))


def id_lists(name: str) -> st.SearchStrategy[list[int]]:
    _, oracle = pair(name)
    bound = oracle.get_vocab_size(with_added_tokens=True)
    ids = st.integers(0, bound - 1)
    salient = salient_ids(name)
    if salient:
        ids = st.one_of(ids, st.sampled_from(salient))
    return st.lists(ids, max_size=40)


def oracle_decode(oracle, ids, skip):
    try:
        return oracle.decode(ids, skip_special_tokens=skip)
    except BaseException as e:  # (a Rust panic is a BaseException)
        return ("raises", type(e).__name__, str(e))


def check_decode(name: str, ids: list[int]) -> None:
    ours, oracle = pair(name)
    for skip in (True, False):
        want = oracle_decode(oracle, ids, skip)
        if isinstance(want, tuple):  # the oracle panics: ours hands the ids to it, for its exception
            with pytest.raises(BaseException) as info:
                ours.decode(ids, skip)
            assert (type(info.value).__name__, str(info.value)) == want[1:]
            continue
        with tagpipe.delegation_disabled():
            assert ours.decode(ids, skip) == want, (name, ids, skip)


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_decodes_natively(name):
    ours, _ = pair(name)
    assert ours.native_decode, ours.plan.decoder
    assert "-> native" in str(ours.plan.decoder)
    assert str(ours.plan.decoder) in ours.explain()


@pytest.mark.parametrize("name", FIXTURES)
def test_decode_of_corpus_encodings(name):
    ours, oracle = pair(name)
    docs = [d.text for d in corpus_documents(12, seed=43)]
    seqs = [e.ids for e in oracle.encode_batch(docs, add_special_tokens=True)]
    for skip in (True, False):
        want = oracle.decode_batch(seqs, skip_special_tokens=skip)
        with tagpipe.delegation_disabled():
            assert [ours.decode(s, skip) for s in seqs] == want
            assert ours.decode_batch(seqs, skip, num_threads=2) == want


@pytest.mark.parametrize("name", FIXTURES)
@SETTINGS
@given(data=st.data())
def test_decode_of_hypothesis_text(name, data):
    _, oracle = pair(name)
    t = data.draw(text())
    check_decode(name, oracle.encode(t, add_special_tokens=True).ids)


@pytest.mark.parametrize("name", FIXTURES)
@SETTINGS
@given(data=st.data())
def test_decode_of_random_ids(name, data):
    check_decode(name, data.draw(id_lists(name)))


def stream_steps(make, tokenizer, steps):
    """Each step's result, or the exception it raised (then the stream stops)."""
    stream, out = make(), []
    for step in steps:
        try:
            out.append(stream.step(tokenizer, step) if tokenizer is not None else stream.step(step))
        except BaseException as e:
            out.append(("raises", type(e).__name__, str(e)))
            break
    return out


@pytest.mark.parametrize("name", FIXTURES)
@SETTINGS
@given(data=st.data())
def test_decode_stream(name, data):
    ours, oracle = pair(name)
    ids = data.draw(id_lists(name))
    prompt = data.draw(st.none() | id_lists(name).map(lambda x: x[:5]))
    # a step is one id, or now and then a list of them
    steps = data.draw(st.lists(st.integers(0, 3), min_size=len(ids), max_size=len(ids)))
    grouped, i = [], 0
    for k in steps:
        if i >= len(ids):
            break
        if k == 0:
            grouped.append(ids[i : i + 3])
            i += 3
        else:
            grouped.append(ids[i])
            i += 1
    for skip in (True, False):
        want = stream_steps(
            lambda: tokenizers.decoders.DecodeStream(ids=prompt, skip_special_tokens=skip), oracle, grouped
        )
        with tagpipe.delegation_disabled():
            got = stream_steps(lambda: ours.decode_stream(skip, ids=prompt), None, grouped)
        assert got == want, (name, prompt, grouped, skip)


@pytest.mark.parametrize("name", ["gpt2", "llama2"])
def test_decode_stream_of_a_generation(name):
    """A whole document fed one id at a time: the chunks join to the decode of its ids."""
    ours, oracle = pair(name)
    doc = corpus_documents(1, seed=7)[0].text[:3000] + " 東京 🤖 naïve"
    ids = oracle.encode(doc, add_special_tokens=False).ids
    want = stream_steps(lambda: tokenizers.decoders.DecodeStream(skip_special_tokens=False), oracle, ids)
    with tagpipe.delegation_disabled():
        got = stream_steps(lambda: ours.decode_stream(False), None, ids)
        assert got == want
        assert "".join(c for c in got if c is not None) == ours.decode(ids, False)


# Decoder chains no shared fixture has, each on llama2's vocabulary (byte-fallback tokens,
# "▁" marks, special tokens): every native path of cpp/decode/ meets the oracle.
VARIANTS = {
    "bpe": {"type": "BPEDecoder", "suffix": "▁"},
    "ctc": {"type": "CTC", "pad_token": "<unk>", "word_delimiter_token": "▁", "cleanup": True},
    "ctc-raw": {"type": "CTC", "pad_token": "s", "word_delimiter_token": "▁", "cleanup": False},
    "wordpiece-raw": {"type": "WordPiece", "prefix": "▁", "cleanup": False},
    "wordpiece": {"type": "WordPiece", "prefix": "e", "cleanup": True},
    "metaspace-never": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True},
    "metaspace-first": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False},
    "replace": {"type": "Replace", "pattern": {"String": "e"}, "content": "ee"},
    "fuse": {"type": "Fuse"},
    "byte-fallback": {"type": "ByteFallback"},
    "byte-level": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    "strip-panics": {"type": "Strip", "content": "▁", "start": 2, "stop": 2},
    "sequence": {
        "type": "Sequence",
        "decoders": [
            {"type": "ByteFallback"},
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            {"type": "Strip", "content": " ", "start": 1, "stop": 1},
            {"type": "Fuse"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "_"},
        ],
    },
    "sequence-byte-level": {
        "type": "Sequence",
        "decoders": [
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            {"type": "WordPiece", "prefix": "▁", "cleanup": True},
        ],
    },
}


@functools.lru_cache(maxsize=None)
def variant(key: str) -> tuple[tagpipe.Tokenizer, tokenizers.Tokenizer]:
    data = json.loads((SHARED / "tokenizers" / "llama2" / "tokenizer.json").read_text(encoding="utf-8"))
    data["decoder"] = VARIANTS[key]
    text = json.dumps(data)
    return tagpipe.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)


@pytest.mark.parametrize("key", sorted(VARIANTS))
@SETTINGS
@given(data=st.data())
def test_decoder_variants(key, data):
    ours, oracle = variant(key)
    assert ours.native_decode, ours.plan.decoder
    ids = data.draw(id_lists("llama2"))
    for skip in (True, False):
        want = oracle_decode(oracle, ids, skip)
        if isinstance(want, tuple):
            with pytest.raises(BaseException) as info:
                ours.decode(ids, skip)
            assert (type(info.value).__name__, str(info.value)) == want[1:]
            continue
        with tagpipe.delegation_disabled():
            assert ours.decode(ids, skip) == want, (key, ids, skip)
