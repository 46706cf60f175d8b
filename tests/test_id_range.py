"""Every u32 is a valid id (issue 42, item 1): the oracle accepts a vocabulary id of
4294967295, so no table of tagpipe may use that value to mean "absent".  Each case puts the
largest id where a sentinel could hide it -- the unk token, a plain vocabulary string, a
merge's part or result, a pair of them the merges do not know, a ByteLevel character, a <0xXX>
byte_fallback token, a whole piece under ignore_merges (the word seed, and a string past its 15
bytes), a WordPiece continuation, an added token (matched on the raw text or the normalized
one; the oracle gives it its vocabulary id), a template's special token, the padding id -- and compares
encode, a second encode (the word cache's hit path; a piece of 5+ ids goes to its long tier)
and encode_batch_flat on two threads with the oracle, natively, with delegation disabled (a
per-call fallback to the oracle would hide a wrong native id)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tokenizers

import tagpipe

TOP = 2**32 - 1
WHITESPACE = {"type": "Whitespace"}
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}


def document(model: dict, added: list = (), post: dict | None = None, pre: dict = WHITESPACE, padding=None) -> str:
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": padding,
            "added_tokens": list(added),
            "normalizer": None,
            "pre_tokenizer": pre,
            "post_processor": post,
            "decoder": None,
            "model": model,
        }
    )


def bpe(vocab: dict, merges: list = (), unk: str | None = None, **options) -> dict:
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": unk,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        **options,
        "vocab": vocab,
        "merges": [list(m) for m in merges],
    }


def wordpiece(vocab: dict) -> dict:
    return {
        "type": "WordPiece",
        "unk_token": "[UNK]",
        "continuing_subword_prefix": "##",
        "max_input_chars_per_word": 100,
        "vocab": vocab,
    }


def wordlevel(vocab: dict) -> dict:
    return {"type": "WordLevel", "unk_token": "[UNK]", "vocab": vocab}


# (Unigram's ids are the pieces' positions, and an added token has its id in the model's
# vocabulary or the next one after it: in a Unigram tokenizer only a template has the largest id)
UNIGRAM = {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0], ["b", -2.0]], "byte_fallback": False}


def byte_chars() -> list[str]:
    """GPT-2's ByteLevel alphabet: the character of each byte 0..255."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return [out[b] for b in range(256)]


# Every byte's character a token ('a' the largest id): the tables by byte, the character units.
ALPHABET = {c: 10 + b for b, c in enumerate(byte_chars())} | {"a": TOP, "ab": 5, "Ġa": 6}

SPECIAL = {"id": TOP, "content": "<x>", "single_word": False, "lstrip": False, "rstrip": False}
TEMPLATE = {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [
        {"Sequence": {"id": "A", "type_id": 0}},
        {"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "B", "type_id": 1}},
    ],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [TOP], "tokens": ["<s>"]}},
}
PAD = {
    "strategy": {"Fixed": 8},
    "direction": "Right",
    "pad_to_multiple_of": None,
    "pad_id": TOP,
    "pad_type_id": 0,
    "pad_token": "[PAD]",
}
LONG = "ab" * 8  # (16 bytes: past the word seed's strings, a whole_piece lookup)

# name -> (tokenizer.json, text)
CASES = {
    "bpe unk": (document(bpe({"a": 1, "b": 2, "[UNK]": TOP}, unk="[UNK]")), "a Ġ b"),
    "bpe unk fused": (document(bpe({"a": 1, "[UNK]": TOP}, unk="[UNK]", fuse_unk=True)), "a ĠĠ aĠbĠa"),
    "bpe string": (document(bpe({"a": 1, "b": 2, "c": TOP})), "a c b"),
    "bpe string in the long tier": (document(bpe({"a": 1, "b": 2, "c": TOP})), "abcab cabcabcabcabcabc c"),
    "bpe merge result": (document(bpe({"a": 1, "b": 2, "ab": TOP}, [("a", "b")])), "a ab b ab"),
    "bpe merge part": (
        document(bpe({"a": 1, "b": 2, "ab": TOP, "abb": 3, "[UNK]": 0}, [("a", "b"), ("ab", "b")], "[UNK]")),
        "abb ab a",
    ),
    "bpe pair the merges lack": (document(bpe({"a": TOP, "b": 1, "ab": 2}, [("a", "b")])), "aa ab aab"),
    "bpe merge of the pair": (document(bpe({"a": TOP, "aa": 1}, [("a", "a")])), "aa aaa a"),
    "bpe prefix": (
        document(bpe({"a": 1, "##a": TOP, "b": 2, "[UNK]": 0}, unk="[UNK]", continuing_subword_prefix="##")),
        "aa ba a",
    ),
    "bpe byte_fallback": (document(bpe({"a": 1, "<0x62>": TOP, "<0x63>": 2}, byte_fallback=True)), "a b c bc"),
    "bpe ignore_merges": (document(bpe({"a": 1, "b": 2, "ab": TOP}, ignore_merges=True)), "ab a ab b"),
    "bpe ignore_merges long": (
        document(bpe({"a": 1, "b": 2, "ab": 3, LONG: TOP}, [("a", "b")], ignore_merges=True)),
        f"{LONG} ab {LONG}",
    ),
    "bpe byte-level character": (
        document(bpe({"a": TOP, "b": 1, "Ġ": 2, "ab": 3, "Ġb": 4}, [("a", "b"), ("Ġ", "b")]), pre=BYTE_LEVEL),
        "ab a b aa",
    ),
    "bpe byte-level alphabet": (
        document(bpe(ALPHABET, [("a", "b"), ("Ġ", "a")]), pre=BYTE_LEVEL),
        "ab ba a aa héllo 中文",
    ),
    "wordpiece unk": (document(wordpiece({"a": 1, "b": 2, "[UNK]": TOP})), "a Ġ b"),
    "wordpiece word": (document(wordpiece({"a": 1, "b": 2, "[UNK]": 0, "c": TOP})), "a c b"),
    "wordpiece continuation": (document(wordpiece({"a": 1, "b": 2, "[UNK]": 0, "##c": TOP})), "a ac b"),
    "wordlevel unk": (document(wordlevel({"a": 1, "b": 2, "[UNK]": TOP})), "a Ġ b"),
    "wordlevel word": (document(wordlevel({"a": 1, "b": 2, "[UNK]": 0, "c": TOP})), "a c b"),
    "added token in the vocab": (
        document(wordlevel({"a": 1, "b": 2, "[UNK]": 0, "<x>": TOP}), [dict(SPECIAL, normalized=False, special=True)]),
        "a<x>b a <x> b",
    ),
    "added token, normalized": (
        document(bpe({"a": 1, "b": 2, "<x>": TOP}), [dict(SPECIAL, normalized=True, special=False)]),
        "a<x>b <x>",
    ),
    "template": (document(wordlevel({"a": 1, "b": 2, "[UNK]": 0}), post=TEMPLATE), "a b"),
    "template, unigram": (document(UNIGRAM, post=TEMPLATE), "a b c"),
    "padding": (document(wordlevel({"a": 1, "b": 2, "[UNK]": 0}), padding=PAD), "a b"),
}


def check(text_json: str, text: str) -> None:
    oracle = tokenizers.Tokenizer.from_str(text_json)
    want = oracle.encode(text).ids
    assert TOP in want  # the case reaches the id it is about
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
        assert tok.native, tok.explain()
        assert tok.encode(text) == want
        assert tok.encode(text) == want  # (again: from the word cache)
        assert tok.encode_to_numpy(text).tolist() == want
        batch = [text, "", text, text]
        ids, offsets = tok.encode_batch_flat(batch, num_threads=2)
    assert ids.dtype == np.uint32
    assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(batch))] == [
        e.ids for e in oracle.encode_batch(batch)
    ]


@pytest.mark.parametrize("text_json, text", CASES.values(), ids=CASES.keys())
def test_the_largest_id_natively(text_json, text):
    check(text_json, text)


def test_the_issue_example():
    """`a Ġ b` with [UNK] = 4294967295: the unknown piece must not vanish."""
    text_json, text = CASES["bpe unk"]
    assert tokenizers.Tokenizer.from_str(text_json).encode(text).ids == [1, TOP, 2]
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text_json)
        assert tok.encode(text) == [1, TOP, 2]
        assert tok.encode_batch_flat([text])[0].tolist() == [1, TOP, 2]


def test_a_pair_around_the_largest_id():
    """The template's special token between the two sequences of a pair (type ids too)."""
    text_json, _ = CASES["template"]
    want = tokenizers.Tokenizer.from_str(text_json).encode("a b", "b a")
    with tagpipe.delegation_disabled():
        got = tagpipe.Tokenizer.from_str(text_json).encode_pair("a b", "b a")
    assert (got.ids, got.type_ids) == (want.ids, want.type_ids)
    assert TOP in got.ids


def test_decoding_the_largest_id():
    """Decoded like the oracle: skipped where no token has it (natively), its token where one
    does (such a vocabulary is far too sparse for the decoder's table: that decode is delegated)."""
    dense = document(wordlevel({"a": 1, "b": 2, "[UNK]": 0}))
    with tagpipe.delegation_disabled():
        got = tagpipe.Tokenizer.from_str(dense).decode([1, TOP, 2])
    assert got == tokenizers.Tokenizer.from_str(dense).decode([1, TOP, 2])
    text_json, _ = CASES["wordlevel word"]
    tok = tagpipe.Tokenizer.from_str(text_json)
    assert tok.native
    assert tok.decode([1, TOP, 2]) == tokenizers.Tokenizer.from_str(text_json).decode([1, TOP, 2]) == "a c b"
