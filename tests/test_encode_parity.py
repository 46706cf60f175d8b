"""Exactness of ``tagpipe.Tokenizer.encode``: the ids must be exactly those of the pinned oracle,
``tokenizers.Tokenizer.from_file(path).encode(text, add_special_tokens=...).ids`` (0.23.3).

* every shared tokenizer x every corpus: documents cut at ~10 kB and at random lengths, with
  and without special tokens (``encode_batch`` on both sides);
* **native means native**: for the tokenizers tagpipe claims to run natively, construction
  and encoding run under ``tagpipe.delegation_disabled()`` (support.parity.run_and_compare:
  ``encode_batch`` compared on its own, never replaced by per-text results).  The only
  delegations allowed are the documented per-call ones of NFC (gpt-neox-20b, qwen3,
  synthetic Sequences with NFC) and of Precompiled charsmaps (t5-small, marian), each text
  checked to need it by the oracle's own evidence (support.delegation: a character the
  oracle's NFC changes in some context; a neighbour the oracle joins in one grapheme cluster
  with a charsmap key), and the share of a batch capped.  Delegated texts are still
  compared, outside the context manager and on a second Tokenizer instance
  (:func:`tagpipe_outside`), one by one and spliced into the batch, so that an allowed
  delegation cannot mask a later one;
* hypothesis text from ``tests/support/strategies.py`` per tokenizer family;
* added tokens in awkward places (adjacent, repeated, inside words, partial, nested, around
  whitespace, the empty string);
* synthetic tokenizers (small JSON, built here) for the BPE options the fixtures miss;
* concurrency (native threads and Python threads on one shared Tokenizer);
* API edges (empty, spaces, a 20 MB string, lone surrogates, non-str input, numpy/flat forms).

The reference is always ``encode(text).ids`` of the oracle as loaded (all-minilm's padding and
truncation included: tagpipe delegates it); ``encode_batch`` is used on the oracle side where it
gives the same ids (no padding configured).  The 20 MB test cannot afford the oracle on 20 MB
(~30 s): its expectation comes from the oracle on 2-4 copies of the repeated unit.

A failure names the tokenizer, the text (shortened around the first difference), the first
differing ids with their tokens, and a shrunken text that still fails where one was found.
"""

from __future__ import annotations

import functools
import json
import random
import threading
import time
import zlib
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

import tagpipe
from tagpipe.pretokenizer import BYTE_CHARS

from support import strategies as S
from support.data import CORPORA, SHARED, corpus_ids, needs_shared
from support.delegation import Allowance, active_chars, allowance_for
from support.parity import (
    HYPOTHESIS,
    WHITESPACE,
    WHITESPACE_SPLIT,
    Report,
    _corpus_bytes,
    _with_merged,
    added,
    bpe_json,
    bytelevel,
    corpus_docs,
    metaspace,
    oracle_ids,
    prepend,
    replace,
    run_and_compare,
    seq,
    template,
)

# ---------------------------------------------------------------------------------------
# Budgets
# ---------------------------------------------------------------------------------------

ADDED_TOKENS_MAX = 160  # added tokens per tokenizer used to build the awkward texts
SYNTHETIC_RANDOM_TEXTS = 300  # per synthetic tokenizer (+ its hand-written texts)
BIG_TEXT_CHARS = 20_000_000  # the "20 MB string" (characters; ~25 MB of UTF-8 from the corpora)
THREAD_TIMEOUT = 180.0  # seconds, for the concurrency tests

# ---------------------------------------------------------------------------------------
# The tokenizers
# ---------------------------------------------------------------------------------------

TOKENIZER_DIR = SHARED / "tokenizers" if SHARED else None
ALL_NAMES = sorted(p.parent.name for p in TOKENIZER_DIR.glob("*/tokenizer.json")) if TOKENIZER_DIR else []

# tagpipe must run these natively: no delegation at construction, none per call (except NFC).
NATIVE_NAMES = [
    "gpt2",
    "gpt2-new-format",
    "roberta-base",
    "phi-2",
    "gpt-neox-20b",
    "falcon-7b",
    "llama3",
    "gpt-4o",
    "qwen3",
    "deepseek-v3",
    "mistral-7b-v0.1",
    "llama2",
    "gemma3",
    "wiki-bpe-whitespace",
    "all-minilm-l6-v2",
    "bert-wiki",
    "t5-small",
    "marian-ortx-nmt",
    "rwkv-midi-wordlevel",
]
HYPOTHESIS_FAMILIES = [
    "gpt2",
    "llama3",
    "gpt-4o",
    "qwen3",
    "deepseek-v3",
    "llama2",
    "mistral-7b-v0.1",
    "gemma3",
    "all-minilm-l6-v2",
    "bert-wiki",
    "t5-small",
    "marian-ortx-nmt",
    "rwkv-midi-wordlevel",
]


def _path(name: str) -> Path:
    return TOKENIZER_DIR / name / "tokenizer.json"


@functools.lru_cache(maxsize=None)
def tokenizer_json(name: str) -> dict:
    return json.loads(_path(name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def allowance(name: str) -> Optional[Allowance]:
    """The per-call delegations tagpipe may make on this file, each checked text by text."""
    return allowance_for(tokenizer_json(name).get("normalizer"))


@functools.lru_cache(maxsize=None)
def oracle_for(name: str) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_file(str(_path(name)))


@functools.lru_cache(maxsize=None)
def tagpipe_for(name: str) -> tagpipe.Tokenizer:
    """One shared tagpipe Tokenizer per file; the native ones are built with delegation disabled."""
    if name in NATIVE_NAMES:
        with tagpipe.delegation_disabled():
            return tagpipe.Tokenizer.from_file(_path(name))
    return tagpipe.Tokenizer.from_file(_path(name))


@functools.lru_cache(maxsize=None)
def tagpipe_outside(name: str) -> tagpipe.Tokenizer:
    """The instance for calls made outside delegation_disabled that may delegate per call (NFC):
    kept apart from :func:`tagpipe_for`'s, so that a delegation allowed here cannot change what
    happens there (see test_delegation_disabled_after_an_allowed_delegation)."""
    if name in NATIVE_NAMES and allowance(name) is not None:
        return tagpipe.Tokenizer.from_file(_path(name))
    return tagpipe_for(name)


# ---------------------------------------------------------------------------------------
# 1 + 2. Every tokenizer x every corpus; native ones under delegation_disabled
# ---------------------------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize("add_special", [True, False], ids=["special", "nospecial"])
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
@pytest.mark.parametrize("name", ALL_NAMES)
def test_corpus_documents(name, corpus, add_special):
    tok, oracle = tagpipe_for(name), oracle_for(name)
    native = name in NATIVE_NAMES
    if native:
        assert tok.native, tok.explain()
    docs = corpus_docs(corpus, name)
    report = Report(name, tok, oracle, tagpipe_outside(name))
    run_and_compare(
        report,
        tok,
        [d.text for d in docs],
        add_special,
        native=native,
        allowance=allowance(name),
        labels=[d.label for d in docs],
    )
    report.check()


@needs_shared
@pytest.mark.parametrize("name", NATIVE_NAMES)
def test_native_tokenizer_is_native(name):
    """Built under delegation_disabled (tagpipe_for), every stage native."""
    tok = tagpipe_for(name)
    assert tok.native, tok.explain()
    assert "DELEGATED" not in tok.explain(), tok.explain()


def delegated_variant(name: str) -> str:
    """A shared file changed so that tagpipe must delegate it: its regex or normalizer made one
    tagpipe does not know (every shared file itself is native)."""
    doc = json.loads(json.dumps(tokenizer_json(name)))
    if name == "llama3":  # a Split regex off cl100k's by a look-behind (the regex compiler has none)
        split = doc["pre_tokenizer"]["pretokenizers"][0]
        split["pattern"]["Regex"] = split["pattern"]["Regex"].replace("\\p{N}{1,3}", "\\p{N}{1,4}(?<=\\p{N})")
    elif name == "marian-ortx-nmt":  # a Replace regex with a look-behind (outside the compiled subset)
        doc["normalizer"]["normalizers"][2]["pattern"] = {"Regex": " {3,}(?<= )"}
    elif name == "t5-small":  # BPE-style dropout has no Unigram form; a Split regex then
        doc["pre_tokenizer"]["pretokenizers"].insert(
            0, {"type": "Split", "pattern": {"Regex": "[a-z]{2}(?<=[a-z])"}, "behavior": "Isolated", "invert": False}
        )
    return json.dumps(doc)


DELEGATED_VARIANTS = ["llama3", "marian-ortx-nmt", "t5-small"]


@needs_shared
@pytest.mark.parametrize("name", DELEGATED_VARIANTS)
def test_delegated_tokenizer_raises_when_delegation_disabled(name):
    text = delegated_variant(name)
    tok = tagpipe.Tokenizer.from_str(text)  # fresh: never delegated yet
    assert not tok.native
    assert "DELEGATED" in tok.explain()
    with tagpipe.delegation_disabled():
        with pytest.raises(tagpipe.DelegationError):
            tagpipe.Tokenizer.from_str(text)
        with pytest.raises(tagpipe.DelegationError):
            tok.encode("Hello world")
        with pytest.raises(tagpipe.DelegationError):
            tok.encode_batch(["Hello", "world"])
    # and outside, exact
    oracle = tokenizers.Tokenizer.from_str(text)
    for t in ["Hello world", "one  two   three 12345 abc", ""]:
        assert tok.encode(t) == oracle.encode(t).ids
    docs = corpus_docs(CORPORA[0], name)[:4]
    assert tok.encode_batch([d.text for d in docs]) == [e.ids for e in oracle.encode_batch([d.text for d in docs])]


def test_delegation_disabled_after_an_allowed_delegation():
    """delegation_disabled must raise even when the same Tokenizer already delegated (and so
    already holds an oracle) outside it: for a delegated tokenizer and for NFC per call."""
    nfc_json = json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": {"type": "NFC"},
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": None,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": False,
                "vocab": {"a": 0, "\u00e9": 1, "e": 2},
                "merges": [],
            },
        }
    )
    tok = tagpipe.Tokenizer.from_str(nfc_json)
    assert tok.native
    with tagpipe.delegation_disabled():
        with pytest.raises(tagpipe.DelegationError):
            tok.encode("e\u0301")
    assert tok.encode("e\u0301") == [1]  # allowed here: delegated
    with tagpipe.delegation_disabled():
        with pytest.raises(tagpipe.DelegationError):  # ... and forbidden again here
            tok.encode("e\u0301")
    if SHARED is not None:
        tok = tagpipe.Tokenizer.from_str(delegated_variant("llama3"))
        tok.encode("Hello")
        with tagpipe.delegation_disabled():
            with pytest.raises(tagpipe.DelegationError):
                tok.encode("Hello")


@needs_shared
@pytest.mark.parametrize("name", [n for n in NATIVE_NAMES if n in ("gpt-neox-20b", "qwen3")])
def test_nfc_delegation_per_call(name):
    """A text NFC changes is delegated per call (raises under delegation_disabled) and exact;
    plain ASCII and NFC-inert scripts are not delegated."""
    tok, outside, oracle = tagpipe_for(name), tagpipe_outside(name), oracle_for(name)
    changing = ["e\u0301", "A\u030a", "\u1100\u1161", "\u212b", "a\u0323\u0301x", "caf\u0065\u0301 ok"]
    inert = ["Hello world", "日本語のテキスト", "Привет мир", "😀 👍", "", " "]
    for t in changing:
        assert tokenizers.normalizers.NFC().normalize_str(t) != t
        with tagpipe.delegation_disabled():
            with pytest.raises(tagpipe.DelegationError):
                tok.encode(t)
        assert outside.encode(t) == oracle.encode(t).ids, t
    with tagpipe.delegation_disabled():
        for t in inert:
            assert tok.encode(t) == oracle.encode(t).ids, t


# ---------------------------------------------------------------------------------------
# 3. Hypothesis text
# ---------------------------------------------------------------------------------------


def _needles(name: str) -> list[str]:
    tokens = [t["content"] for t in tokenizer_json(name).get("added_tokens") or []]
    return [t for t in tokens if not t.startswith("<unused") and "reserved" not in t][:40] + ["<|endoftext|>"]


@needs_shared
@pytest.mark.parametrize("name", HYPOTHESIS_FAMILIES)
@HYPOTHESIS
@given(data=st.data())
def test_hypothesis_text(name, data):
    needles = _needles(name)
    text = data.draw(st.one_of(S.text(), S.text_with(needles)), label="text")
    tok, oracle = tagpipe_for(name), oracle_for(name)
    report = Report(name, tok, oracle, tagpipe_outside(name))
    for add_special in (True, False):
        want = oracle.encode(text, add_special_tokens=add_special).ids
        run_and_compare(
            report, tok, [text], add_special, native=True, allowance=allowance(name), do_shrink=False, want=[want]
        )
    report.check()


def _bridge_pool(name: str) -> list[str]:
    """Characters and short strings that the vocabulary's multi-character tokens are made of
    (a sample), plus CJK, Cyrillic, marks, emoji and ASCII: long pieces of them put the cuts
    of cpp/model/bridge_cuts.h next to merges that span characters."""
    vocab = oracle_for(name).get_vocab()
    decoded = []
    for tok in sorted(vocab)[:: max(1, len(vocab) // 4000)]:
        text = oracle_for(name).decode([vocab[tok]])
        if 2 <= len(text) <= 4 and "\ufffd" not in text and not text.isspace():
            decoded.append(text.strip() or text)
    return decoded + list("中文字符的是一國語言русскийязыкéèàü\u0301\u0308😀🙂abcxyz0123-_.,")


@needs_shared
@pytest.mark.parametrize(
    "name", ["gpt2", "llama3", "gpt-4o", "qwen3", "deepseek-v3", "llama2", "mistral-7b-v0.1", "gemma3"]
)
def test_long_pieces_cut_exactly(name):
    """Pieces of 16+ bytes that the cache has not seen are cut where no merge can bridge two
    characters: long unspaced runs of vocabulary fragments, CJK, Cyrillic and marks, fresh each
    (so every one takes the cut path), equal the oracle's ids."""
    tok, oracle = tagpipe_for(name), oracle_for(name)
    pool = _bridge_pool(name)
    rng = random.Random(f"cuts:{name}")
    texts = []
    for _ in range(400):
        words = ["".join(rng.choice(pool) for _ in range(rng.randint(4, 40))) for _ in range(rng.randint(1, 4))]
        texts.append(rng.choice(["", " ", "\n"]).join(words))
    report = Report(name, tok, oracle, tagpipe_outside(name))
    run_and_compare(report, tok, texts, False, native=True, allowance=allowance(name))
    report.check()


# ---------------------------------------------------------------------------------------
# 4. Added tokens in awkward places
# ---------------------------------------------------------------------------------------


def _pick_added(tokens: list[dict]) -> list[dict]:
    """All added tokens, or a spread when there are many: at most 3 per "shape" (digits folded),
    unusual flags first."""

    def unusual(t):
        return t["lstrip"] or t["rstrip"] or t["single_word"] or t["normalized"] or not t["special"]

    ordered = sorted(tokens, key=lambda t: not unusual(t))
    if len(tokens) <= ADDED_TOKENS_MAX:
        return tokens
    seen: dict[str, int] = {}
    out = []
    for t in ordered:
        shape = "".join("0" if ch.isdigit() else ch for ch in t["content"])
        if seen.get(shape, 0) >= 3:
            continue
        seen[shape] = seen.get(shape, 0) + 1
        out.append(t)
    return out[:ADDED_TOKENS_MAX]


def awkward_texts(contents: list[str], seed: str) -> list[str]:
    rng = random.Random(f"awkward:{seed}")
    texts = ["", " ", "  ", "\n", "x", "Hello world", "Hello world. The end."]
    arounds = [
        ("", ""),
        (" ", ""),
        ("", " "),
        (" ", " "),
        ("  ", "  "),
        ("\n", "\n"),
        ("\t", "\t"),
        ("\r\n", "\r\n"),
        (" \n ", " \n "),
        ("ab", "cd"),
        ("ab ", " cd"),
        ("x", ""),
        ("", "x"),
        ("Hello", "world"),
        ("Hello ", " world"),
        ("Hello\n\n", "\n\nworld"),
        ("中", "文"),
        ("é", "é"),
        ("▁", "▁"),
        ("'", "'s"),
        ("123", "456"),
        ("😀", "😀"),
        ("\u0301", "\u0301"),
    ]
    for t in contents:
        for a, b in arounds:
            texts.append(a + t + b)
        texts += [
            t * 2,
            t * 3,
            t + " " + t,
            t + "\n" + t,
            " " + t + "  " + t + " ",
            t + "x" + t,
            "The " + t + " is " + t + t + ".",
            t + "Hello",
            "Hello" + t,
        ]
        if len(t) > 1:
            for k in sorted({1, len(t) // 2, len(t) - 1}):
                p, q = t[:k], t[k:]
                texts += [p, q, "a" + p + "b", p + t, t + p, p + " " + q, q + t + p, p + p]
            m = len(t) // 2
            other = rng.choice(contents)
            texts += [t[:m] + other + t[m:], other[: len(other) // 2] + t + other[len(other) // 2 :]]
    # adjacency: pairs, with and without separators
    for _ in range(min(300, len(contents) ** 2)):
        a, b = rng.choice(contents), rng.choice(contents)
        sep = rng.choice(["", "", " ", "  ", "\n", "\t", "x", " x ", "\n\n"])
        texts.append(a + sep + b)
    # one token inside another's text, and tokens that contain others
    inside = [(a, b) for a in contents for b in contents if a != b and a in b][:60]
    for a, b in inside:
        i = b.index(a)
        texts += [b, "x" + b + "x", b[:i] + a + a + b[i + len(a) :], b[:i] + " " + b[i:], b + a, a + b]
    for sep in ("", " ", "\n", " \t "):
        sample = rng.sample(contents, min(len(contents), 40))
        texts.append(sep.join(sample))
        texts.append("start" + sep + sep.join(sample) + sep + "end")
    return texts


@needs_shared
@pytest.mark.parametrize("add_special", [True, False], ids=["special", "nospecial"])
@pytest.mark.parametrize("name", ALL_NAMES)
def test_added_tokens_in_awkward_places(name, add_special):
    tok, oracle = tagpipe_for(name), oracle_for(name)
    tokens = _pick_added(tokenizer_json(name).get("added_tokens") or [])
    contents = [t["content"] for t in tokens] or ["<s>"]
    texts = awkward_texts(contents, name)
    report = Report(name, tok, oracle, tagpipe_outside(name))
    run_and_compare(report, tok, texts, add_special, native=name in NATIVE_NAMES, allowance=allowance(name))
    report.check()


# ---------------------------------------------------------------------------------------
# 5. Synthetic tokenizers
# ---------------------------------------------------------------------------------------

BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]


BL = BYTE_CHARS  # GPT-2's bytes_to_unicode: byte -> the character standing for it


LETTERS = list("abcdexyz")
ABC_MERGES = [("a", "b"), ("b", "c"), ("ab", "c"), ("c", "d"), ("abc", "d"), ("x", "y"), ("e", "e"), ("ee", "e")]
SP_MERGES = [
    ("▁", "a"),
    ("▁a", "b"),
    ("a", "b"),
    ("b", "c"),
    ("▁", "▁"),
    ("▁▁", "▁"),
    ("▁", "x"),
    ("ab", "c"),
    ("▁ab", "c"),
]
SPECIALS = ["<unk>", "<s>", "</s>"]


class Synthetic:
    def __init__(self, id, json_text, texts=(), needles=(), expect_native=True, oracle_expect=None):
        self.id, self.json, self.texts, self.needles = id, json_text, list(texts), list(needles)
        self.expect_native = expect_native
        self.oracle_expect = oracle_expect or {}  # text -> ids (documents an oracle quirk)


ABC_TEXTS = [
    "",
    " ",
    "a",
    "ab",
    "abc",
    "abcd",
    "abcabc",
    "ab cd",
    "a b c",
    "xyzzy",
    "eeee",
    "eeeee",
    "axb",
    "aéb",
    "a中b",
    "😀",
    "abc😀abc",
    "  abc  ",
    "\tab\ncd\r\n",
    "ABC",
    "a\u0301b",
    "é",
    "ē",
]


def synthetic_cases() -> list[Synthetic]:
    cases: list[Synthetic] = []
    sp_base = SPECIALS + BYTE_TOKENS + ["▁"] + LETTERS

    # byte_fallback with all 256 <0xXX> tokens (llama-style), with Metaspace or a Prepend/Replace normalizer
    v = _with_merged(sp_base, SP_MERGES)
    vid = {t: i for i, t in enumerate(v)}
    for fuse in (True, False):
        cases.append(
            Synthetic(
                f"byte_fallback_full_metaspace_fuse{fuse}",
                bpe_json(
                    v, SP_MERGES, unk="<unk>", fuse_unk=fuse, byte_fallback=True, pre=metaspace(), post=template(vid)
                ),
                ABC_TEXTS,
            )
        )
    cases.append(
        Synthetic(
            "byte_fallback_full_llama_normalizer",
            bpe_json(
                v,
                SP_MERGES,
                unk="<unk>",
                fuse_unk=True,
                byte_fallback=True,
                normalizer=seq(prepend("▁"), replace(" ", "▁")),
                post=template(vid),
                added_tokens=[added(s, special=True) for s in SPECIALS],
            ),
            ABC_TEXTS,
            needles=SPECIALS,
        )
    )
    # byte_fallback with only some byte tokens (é = C3 A9, \n = 0A): partial chars fall back to unk
    part = SPECIALS + ["<0xC3>", "<0xA9>", "<0x0A>", "<0xE4>"] + ["▁"] + LETTERS
    vp = _with_merged(part, SP_MERGES)
    for unk in ("<unk>", None):
        for fuse in (True, False):
            cases.append(
                Synthetic(
                    f"byte_fallback_partial_unk{unk is not None}_fuse{fuse}",
                    bpe_json(vp, SP_MERGES, unk=unk, fuse_unk=fuse, byte_fallback=True, pre=metaspace()),
                    ABC_TEXTS + ["é\n中", "ééé", "中中", "\n\n", "a\nb"],
                )
            )
    # unk, fused or not, with no / Whitespace pre-tokenizer
    v = _with_merged(["<unk>"] + LETTERS, ABC_MERGES)
    for fuse in (True, False):
        for pre_name, pre in (("null", None), ("whitespace", WHITESPACE)):
            cases.append(
                Synthetic(
                    f"unk_fuse{fuse}_{pre_name}",
                    bpe_json(v, ABC_MERGES, unk="<unk>", fuse_unk=fuse, pre=pre),
                    ABC_TEXTS + ["qqaqqb", "qq", "aqqb", "q q", "qabq", "ab  qq  ab"],
                )
            )
    # no unk: unknown characters are dropped and their neighbours merge across the gap
    cases.append(
        Synthetic(
            "no_unk_drops",
            bpe_json(["a", "b", "ab"], [("a", "b")]),
            ["axb", "xx", "x", "a", "aaxbb", "ab", "xaxbx", "a😀b", "a b"],
            oracle_expect={"axb": [2]},
        )
    )
    cases.append(
        Synthetic(
            "no_unk_whitespace",
            bpe_json(_with_merged(LETTERS, ABC_MERGES), ABC_MERGES, pre=WHITESPACE),
            ABC_TEXTS + ["qaqbq", "q"],
        )
    )
    # ignore_merges: a whole word in the vocabulary wins over the merges
    im_merges = [("b", "c"), ("a", "b"), ("c", "d"), ("Ġ", "a"), ("Ġa", "b")]
    im_vocab = _with_merged(["a", "b", "c", "d", "Ġ", "abc", "abcd"], im_merges)
    for ig in (True, False):
        cases.append(
            Synthetic(
                f"ignore_merges_{ig}_whitespace",
                bpe_json(im_vocab, im_merges, ignore_merges=ig, pre=WHITESPACE),
                ABC_TEXTS + ["abc abcd abc", "abcabc", "bcd"],
            )
        )
    bl_vocab = _with_merged(BL, [("a", "b"), ("Ġ", "a"), ("Ġa", "b"), ("b", "c")]) + ["abc", "Ġabc", "ĠĠ"]
    bl_merges = [("a", "b"), ("Ġ", "a"), ("Ġa", "b"), ("b", "c")]
    for ig in (True, False):
        cases.append(
            Synthetic(
                f"ignore_merges_{ig}_bytelevel",
                bpe_json(bl_vocab, bl_merges, ignore_merges=ig, pre=bytelevel()),
                ABC_TEXTS + [" abc abc", "abc", "  abc"],
            )
        )
    # continuing_subword_prefix "##" and end_of_word_suffix "</w>"
    pm = [("a", "##b"), ("##b", "##c"), ("a", "##bc"), ("x", "##y"), ("##c", "##d"), ("abc", "##d")]
    pv = _with_merged(["[UNK]"] + LETTERS + ["##" + c for c in LETTERS], pm, prefix="##")
    cases.append(
        Synthetic(
            "prefix_##",
            bpe_json(pv, pm, unk="[UNK]", prefix="##", pre=WHITESPACE),
            ABC_TEXTS + ["bc", "abcd bcd", "xyxy"],
        )
    )
    sm = [("a", "b"), ("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>"), ("ab", "c"), ("x", "y</w>")]
    sv = _with_merged(["<unk>"] + LETTERS + [c + "</w>" for c in LETTERS], sm)
    cases.append(
        Synthetic(
            "suffix_</w>",
            bpe_json(sv, sm, unk="<unk>", suffix="</w>", pre=WHITESPACE),
            ABC_TEXTS + ["abc abca", "bc", "xy xyx"],
        )
    )
    psm = [("a", "##b"), ("##b", "##c</w>"), ("a", "##bc</w>"), ("a", "##b</w>")]
    psv = _with_merged(
        ["<unk>"]
        + LETTERS
        + ["##" + c for c in LETTERS]
        + [c + "</w>" for c in LETTERS]
        + ["##" + c + "</w>" for c in LETTERS],
        psm,
        prefix="##",
    )
    cases.append(
        Synthetic(
            "prefix_and_suffix",
            bpe_json(psv, psm, unk="<unk>", prefix="##", suffix="</w>", pre=WHITESPACE),
            ABC_TEXTS + ["abc ab a"],
        )
    )
    # duplicated merges: the last rank wins; the same tokenizer with "a b" strings and pairs
    dv = ["a", "b", "c", "ab", "bc", "abc"]
    for form in ("pairs", "strings"):
        cases.append(
            Synthetic(
                f"duplicated_merges_{form}",
                bpe_json(dv, [("b", "c"), ("a", "b"), ("b", "c")], merge_form=form),
                ["abc", "abcabc", "bcab", "cab"],
                oracle_expect={"abc": [3, 2]},
            )
        )  # ab c: the duplicate's last rank (2) is the one used
        cases.append(
            Synthetic(
                f"merges_{form}",
                bpe_json(
                    _with_merged(["<unk>"] + LETTERS, ABC_MERGES),
                    ABC_MERGES,
                    unk="<unk>",
                    merge_form=form,
                    pre=WHITESPACE,
                ),
                ABC_TEXTS,
            )
        )
    # pairs can carry spaces (impossible as "a b" strings)
    spm = [(" ", "a"), (" a", "b"), ("a", " ")]
    cases.append(
        Synthetic(
            "merges_pairs_with_spaces",
            bpe_json(_with_merged([" ", "a", "b"], spm), spm),
            [" ab", "a b", "  ab ", "a ", " a a"],
        )
    )
    # added tokens: single_word / lstrip / rstrip / special, with every pre-tokenizer variant
    flag_tokens = [
        added("<r>", rstrip=True),
        added("<l>", lstrip=True),
        added("<lr>", lstrip=True, rstrip=True),
        added("sw", single_word=True),
        added("<sw>", single_word=True, lstrip=True),
        added("<S>", special=True),
        added("<Sr>", special=True, rstrip=True),
        added("ab", single_word=True, normalized=False),
        added("xyz"),
    ]
    flag_texts = [
        "<r>  <l>",
        "<r> <l>",
        "<r>\n<S>",
        "<r>  <S>",
        "x <r>  <S>y",
        "<lr>",
        "a  <lr>  b",
        "<r> <r> <r>",
        "\n<l>",
        "sw",
        "asw",
        "sw b",
        "swsw",
        " sw ",
        "a sw.",
        "sw!",
        "<sw>",
        "a<sw>b",
        "a <sw> b",
        "ab",
        "abc",
        " ab ",
        "cab",
        "<Sr>  <l>",
        "<Sr> \n x",
        "<r>",
        "  <l>",
        "<l><l>",
        "<r><r>",
        "<r>   <lr>   <l>",
        "xyzxyz",
        "<S><S>",
        "<S> <S>",
        " <S> ",
        "x\t<l>\ty",
        "<r>\u3000<l>",
        "<r>\xa0x",
        "é<l>",
        "<r>é",
    ]
    fv = {
        t: i
        for i, t in enumerate(
            _with_merged(["<unk>", " ", "▁", "Ġ"] + LETTERS + ["s", "w", "<", ">", "r", "l", "S"], ABC_MERGES)
        )
    }
    fbl = _with_merged(BL, [("a", "b"), ("Ġ", "a"), ("s", "w")])
    for pre_name, pre in (
        ("null", None),
        ("whitespace", WHITESPACE),
        ("metaspace", metaspace()),
        ("metaspace_first", metaspace("first")),
        ("metaspace_first_nosplit", metaspace("first", False)),
    ):
        cases.append(
            Synthetic(
                f"added_flags_{pre_name}",
                bpe_json(fv, ABC_MERGES, unk="<unk>", fuse_unk=True, pre=pre, added_tokens=flag_tokens),
                flag_texts,
                needles=[t["content"] for t in flag_tokens],
            )
        )
    cases.append(
        Synthetic(
            "added_flags_bytelevel",
            bpe_json(fbl, [("a", "b"), ("Ġ", "a"), ("s", "w")], pre=bytelevel(), added_tokens=flag_tokens),
            flag_texts,
            needles=[t["content"] for t in flag_tokens],
        )
    )
    cases.append(
        Synthetic(
            "added_flags_bytelevel_prefix_space",
            bpe_json(
                fbl,
                [("a", "b"), ("Ġ", "a"), ("s", "w")],
                pre=bytelevel(True),
                added_tokens=flag_tokens,
                post={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            ),
            flag_texts,
            needles=[t["content"] for t in flag_tokens],
        )
    )
    # normalized vs non-normalized added tokens under Prepend/Replace normalizers
    norm_tokens = [
        added("a b", normalized=True),
        added("c d", normalized=False),
        added("<x>", normalized=True),
        added("▁e", normalized=False),
        added("▁ab", normalized=True),
        added("<n>", special=True),
        added("dd", normalized=True),
        added("e e", normalized=True, lstrip=True),
    ]
    norm_texts = [
        "a b",
        "xa b",
        " a b ",
        "c d",
        "c  d",
        "▁e",
        " e",
        "e",
        "<x>",
        " <x>",
        "▁<x>",
        "ab",
        " ab",
        "▁ab",
        "x ab",
        "<n>ab",
        " <n> ",
        "ddd",
        "d d",
        "e e",
        "  e e",
        "▁e▁e",
    ]
    nv = _with_merged(["<unk>", "▁", " ", "<", ">"] + LETTERS + ["n"], SP_MERGES)
    for nname, norm, pre in (
        ("llama", seq(prepend("▁"), replace(" ", "▁")), None),
        ("prepend", prepend("▁"), None),
        ("replace", replace(" ", "▁"), None),
        ("replace_metaspace", replace("d", "e"), metaspace("never")),
        ("prepend_whitespace", prepend("▁"), WHITESPACE),
    ):
        cases.append(
            Synthetic(
                f"normalized_added_{nname}",
                bpe_json(nv, SP_MERGES, unk="<unk>", fuse_unk=True, normalizer=norm, pre=pre, added_tokens=norm_tokens),
                norm_texts + ABC_TEXTS,
                needles=[t["content"] for t in norm_tokens],
            )
        )
    # Sequence normalizers: chained replaces (multi-character, deleting, growing), with NFC
    sv = _with_merged(["<unk>", "▁", "#", "y", "z", "\u0301", "é"] + LETTERS, SP_MERGES)
    for nname, norm in (
        ("chain", seq(replace("ab", "x"), replace("x", "yz"), prepend("#"))),
        ("delete", seq(replace("c", ""), replace("  ", " "))),
        ("overlap", seq(replace("aa", "b"), replace("bb", "a"))),
        ("empty_sequence", seq()),
        ("nested", seq(seq(prepend("▁")), seq(replace(" ", "▁"), seq()))),
    ):
        cases.append(
            Synthetic(
                f"sequence_{nname}",
                bpe_json(
                    sv,
                    SP_MERGES,
                    unk="<unk>",
                    normalizer=norm,
                    added_tokens=[added("yz", normalized=True), added("<S>", special=True)],
                ),
                ABC_TEXTS + ["aaa", "aaaa", "abab", "xab", "cc  cc", "ccc"],
                needles=["yz", "<S>", "ab"],
            )
        )
    for nname, norm in (
        ("nfc", seq({"type": "NFC"}, replace(" ", "▁"))),
        ("replace_then_nfc", seq(replace("q", "\u0301"), {"type": "NFC"})),
        ("nfc_alone", {"type": "NFC"}),
    ):
        cases.append(
            Synthetic(
                f"sequence_{nname}",
                bpe_json(
                    sv,
                    SP_MERGES,
                    unk="<unk>",
                    normalizer=norm,
                    added_tokens=[added("é", normalized=True), added("e\u0301x", normalized=False)],
                ),
                ABC_TEXTS + ["eq", "e\u0301", "é", "e\u0301x", "éx", "aq", "\u212b"],
                needles=["é", "e\u0301"],
            )
        )
    # a regex Replace runs the compiled regex; one outside its subset is delegated, still exact
    cases.append(
        Synthetic(
            "replace_regex",
            bpe_json(
                sv, SP_MERGES, unk="<unk>", normalizer={"type": "Replace", "pattern": {"Regex": "a+"}, "content": "b"}
            ),
            ABC_TEXTS,
        )
    )
    cases.append(
        Synthetic(
            "replace_regex_delegated",
            bpe_json(
                sv,
                SP_MERGES,
                unk="<unk>",
                normalizer={"type": "Replace", "pattern": {"Regex": "(?<=a)a+"}, "content": "b"},
            ),
            ABC_TEXTS,
            expect_native=False,
        )
    )
    # ByteLevel variants and post-processors
    blv = _with_merged(BL, [("Ġ", "a"), ("Ġa", "b"), ("a", "b"), ("Ċ", "Ċ"), ("Ġ", "Ġ")])
    blm = [("Ġ", "a"), ("Ġa", "b"), ("a", "b"), ("Ċ", "Ċ"), ("Ġ", "Ġ")]
    blv_ids = {t: i for i, t in enumerate(blv + ["<s>", "</s>"])}
    for aps in (False, True):
        for rx in (True, False):
            cases.append(
                Synthetic(
                    f"bytelevel_prefix{aps}_regex{rx}",
                    bpe_json(
                        blv,
                        blm,
                        pre=bytelevel(aps, rx),
                        added_tokens=[added("<s>", special=True), added("</s>", special=True)],
                    ),
                    ABC_TEXTS + [" ab\n\nab", "ab's", "\n\n\n"],
                    needles=["<s>", "</s>"],
                )
            )
    for pname, post in (
        (
            "roberta",
            {
                "type": "RobertaProcessing",
                "sep": ["</s>", blv_ids["</s>"]],
                "cls": ["<s>", blv_ids["<s>"]],
                "trim_offsets": True,
                "add_prefix_space": False,
            },
        ),
        ("bert", {"type": "BertProcessing", "sep": ["</s>", blv_ids["</s>"]], "cls": ["<s>", blv_ids["<s>"]]}),
        ("template", template(blv_ids)),
        (
            "sequence",
            {
                "type": "Sequence",
                "processors": [
                    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
                    template(blv_ids),
                ],
            },
        ),
    ):
        cases.append(
            Synthetic(
                f"post_{pname}",
                bpe_json(
                    blv,
                    blm,
                    pre=bytelevel(),
                    post=post,
                    added_tokens=[added("<s>", special=True), added("</s>", special=True)],
                ),
                ABC_TEXTS,
                needles=["<s>", "</s>"],
            )
        )
    # Metaspace variants
    mv = _with_merged(["<unk>"] + LETTERS + ["▁"], SP_MERGES)
    for scheme in ("always", "first", "never"):
        for split in (True, False):
            cases.append(
                Synthetic(
                    f"metaspace_{scheme}_split{split}",
                    bpe_json(
                        mv,
                        SP_MERGES,
                        unk="<unk>",
                        fuse_unk=True,
                        pre=metaspace(scheme, split),
                        added_tokens=[added("<s>", special=True)],
                    ),
                    ABC_TEXTS + ["▁ab", " ▁ab", "ab▁ab", "<s>ab", "<s> ab"],
                    needles=["<s>", "▁"],
                )
            )
    # Vocabulary strings that are not their own BPE (no merge builds them): a piece equal to one
    # is still merged -- a plain vocabulary lookup would give "xyz" one id.
    uv = _with_merged(["<unk>"] + LETTERS, ABC_MERGES) + ["xyz", "bd", "dcba", "zz"]
    uid = {t: i for i, t in enumerate(uv)}
    unbuilt = {
        "xyz": [uid["xy"], uid["z"]],
        "bd": [uid["b"], uid["d"]],
        "zz": [uid["z"], uid["z"]],
        "abcd": [uid["abcd"]],
    }
    unbuilt_texts = ABC_TEXTS + ["xyz bd dcba zz abcd", "xyz xyz", "zzz bdbd", "dcba abc"]
    cases.append(
        Synthetic(
            "unbuilt_vocab_strings_whitespace",
            bpe_json(uv, ABC_MERGES, unk="<unk>", pre=WHITESPACE),
            unbuilt_texts,
            oracle_expect=unbuilt,
        )
    )
    cases.append(
        Synthetic(
            "unbuilt_vocab_strings_bytelevel",
            bpe_json(uv, ABC_MERGES, pre=bytelevel()),
            unbuilt_texts,
            oracle_expect=unbuilt,
        )
    )
    # Long ByteLevel pieces are cut before characters no merge result bridges to the one before
    # (cpp/model/bridge_cuts.h).  A result "aé" bridges a|é, so that boundary stays whole; with
    # ignore_merges, a part that is a vocabulary string whose merges give something else ("bcd":
    # its merges give bc d) would become one token, so such a piece is not cut at all.  As a piece of
    # its own, "bcd" is then one token, and bc d without ignore_merges.
    # (BL[0xA9], BL[0xE4]), first: a result that starts inside é and ends inside 中, so "é中"
    # is Ã ©ä ¸ ­ -- é|中 stays whole by the partial signatures (the pairs hold only
    # characters a result has whole).
    e_acute = BL[0xC3] + BL[0xA9]
    bridge_merges = [(BL[0xA9], BL[0xE4]), (BL[0xC3], BL[0xA9]), ("a", e_acute), ("b", "c"), ("c", "d")]
    # ("q" * 17: with ignore_merges a piece of 16+ bytes that is a vocabulary string is its
    # token -- Bpe::whole_piece's filter of such strings must let it through.  "q" * 300: the
    # same past the word cache's longest key, where the encoder computes no hash for it.)
    bv = _with_merged(list(BL), bridge_merges) + ["bcd", "q" * 17, "q" * 300]
    bid = {t: i for i, t in enumerate(bv)}
    bridge_texts = [
        "x" * 12 + "aé" + "y" * 12,
        "z" * 7 + "bcd" + "z" * 9,
        "é" * 9 + "aé" * 5,
        "bcd" * 6,
        "abcdé" * 5,
        "中文" * 6 + "aé",
        " " + "éa" * 10,
        "bcd",
        "bcd bcd. bc,bcd",
        "q" * 17,
        "q" * 17 + "é",
        "q" * 18,
        "q" * 16,
        "é中" * 6,
        "x" * 12 + "é中" + "y" * 12,
        "q" * 300,
        "q" * 301,
        "bcd" * 100,
        "aé" * 150,
    ]
    bridge_expect = {
        "x" * 12 + "aé" + "y" * 12: [bid["x"]] * 12 + [bid["a" + e_acute]] + [bid["y"]] * 12,
        "z" * 7 + "bcd" + "z" * 9: [bid["z"]] * 7 + [bid["bc"], bid["d"]] + [bid["z"]] * 9,
        "x" * 12 + "é中" + "y" * 12: [bid["x"]] * 12
        + [bid[BL[0xC3]], bid[BL[0xA9] + BL[0xE4]], bid[BL[0xB8]], bid[BL[0xAD]]]
        + [bid["y"]] * 12,
    }
    for ignore in (False, True):
        bridge_expect = dict(
            bridge_expect,
            bcd=[bid["bcd"]] if ignore else [bid["bc"], bid["d"]],
            **{
                "q" * 17: [bid["q" * 17]] if ignore else [bid["q"]] * 17,
                "q" * 300: [bid["q" * 300]] if ignore else [bid["q"]] * 300,
            },
        )
        cases.append(
            Synthetic(
                f"bytelevel_cuts_ignore_merges{ignore}",
                bpe_json(bv, bridge_merges, ignore_merges=ignore, pre=bytelevel()),
                ABC_TEXTS + bridge_texts,
                oracle_expect=bridge_expect,
            )
        )
    # A ByteLevel vocabulary without some bytes' characters (falcon lacks 28: control characters
    # and bytes no UTF-8 text has): BPE drops such a byte and the symbols on either side of it
    # may then merge ("a\x03b" is "ab"), so a piece that holds one is never cut; the others are.
    # (use_regex off: the whole text is one piece -- the regex would cut at the control byte.)
    holes, hole_merges = {BL[0x03], BL[0x1E]}, [("a", "b"), ("c", "d"), ("ab", "cd")]
    hv = [t for t in _with_merged(list(BL), hole_merges) if t not in holes]
    hid = {t: i for i, t in enumerate(hv)}
    hole_texts = [
        "x" * 20 + "a\x03b",
        "a\x03b" * 8,
        "ax\x03bx" * 5,
        "ab" * 10 + "\x1e" + "cd" * 10,
        "abcd" * 6,
        "x" * 9 + "a\x03\x1eb" * 6,
        "\x03" * 20,
        "x" * 30,
        "a\x03b",
        "ab\x03cd" * 4 + "x" * 9,
    ]
    hole_expect = {
        "x" * 20 + "a\x03b": [hid["x"]] * 20 + [hid["ab"]],
        "ab\x03cd" * 4 + "x" * 9: [hid["abcd"]] * 4 + [hid["x"]] * 9,
    }
    cases.append(
        Synthetic(
            "bytelevel_cuts_missing_bytes",
            bpe_json(hv, hole_merges, pre=bytelevel(use_regex=False)),
            ABC_TEXTS + hole_texts,
            oracle_expect=hole_expect,
        )
    )
    # The same cuts in plain (Metaspace) pieces of 16+ bytes.  They are exact only while an
    # unknown character's symbols never merge: no character dropped (its neighbours could merge
    # across it: "a中b" is "ab" without unk or byte_fallback), no merge taking a <0xXX> token,
    # and with fuse_unk no cut between two unknown characters (one unk for "中文").
    # (Merges of a one-byte character and a longer one -- "éa", "x文", "文é" -- give pairs like
    # any other: bridge_cuts.h takes each merge's left string's last character and its right
    # string's first, whatever their lengths.)
    # ("п", "р"), ("字", "符"), ("d", "符"): merges of two two-byte, two three-byte and an
    # ASCII and a three-byte character, so п|р, 字|符 and d|符 stay whole while р|п and 符|字
    # are cut -- by the character-pair filter of bridge_cuts.h; with each pair read the
    # wrong way round (y then x) it would cut them all.
    plain_merges = [
        ("a", "é"),
        ("x", "x"),
        ("▁", "x"),
        ("a", "b"),
        ("▁", "a"),
        ("é", "a"),
        ("x", "文"),
        ("文", "é"),
        ("字", "符"),
        ("п", "р"),
        ("d", "符"),
    ]
    plain_texts = [
        "x" * 12 + "aé" + "y" * 12,
        "x" * 12 + "中文" + "y" * 12,
        "x" * 12 + "a中b" + "y" * 12,
        "é" * 8 + "中" * 6 + "aé" * 4,
        "ab" * 9 + "中" + "ab" * 9,
        "😀" * 5 + "x" * 9 + "文😀é",
        "xxxxxxxx aéaéaéaéaéaé 中文中文中文中文中文 abababababab",
        "éa" * 10,
        "y" + "éa" * 9 + "y",
        "x文" * 8,
        "文é" * 7 + "a",
        "yx文éa" * 5,
        "文" * 9 + "é" + "a" * 6,
        "b" * 9 + "x文" + "éé",
        "字符" * 9,
        "符" + "字符" * 8 + "字",
        "x" * 12 + "字符" + "y" * 12,
        "字文符字符é字" * 3,
        "пр" * 9,
        "р" + "пр" * 8 + "п",
        "x" * 12 + "пр" + "y" * 12,
        "d符" * 9,
        "x" * 12 + "d符" + "y" * 12,
    ]
    plain_base = ["<unk>"] + ["▁"] + LETTERS + ["é", "文", "字", "符", "п", "р"]
    for label, extra, kw in [
        ("byte_fallback", BYTE_TOKENS, dict(unk="<unk>", byte_fallback=True)),
        ("unk_fused", [], dict(unk="<unk>", fuse_unk=True)),
        ("unk_unfused", [], dict(unk="<unk>", fuse_unk=False)),
        ("dropped", [], dict()),
    ]:
        pv = _with_merged(plain_base + extra, plain_merges)
        cases.append(
            Synthetic(
                f"metaspace_cuts_{label}", bpe_json(pv, plain_merges, pre=metaspace(), **kw), ABC_TEXTS + plain_texts
            )
        )
    # A part of a cut piece that the word cache does not know is cut again where no merge can
    # split in context (Bpe::refine: BridgeCuts's quads -- the merge's left string ending with
    # the characters before the boundary, its right one starting with those after it).  Here
    # a|b splits only after c ("ca" + "b") or before d ("a" + "bd"), р|a always ("р" + "a"),
    # d|п only before р ("d" + "пр"): "dab" cuts a|b, "cab" and "abd" do not.  Every text twice (its
    # second sighting finds the refined parts, and the parts cached whole).
    refine_merges = [("c", "a"), ("ca", "b"), ("b", "d"), ("a", "bd"), ("п", "р"), ("р", "a"), ("d", "пр")]
    refine_rng = random.Random("refine")
    refine_texts = ["dab" * 7, "cab" * 7, "abd" * 7, "cabd" * 5, "dпрa" * 6, "пр" * 10 + "a", "dabпрab" * 4]
    refine_texts += [
        "".join(refine_rng.choice("abcdпр" + "ab" * 3) for _ in range(refine_rng.randint(8, 40)))
        + refine_rng.choice(["", " ", " dab"])
        for _ in range(150)
    ]
    for label, extra, kw in [
        ("byte_fallback", BYTE_TOKENS, dict(unk="<unk>", byte_fallback=True)),
        ("unk_fused", [], dict(unk="<unk>", fuse_unk=True)),
    ]:
        rv = _with_merged(["<unk>", "▁"] + LETTERS + ["п", "р"] + extra, refine_merges)
        cases.append(
            Synthetic(
                f"metaspace_refine_{label}",
                bpe_json(rv, refine_merges, pre=metaspace(), **kw),
                ABC_TEXTS + refine_texts * 2,
            )
        )
    bytes_merges = plain_merges + [("<0xE4>", "<0xB8>")]
    pv = _with_merged(plain_base + BYTE_TOKENS, bytes_merges)
    cases.append(
        Synthetic(
            "metaspace_cuts_byte_tokens_merge",
            bpe_json(pv, bytes_merges, unk="<unk>", byte_fallback=True, pre=metaspace()),
            ABC_TEXTS + plain_texts,
        )
    )
    # Sequence pre-tokenizer (Whitespace-then-Metaspace)
    cases.append(
        Synthetic(
            "pre_sequence",
            bpe_json(
                mv, SP_MERGES, unk="<unk>", pre={"type": "Sequence", "pretokenizers": [WHITESPACE_SPLIT, metaspace()]}
            ),
            ABC_TEXTS,
        )
    )
    return cases


SYNTHETIC = synthetic_cases()


def synthetic_texts(case: Synthetic) -> list[str]:
    vocab_chars = sorted(
        {ch for t in json.loads(case.json)["model"]["vocab"] for ch in t if len(t) <= 3 and not t.startswith("<0x")}
    )
    pool = vocab_chars + [" ", " ", "  ", "\n", "\t", "é", "中", "😀", "q", "\u0301", "▁", "A"]
    rng = random.Random(f"synthetic:{case.id}")
    out = list(case.texts)
    for _ in range(SYNTHETIC_RANDOM_TEXTS):
        parts = []
        for _ in range(rng.randint(0, 10)):
            if case.needles and rng.random() < 0.2:
                parts.append(rng.choice(case.needles))
            else:
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 5))))
        out.append("".join(parts))
    out += S.random_texts(60, seed=zlib.crc32(case.id.encode()), needles=case.needles)
    return out


@pytest.mark.parametrize("case", SYNTHETIC, ids=[c.id for c in SYNTHETIC])
def test_synthetic_tokenizer(case):
    oracle = tokenizers.Tokenizer.from_str(case.json)
    if case.expect_native:
        with tagpipe.delegation_disabled():
            tok = tagpipe.Tokenizer.from_str(case.json)
        assert tok.native, tok.explain()
    else:
        tok = tagpipe.Tokenizer.from_str(case.json)
        assert not tok.native, tok.explain()
    for text, ids in case.oracle_expect.items():  # the quirk the case documents is real
        assert oracle.encode(text).ids == ids, (text, oracle.encode(text).ids)
    rules = allowance_for(json.loads(case.json)["normalizer"])
    outside = tagpipe.Tokenizer.from_str(case.json) if rules is not None else tok
    report = Report(case.id, tok, oracle, outside)
    texts = synthetic_texts(case)
    for add_special in (True, False):
        # (their texts come from a pool full of U+0301 and é: most need NFC's delegation)
        run_and_compare(report, tok, texts, add_special, native=case.expect_native, allowance=rules, max_share=0.8)
    report.check()


@pytest.mark.parametrize("layout", ["affine", "packed", "quotient", "wide"])
def test_merge_table_layouts(layout):
    """The merge table's slot forms (cpp/model/merge_table.h), each from a vocabulary whose ids
    force it: results in merge order (affine: no result stored); shuffled ids (packed: pair,
    rank and result would fit 64 bits even whole); ids up to 2^20 (quotient: 40 + 9 + 20 bits
    do not fit, the 30-bit quotient of the pair does, with a 5-bit distance); ids up to 2^22
    (wide: not even the quotient fits, 16-byte slots).  Many merges, so that words have
    several candidate pairs at once, against the oracle.  (The self-test checks which form
    each of its shapes gets.)"""
    rng = random.Random(f"layouts:{layout}")
    base = list("abcdefgh")
    merges, have = [], set(base)
    while len(merges) < 300:
        a, b = rng.choice(sorted(have)), rng.choice(sorted(have))
        if len(a) + len(b) <= 6 and a + b not in have:
            merges.append((a, b))
            have.add(a + b)
    tokens = _with_merged(base, merges)
    ids = list(range(len(tokens)))
    if layout != "affine":
        rng.shuffle(ids)
    if layout in ("quotient", "wide"):
        ids = [i * ((1 << (20 if layout == "quotient" else 22)) // len(tokens)) + 1 for i in ids]
    vocab = dict(zip(tokens, ids))
    text_json = bpe_json(vocab, merges, pre=WHITESPACE)
    oracle = tokenizers.Tokenizer.from_str(text_json)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
    texts = ["".join(rng.choice("abcdefgh  ") for _ in range(rng.randint(0, 80))) for _ in range(400)]
    texts += [" ".join(tokens), "".join(tokens)]
    report = Report(f"layout-{layout}", tok, oracle, tok)
    run_and_compare(report, tok, texts, False)
    report.check()


GAP_TOKENS = ["\n", "\n\n", "<b>", "</b>", "\t"]


@pytest.mark.parametrize("form", ["gemma", "llama", "bytelevel"])
def test_gaps_between_raw_added_tokens_are_encoded_together_exactly(form):
    """Encoder::encode_gaps: the gaps between raw (normalized=false) added tokens are normalized
    one by one, pre-tokenized in one run and encoded in one pass, the tokens' ids placed between
    them.  Texts full of such tokens -- gemma-3's "\n" makes every line a gap -- adjacent, at
    the ends, around empty gaps and gaps the normalizer changes (llama's Prepend writes a mark
    at the start of each gap), longer than the 32 KiB a run takes (the rest goes to the next
    run); against the oracle, with and without specials, on 1 and 2 threads, with a tiny cache
    (misses waiting across the runs), and right-truncated (the run stops early)."""
    added_tokens = [added(t, normalized=False) for t in GAP_TOKENS] + [added("<s>", special=True)]
    if form == "bytelevel":
        merges = [("Ġ", "a"), ("a", "b"), ("Ġa", "b"), ("Ċ", "Ċ"), ("x", "y")]
        vocab = _with_merged(BYTE_CHARS, merges)
        pre = bytelevel(add_prefix_space=False)
        text_json = bpe_json(vocab, merges, pre=pre, added_tokens=added_tokens)
    else:
        vocab = _with_merged(SPECIALS + BYTE_TOKENS + ["▁", "<", ">", "/", "\n", "\t"] + LETTERS, SP_MERGES)
        normalizer = replace(" ", "▁") if form == "gemma" else seq(prepend("▁"), replace(" ", "▁"))
        pre = (
            {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False}
            if form == "gemma"
            else None
        )
        text_json = bpe_json(
            vocab, SP_MERGES, unk="<unk>", byte_fallback=True, normalizer=normalizer, pre=pre, added_tokens=added_tokens
        )
    oracle = tokenizers.Tokenizer.from_str(text_json)
    rng = random.Random(f"gaps:{form}")
    pool = GAP_TOKENS + ["<s>", "a", "ab c", " ", "  ", "xy", "abc d", "é", "中", "<", ">", "/", "\r", "e e"]
    texts = [
        "",
        "\n",
        "\n\n\n",
        "<b></b>",
        "a\n",
        "\na",
        " \n ",
        "a\n\nb",
        "\n \n",
        "<s>\n<s>",
        "abc\tabc\n\tx <b>y</b> z\n",
    ]
    texts += ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(300)]
    texts.append("".join(rng.choice(pool) for _ in range(30_000)))  # several runs of 32 KiB
    for cache in (None, 4096):
        with tagpipe.delegation_disabled():
            tok = tagpipe.Tokenizer.from_str(text_json, cache_bytes=cache)
        report = Report(f"gaps-{form}-{cache}", tok, oracle, tok)
        for add_special in (True, False):
            run_and_compare(report, tok, texts, add_special)
        report.check()
        want = [e.ids for e in oracle.encode_batch(texts)]
        ids, offsets = tok.encode_batch_flat(texts, num_threads=2)
        assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))] == want
    for limit in (1, 7, 50):
        doc = json.loads(text_json)
        doc["truncation"] = {"direction": "Right", "max_length": limit, "strategy": "LongestFirst", "stride": 0}
        truncated = json.dumps(doc)
        ref = tokenizers.Tokenizer.from_str(truncated)
        with tagpipe.delegation_disabled():
            tok = tagpipe.Tokenizer.from_str(truncated)
        for text in texts[:60] + texts[-1:]:
            assert tok.encode(text) == ref.encode(text).ids, (limit, text[:80])


def test_misses_wait_across_added_tokens_and_a_delegated_gap():
    """The word cache's misses wait across the gaps between added tokens (Encoder::keep_jobs),
    in buffers of their own; a later gap that must be delegated (NFC changes it) drops them,
    and the texts after it are unaffected -- one thread and two, every word new to the cache."""
    letters = "abcde"
    vocab = ["[UNK]", *letters, "\u0301", "é", "ab", "cd", "abcd", "ea"]
    merges = [("a", "b"), ("c", "d"), ("ab", "cd"), ("e", "a")]
    # (Lowercase: each gap's normalized text is in a buffer the next gap reuses)
    normalizer = {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]}
    json_text = bpe_json(
        vocab,
        merges,
        unk="[UNK]",
        normalizer=normalizer,
        pre={"type": "Whitespace"},
        added_tokens=[added("<sep>", normalized=False)],
    )
    rng = random.Random(5)

    def words(k):
        return " ".join(
            "".join(rng.choice(letters + letters.upper()) for _ in range(rng.randint(1, 9))) for _ in range(k)
        )

    plain = "<sep>".join(words(7) for _ in range(12))
    late = "<sep>".join(words(5) for _ in range(6)) + "<sep>cafe\u0301"  # NFC changes its last gap
    texts = [plain, late, words(40), "<sep>".join(words(3) for _ in range(30)), late, plain]
    want = [e.ids for e in tokenizers.Tokenizer.from_str(json_text).encode_batch(texts)]
    for threads in (1, 2):
        tok = tagpipe.Tokenizer.from_str(json_text)  # (a new cache: every word a miss at first)
        ids, offsets = tok.encode_batch_flat(texts, num_threads=threads)
        assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))] == want, threads
        assert [tagpipe.Tokenizer.from_str(json_text).encode(t) for t in texts] == want


def assert_cached_passes_exact(json_text, texts, oracle, budgets):
    """The same texts three times on one tokenizer (the later passes find what the earlier ones
    cached), for each word-cache budget, on 1 and 2 threads, then one by one: the oracle's ids."""
    want = [e.ids for e in oracle.encode_batch(texts)]
    for cache_bytes in budgets:
        for threads in (1, 2):
            tok = tagpipe.Tokenizer.from_str(json_text, cache_bytes=cache_bytes)
            for _ in range(3):
                ids, offsets = tok.encode_batch_flat(texts, num_threads=threads)
                got = [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))]
                assert got == want, (cache_bytes, threads)
            assert [tok.encode(t) for t in texts] == want


def test_cut_pieces_of_short_parts_are_cached_whole_exactly():
    """A long piece cut into parts of under two bytes on average (GPT-2's indentation) is cached
    whole once every part hit (encode_pieces, cpp/encode/piece_loop.h): the ids cached are exactly its parts'
    ids -- not when a part missed (its ids wait in a hole), nor when a flush of the waiting
    misses moved the ids before it.  Long words of a few letters, fresh words around them so
    that misses wait and flush mid-piece, the same texts again and again (the cached pieces
    are then hits), with a default cache and a tiny one (wiped as it fills), 1 and 2 threads."""
    letters = "abcde"
    vocab = ["[UNK]", *letters, "ab", "abc", "de"]
    merges = [("a", "b"), ("ab", "c"), ("d", "e")]
    json_text = bpe_json(vocab, merges, unk="[UNK]", pre={"type": "Whitespace"})
    oracle = tokenizers.Tokenizer.from_str(json_text)
    rng = random.Random(11)

    unknown = "fghijklmnopqrstuvwxyz"  # (no cut between two unknown characters: a pair is one part)

    def word(lo, hi):  # a fresh word: a miss, mostly
        return "".join(rng.choice(letters + unknown) for _ in range(rng.randint(lo, hi)))

    def long_word():  # known letters, one part each, and unknown pairs, one part each (often new)
        parts = [
            rng.choice(letters) if rng.random() < 0.7 else rng.choice(unknown) + rng.choice(unknown)
            for _ in range(rng.randint(12, 80))
        ]
        return "".join(parts)

    longs = [long_word() for _ in range(60)]
    texts = [
        " ".join(rng.choice(longs) if rng.random() < 0.4 else word(1, 12) for _ in range(rng.randint(1, 80)))
        for _ in range(80)
    ]
    assert_cached_passes_exact(json_text, texts, oracle, (None, 4096))


def test_medium_tier_pieces_exactly():
    """The word cache's medium tier (cpp/model/word_cache.h): pieces of 16-31 bytes and short
    ones with 5-12 ids live in it, a piece with more ids in the long table behind a marker in
    each earlier table, and a cut piece of 16-31 bytes with at most 12 ids is cached whole
    at its second sighting with every part a hit (encode_pieces, cpp/encode/piece_loop.h).  Words of
    two-letter units (each a token, a cut between any two), runs of unknown characters (an
    unk each, never cut: 5-30 ids), mixed with fresh words, the same texts again and again,
    with a default cache, one wiped as it fills and one too small for a medium table; 1 and
    2 threads -- every pass against the oracle."""
    units = ["ab", "cd", "ef", "gh", "жз"]
    vocab = ["[UNK]", *"abcdefghжз", *units]
    merges = [(u[0], u[1]) for u in units]
    json_text = bpe_json(vocab, merges, unk="[UNK]", pre={"type": "Whitespace"})
    oracle = tokenizers.Tokenizer.from_str(json_text)
    rng = random.Random(13)

    def cut_word():  # 4-20 units or letters: 16-31 bytes, mostly, cut into parts of one id
        return "".join(
            rng.choice(units) if rng.random() < 0.8 else rng.choice("abcdefgh") for _ in range(rng.randint(4, 20))
        )

    def unknown_run():  # 2-30 unknown characters: as many unk ids, one part
        return "".join(rng.choice("xyzw") for _ in range(rng.randint(2, 30)))

    words = [cut_word() for _ in range(80)] + [unknown_run() for _ in range(80)]
    texts = [
        " ".join(
            rng.choice(words) if rng.random() < 0.7 else cut_word() + rng.choice(["", unknown_run()])
            for _ in range(rng.randint(1, 60))
        )
        for _ in range(60)
    ]
    lengths = {len(w.encode()) for t in texts for w in t.split()}
    assert {n for n in lengths if 16 <= n <= 31} and {n for n in lengths if n < 16}
    assert_cached_passes_exact(json_text, texts, oracle, (None, 300_000, 4096))


def test_explain_names_the_cut_rule():
    """explain() says whether long new pieces are cut, and which exactness condition stops it."""
    by_id = {c.id: c for c in SYNTHETIC}
    cases = {
        "bytelevel_cuts_ignore_mergesFalse": "BPE cuts: a new piece of 16+ bytes is cut",
        "metaspace_cuts_byte_fallback": "BPE cuts: a new piece of 16+ bytes is cut",
        "metaspace_cuts_dropped": "BPE cuts: off (an unknown character is dropped",
        "metaspace_cuts_byte_tokens_merge": "BPE cuts: off (a merge takes a <0xXX> or unk token)",
        "bytelevel_cuts_missing_bytes": "(cpp/model/bridge_cuts.h); not a piece that holds one of the 2 bytes "
        "whose ByteLevel character is not in the vocabulary",
    }
    for case, line in cases.items():
        assert line in tagpipe.Tokenizer.from_str(by_id[case].json).explain(), case


def test_harness_nfc_active():
    """Harness self-check of the NFC-delegation criterion (needs no tagpipe)."""

    def nfc_active(text):
        return active_chars("NFC", text)

    assert nfc_active("Hello world, 日本語 Привет 😀 ĳ é") == []
    assert nfc_active("e\u0301") == ["\u0301"]  # composes with e
    assert nfc_active("\u212b") == ["\u212b"]  # a singleton: changed alone
    assert nfc_active("\u1100\u1161") == ["\u1161"]  # Hangul L+V
    assert nfc_active("\u0323") == ["\u0323"]  # ccc 220: reordered before U+0301
    assert "\u0334" in nfc_active("\u0334")  # ccc 1: moves before a ccc-240 mark


def _own_token_strings(oracle, byte_level: bool) -> int:
    """How many vocabulary strings of 1..15 bytes (as pieces: raw bytes for ByteLevel) the
    oracle's own BPE gives as their own token."""
    byte_of = {c: b for b, c in enumerate(BL)}
    n = 0
    for s, i in oracle.get_vocab(with_added_tokens=False).items():
        if byte_level and any(c not in byte_of for c in s):
            continue
        size = len(s) if byte_level else len(s.encode())
        n += 1 <= size <= 15 and [t.id for t in oracle.model.tokenize(s)] == [i]
    return n


@pytest.mark.parametrize(
    "case_id,byte_level",
    [
        ("unbuilt_vocab_strings_whitespace", False),
        ("unbuilt_vocab_strings_bytelevel", True),
        ("ignore_merges_True_whitespace", False),
        ("ignore_merges_False_whitespace", False),
    ],
)
def test_word_seed_is_the_strings_that_are_their_own_token(case_id, byte_level):
    """The word seed (cpp/model/word_seed.h) holds exactly the vocabulary strings whose BPE is
    their own token -- "xyz", "bd", "dcba", "zz" are not (no merge builds them) -- and with
    ignore_merges every string; none with a continuing-subword prefix."""
    case = {c.id: c for c in SYNTHETIC}[case_id]
    oracle = tokenizers.Tokenizer.from_str(case.json)
    tok = tagpipe.Tokenizer.from_str(case.json)
    assert tok._native.seed_size == _own_token_strings(oracle, byte_level) > 0
    assert f"word seed: {tok._native.seed_size} vocabulary strings" in tok.explain()
    prefixed = tagpipe.Tokenizer.from_str({c.id: c for c in SYNTHETIC}["prefix_##"].json)
    assert prefixed._native.seed_size == 0 and "word seed: none" in prefixed.explain()


@needs_shared
@pytest.mark.parametrize("name,byte_level", [("gpt2", True), ("llama2", False)])
def test_word_seed_of_real_vocabularies(name, byte_level):
    path = str(SHARED / "tokenizers" / name / "tokenizer.json")
    assert tagpipe.Tokenizer.from_file(path)._native.seed_size == _own_token_strings(
        tokenizers.Tokenizer.from_file(path), byte_level
    )


def test_synthetic_cases_are_distinct_where_it_matters():
    """Harness self-check: the option pairs really change the oracle's ids (else the cases test nothing)."""
    by_id = {c.id: tokenizers.Tokenizer.from_str(c.json) for c in SYNTHETIC}

    def ids(case_id, text):
        return by_id[case_id].encode(text, add_special_tokens=False).ids

    assert ids("ignore_merges_True_whitespace", "abc") != ids("ignore_merges_False_whitespace", "abc")
    assert ids("unk_fuseTrue_null", "qq") != ids("unk_fuseFalse_null", "qq")
    assert 0 not in ids("byte_fallback_full_metaspace_fuseTrue", "中")  # bytes ...
    assert 0 in ids("byte_fallback_partial_unkTrue_fuseTrue", "中")  # ... or <unk> (id 0)
    assert ids("duplicated_merges_pairs", "abc") == ids("duplicated_merges_strings", "abc")
    assert ids("merges_pairs", "abcd xy") == ids("merges_strings", "abcd xy")


# ---------------------------------------------------------------------------------------
# 6. Concurrency
# ---------------------------------------------------------------------------------------


def _concurrency_texts(name: str) -> list[str]:
    docs = S.corpus_documents(120, seed=7)
    return [d.text for d in docs] + S.random_texts(300, seed=3, needles=_needles(name)[:5])


def _run_threads(fn, n: int):
    results: list = [None] * n
    errors: list = [None] * n

    def body(k):
        try:
            results[k] = fn(k)
        except BaseException as e:  # noqa: BLE001
            errors[k] = e

    threads = [threading.Thread(target=body, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + THREAD_TIMEOUT
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    alive = sum(t.is_alive() for t in threads)
    assert alive == 0, f"{alive} of {n} threads still running after {THREAD_TIMEOUT} s (deadlock?)"
    for e in errors:
        if e is not None:
            raise e
    return results


@needs_shared
@pytest.mark.parametrize("cache_bytes", [None, 4096, 0], ids=["default_cache", "tiny_cache", "no_cache"])
@pytest.mark.parametrize("name", ["gpt2", "llama2", "qwen3", "gemma3"])
def test_concurrency(name, cache_bytes):
    oracle = oracle_for(name)
    texts = _concurrency_texts(name)
    want = oracle_ids(oracle, texts, True)
    if cache_bytes is None and name == "gemma3":
        tok = tagpipe_for(name)  # (shared; saves a 3 s load)
    else:
        tok = tagpipe.Tokenizer.from_file(_path(name), cache_bytes=cache_bytes)
    report = Report(name, tok, oracle)
    for threads in (1, 2):
        got = _run_threads(lambda k: tok.encode_batch(texts, num_threads=threads), 1)[0]
        for t, w, g in zip(texts, want, got):
            if g != w:
                report.mismatch(t, w, g, True, f"encode_batch(num_threads={threads})")
    # two batches at once from two Python threads, each with 2 native threads
    both = _run_threads(lambda k: tok.encode_batch(texts[k:] + texts[:k], num_threads=2), 2)
    for k, got in enumerate(both):
        for t, w, g in zip(texts[k:] + texts[:k], want[k:] + want[:k], got):
            if g != w:
                report.mismatch(t, w, g, True, f"concurrent encode_batch #{k}")
    # many Python threads calling encode on the shared tokenizer, each in its own order

    def worker(k):
        order = list(range(len(texts)))
        random.Random(k).shuffle(order)
        return {i: tok.encode(texts[i]) for i in order}

    for k, res in enumerate(_run_threads(worker, 8)):
        for i, g in res.items():
            if g != want[i]:
                report.mismatch(texts[i], want[i], g, True, f"python thread {k}")
    report.check()


# ---------------------------------------------------------------------------------------
# 7. API edges
# ---------------------------------------------------------------------------------------

EDGE_TEXTS = [
    "",
    " ",
    "  ",
    " " * 1000,
    "\n",
    "\t",
    "\r\n",
    " \n ",
    "\u3000",
    "\xa0",
    "a",
    "é",
    "e\u0301",
    "😀",
    "\x00",
    "\ufeff",
    "\U0010ffff",
    "▁",
    "▁▁ ▁",
    "Ġ",
    "<0x41>",
    "x" * 5000,
    "ab" * 3000,
    "中" * 3000,
    " a" * 3000,
    "\n" * 2000,
    "1" * 999,
    "'s" * 500,
]


@needs_shared
@pytest.mark.parametrize("name", ALL_NAMES)
def test_edge_texts(name):
    tok, oracle = tagpipe_for(name), oracle_for(name)
    report = Report(name, tok, oracle, tagpipe_outside(name))
    for add_special in (True, False):
        run_and_compare(report, tok, EDGE_TEXTS, add_special, native=name in NATIVE_NAMES, allowance=allowance(name))
        for t in ("", " ", "    "):  # single calls too, not just the batch path
            w = oracle.encode(t, add_special_tokens=add_special).ids
            g = report.outside.encode(t, add_special)
            if g != w:
                report.mismatch(t, w, g, add_special, "encode()")
    report.check()


def _big_unit() -> str:
    """A ~20 kB multilingual unit starting at a line start and ending with a newline."""
    data = _corpus_bytes(str(next(p for p in CORPORA if p.stem == "multilingual")))
    start = data.index(b"\n", len(data) // 3) + 1
    end = data.index(b"\n", start + 20_000) + 1
    return data[start:end].decode("utf-8")


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "llama2", "llama3"])
def test_20mb_string(name):
    """A 20 MB text (a ~20 kB unit repeated), natively (under delegation_disabled): the oracle's
    ids.  The oracle takes ~30 s on 20 MB, so the expectation is built from the oracle on 2, 3
    and 4 copies of the unit: ids = P + Q * (copies - 1), checked to hold on 4 copies before
    it is trusted.  (No time limit: speed is bench/'s to measure, and a slow run is no skip.)"""
    tok, oracle = tagpipe_for(name), oracle_for(name)
    unit = _big_unit()
    enc = [oracle.encode(unit * k, add_special_tokens=False).ids for k in (2, 3, 4)]
    q = enc[1][len(enc[0]) :]
    p = enc[0][: len(enc[0]) - len(q)]
    assert q and enc[0] == p + q and enc[2] == p + q * 3, "the oracle's ids are not periodic over copies of the unit"
    copies = BIG_TEXT_CHARS // len(unit) + 1
    big = unit * copies
    with tagpipe.delegation_disabled():
        got = tok.encode_to_numpy(big, add_special_tokens=False)
    want = np.concatenate([np.asarray(p, np.uint32), np.tile(np.asarray(q, np.uint32), copies - 1)])
    if got.shape != want.shape or not np.array_equal(got, want):
        i = (
            int(np.argmax(got[: min(len(got), len(want))] != want[: min(len(got), len(want))]))
            if len(got) and len(want)
            else 0
        )
        pytest.fail(
            f"[{name}] 20 MB text: {len(got)} ids vs expected {len(want)}; first difference at id "
            f"{i}: tagpipe {got[i : i + 6].tolist()} expected {want[i : i + 6].tolist()}"
        )
    with tagpipe.delegation_disabled():
        ids, offsets = tok.encode_batch_flat([big, unit], add_special_tokens=False)
    unit_ids = oracle.encode(unit, add_special_tokens=False).ids
    assert offsets.tolist() == [0, len(want), len(want) + len(unit_ids)]
    assert np.array_equal(ids[: offsets[1]], want)
    assert ids[offsets[1] : offsets[2]].tolist() == unit_ids


@needs_shared
@pytest.mark.parametrize("name", ["gpt2", "llama2", "qwen3", "gemma3", "all-minilm-l6-v2"])
def test_lone_surrogate_raises_value_error_naming_it(name):
    tok = tagpipe_outside(name)
    bad = "ab\ud800cd"

    def named(e):
        s = str(e).lower()
        return "u+d800" in s or "\\ud800" in s

    calls = [
        lambda: tok.encode(bad),
        lambda: tok.encode(bad, False),
        lambda: tok.encode_to_numpy(bad),
        lambda: tok.encode_batch(["ok", bad]),
        lambda: tok.encode_batch_flat(["ok", "x", bad]),
        lambda: tok.encode("\udfff"),
    ]
    for k, call in enumerate(calls):
        with pytest.raises(ValueError) as info:
            call()
        assert named(info.value) or "u+dfff" in str(info.value).lower() or "\\udfff" in str(info.value), (
            f"call #{k}: {info.value!r}"
        )


@needs_shared
@pytest.mark.parametrize("name", ["gpt2", "llama2", "gemma3"])
def test_every_str_width_encodes_as_its_utf8(name):
    """A str reaches the encoder as its code units -- one, two or four bytes a character
    (PEP 393) -- and is converted to UTF-8 on the encoding thread (cpp/kernels/transcode/): sixteen
    ASCII units a step, else four at a time.  Every width, lengths around those steps, the
    edges of each UTF-8 form, and a lone surrogate at every position of a step and the tail."""
    tok, oracle = tagpipe_outside(name), oracle_for(name)
    rng = random.Random(29)
    pools = {
        "ascii": "ab ,.\n\x7f",
        "latin-1": "ab \x80\xe9\xff",
        "ucs-2": "ab \xe9\u07ff\u0800\u0416\u4e2d\ud7ff\ue000\uffff",
        "ucs-4": "ab \xe9\u0416\u4e2d\uffff\U00010000\U0001f600\U0010ffff",
    }
    texts = [
        "".join(rng.choice(pool) for _ in range(n))
        for pool in pools.values()
        for n in (0, 1, 3, 4, 5, 15, 16, 17, 20, 31, 32, 33, 100, 1000)
    ]
    want = oracle_ids(oracle, texts, True)
    for text, w in zip(texts, want):
        assert tok.encode(text) == w, repr(text[:40])
    ids, offsets = tok.encode_batch_flat(texts)
    assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))] == want
    for wide in ("\u4e2d" * 40, "\U0001f600" * 40):
        for at in (0, 1, 3, 4, 15, 16, 17, 35, 39):
            bad = wide[:at] + "\udc80" + wide[at + 1 :]
            for call in (lambda: tok.encode(bad), lambda: tok.encode_batch_flat(["ok", bad, wide])):
                with pytest.raises(ValueError, match=f"U\\+DC80 at index {at}"):
                    call()


@needs_shared
@pytest.mark.parametrize("name", ["gpt2", "qwen3", "all-minilm-l6-v2"])
def test_non_str_raises_type_error(name):
    tok = tagpipe_outside(name)
    for bad in (b"abc", None, 123, ["abc"], 1.5, bytearray(b"x")):
        with pytest.raises(TypeError):
            tok.encode(bad)
        with pytest.raises(TypeError):
            tok.encode_to_numpy(bad)
    for bad in ([b"abc"], ["ok", None], ["ok", 3]):
        with pytest.raises(TypeError):
            tok.encode_batch(bad)
        with pytest.raises(TypeError):
            tok.encode_batch_flat(bad)


@needs_shared
@pytest.mark.parametrize("name", ["gpt2", "llama2", "qwen3", "gemma3", "all-minilm-l6-v2"])
def test_numpy_and_flat_forms(name):
    tok, oracle = tagpipe_outside(name), oracle_for(name)
    texts = ["", "Hello world", " ", "é\u0301 中文 😀", "<s></s><|endoftext|>", "x" * 100] + S.random_texts(50, seed=11)

    class MyStr(str):
        pass

    for add_special in (True, False):
        arr = tok.encode_to_numpy("Hello world", add_special)
        assert isinstance(arr, np.ndarray) and arr.dtype == np.uint32 and arr.ndim == 1
        assert arr.tolist() == tok.encode("Hello world", add_special)
        empty = tok.encode_to_numpy("", add_special)
        assert empty.dtype == np.uint32 and empty.ndim == 1
        assert tok.encode(MyStr("Hello world"), add_special) == tok.encode("Hello world", add_special)
        batch = tok.encode_batch(texts, add_special)
        ids, offsets = tok.encode_batch_flat(texts, add_special)
        assert ids.dtype == np.uint32 and ids.ndim == 1
        assert offsets.dtype == np.int64 and offsets.shape == (len(texts) + 1,)
        assert offsets[0] == 0 and offsets[-1] == len(ids) and np.all(np.diff(offsets) >= 0)
        for i, t in enumerate(texts):
            assert (
                ids[offsets[i] : offsets[i + 1]].tolist()
                == batch[i]
                == tok.encode(t, add_special)
                == oracle.encode(t, add_special_tokens=add_special).ids
            ), (name, add_special, t)
        tuple_batch = tok.encode_batch(tuple(texts), add_special)
        gen_batch = tok.encode_batch((t for t in texts), add_special)
        assert tuple_batch == gen_batch == batch
    assert tok.encode("Hello world") == tok.encode("Hello world", add_special_tokens=True)
    e_ids, e_offsets = tok.encode_batch_flat([])
    assert len(e_ids) == 0 and e_ids.dtype == np.uint32 and e_offsets.tolist() == [0]
    assert tok.encode_batch([]) == []
    assert tok.encode_batch([""]) == [oracle.encode("").ids]


@needs_shared
def test_num_threads_is_validated_and_honoured():
    tok = tagpipe_for("gpt2")
    texts = ["Hello world"] * 10
    want = tok.encode_batch(texts)
    for n in (1, 2, 3, 64):
        assert tok.encode_batch(texts, num_threads=n) == want
    for n in (0, -1):
        with pytest.raises(ValueError):
            tok.encode_batch(texts, num_threads=n)


@needs_shared
def test_constructors_agree():
    path = _path("gpt2")
    oracle = oracle_for("gpt2")
    with tagpipe.delegation_disabled():
        a = tagpipe.Tokenizer.from_file(str(path))
        b = tagpipe.Tokenizer.from_str(path.read_text(encoding="utf-8"))
        c = tagpipe.Tokenizer.from_hf(oracle)
    text = "Hello <|endoftext|> world, ça va? 😀"
    assert a.native and b.native and c.native
    assert a.encode(text) == b.encode(text) == c.encode(text) == oracle.encode(text).ids
    with pytest.raises(TypeError):
        tagpipe.Tokenizer.from_hf(object())
