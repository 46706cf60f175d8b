"""Hostile tokenizer.json files: absurd ids, invalid Unicode in vocabulary strings, merges that
point back at their own parts, millions of merges, huge added-token lists, deep nesting.  Each
is accepted exactly when the oracle accepts it (and then encodes like it), otherwise refused
with a TokenizerJsonError (a ValueError) that names the JSON path -- never a crash or a hang.
(tests/test_malformed.py has the plain malformed cases; these are the adversarial ones.)

The 10-million-merge file takes minutes and gigabytes on both sides: it runs only with
TAGPIPE_SLOW=1; by default the same generator makes 300,000 merges."""

from __future__ import annotations

import json
import os
import time

import pytest
import tokenizers

import tagpipe
from tagpipe import cli
from tagpipe.spec import TokenizerJsonError

from support import malformed
from support.hostile import merges_file

BASE = json.loads(cli.bundled_tokenizer_json())
TEXTS = [
    "Hello the world !",
    " the the  the",
    "ab abbbbbbbbbbbbbbbbbbbb aab",
    "xyxyxyxyxyxyxyxyyx yxxy",
    "東京 naïve 12345",
    "",
    "<x><x>a<x>",
]
MAX_SECONDS = 60


def edit(change) -> str:
    j = json.loads(json.dumps(BASE))
    change(j)
    return json.dumps(j)


def vocab_id(token, value):
    return edit(lambda j: j["model"]["vocab"].__setitem__(token, value))


def added(**fields):
    token = {
        "id": 50300,
        "content": "<x>",
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }
    token.update(fields)
    return edit(lambda j: j["added_tokens"].append(token))


def merge_onto_own_part(j):
    """ "ab" has the id of "a": the merge a+b gives a again, which merges with the next b ...
    (a loop if merging did not shrink the word every time)."""
    v = j["model"]["vocab"]
    v["ab"] = v["a"]
    j["model"]["merges"].insert(0, "a b")


def merges_in_a_ring(j):
    """x+y -> "xy", whose id is the one of "y"; y+x -> "yx" with the id of "x"; and so on."""
    v = j["model"]["vocab"]
    v["xy"], v["yx"], v["xyx"], v["yxy"] = v["y"], v["x"], v["x"], v["y"]
    j["model"]["merges"][:0] = ["x y", "y x", "xy x", "yx y"]


def nested_sequence(depth: int) -> str:
    """The ByteLevel pre-tokenizer inside `depth` one-member Sequences (written as text: the
    json module recurses)."""
    inner = json.dumps({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True})
    pre = '{"type": "Sequence", "pretokenizers": [' * depth + inner + "]}" * depth
    return edit(lambda j: j.__setitem__("pre_tokenizer", "@PRE@")).replace('"@PRE@"', pre)


CASES = {
    # name: (tokenizer.json text, the path a refusal must name)
    "id 2**32 - 1 (the largest u32)": (vocab_id("Ġthe", 2**32 - 1), None),
    "id 2**31": (vocab_id("Ġthe", 2**31), None),
    "id 2**32": (vocab_id("Ġthe", 2**32), "model.vocab['Ġthe']"),
    "id 2**64": (vocab_id("Ġthe", 2**64), "model.vocab['Ġthe']"),
    "id -2**63": (vocab_id("Ġthe", -(2**63)), "model.vocab['Ġthe']"),
    "id 1.5": (vocab_id("Ġthe", 1.5), "model.vocab['Ġthe']"),
    "id as a string": (vocab_id("Ġthe", "3"), "model.vocab['Ġthe']"),
    "id true": (vocab_id("Ġthe", True), "model.vocab['Ġthe']"),
    "id null": (vocab_id("Ġthe", None), "model.vocab['Ġthe']"),
    "id NaN": (vocab_id("Ġthe", 1).replace('"\\u0120the": 1', '"\\u0120the": NaN'), "model.vocab"),
    "every id the same": (edit(lambda j: j["model"].__setitem__("vocab", {k: 7 for k in j["model"]["vocab"]})), None),
    "lone surrogate in a vocab string": (vocab_id("\ud800x", 50), "model.vocab"),
    "lone low surrogate in a vocab string": (vocab_id("a\udfff", 50), "model.vocab"),
    "lone surrogate in a merge": (edit(lambda j: j["model"]["merges"].insert(0, "\ud800 x")), "model.merges[0]"),
    "lone surrogate in an added token": (added(content="\udfff"), "added_tokens[1]"),
    "lone surrogate in unk_token": (edit(lambda j: j["model"].__setitem__("unk_token", "\ud800")), "model"),
    "empty vocab string": (vocab_id("", 50), None),
    "empty vocab": (edit(lambda j: j["model"].__setitem__("vocab", {})), "model.merges[0]"),
    "merge of three parts": (edit(lambda j: j["model"]["merges"].insert(0, "Ġ t h")), "model.merges[0]"),
    "merge onto its own part": (edit(merge_onto_own_part), None),
    "merges in a ring": (edit(merges_in_a_ring), None),
    "a merge twice, both ranks": (edit(lambda j: j["model"]["merges"].insert(0, j["model"]["merges"][100])), None),
    "added token with a vocab id": (added(id=262), None),
    "added token id 2**32": (added(id=2**32), "added_tokens[1].id"),
    "added token id -1": (added(id=-1), "added_tokens[1].id"),
    "added token, empty content": (added(content=""), None),
    "added token, 100 kB content": (added(content="<" + "x" * 100_000 + ">"), None),
    "unk_token not in the vocab": (edit(lambda j: j["model"].__setitem__("unk_token", "<nope>")), None),
    # serde_json's recursion limit (128 levels of JSON) is where the oracle stops
    "Sequence nested 62 deep": (nested_sequence(62), None),
    "Sequence nested 63 deep": (nested_sequence(63), "pre_tokenizer.pretokenizers[0]"),
    "Sequence nested 5,000 deep": (nested_sequence(5000), "pre_tokenizer.pretokenizers[0]"),
}


def check_like_the_oracle(text: str, path, texts=TEXTS):
    return malformed.check_like_the_oracle(text, path, texts, MAX_SECONDS)


@pytest.mark.parametrize("name", list(CASES))
def test_accepted_exactly_when_the_oracle_accepts(name):
    text, path = CASES[name]
    check_like_the_oracle(text, path)


def test_file_that_is_not_utf8(tmp_path):
    """Raw bytes that are not UTF-8 in a vocabulary string: a clear error naming the file."""
    raw = cli.bundled_tokenizer_json().encode().replace('"Ġthe"'.encode(), b'"\xff\xfethe"', 1)
    assert b"\xff\xfe" in raw
    path = tmp_path / "tokenizer.json"
    path.write_bytes(raw)
    with pytest.raises(Exception):
        tokenizers.Tokenizer.from_file(str(path))
    with pytest.raises(TokenizerJsonError, match="not UTF-8"):
        tagpipe.Tokenizer.from_file(path)


def test_huge_added_token_list():
    """100,000 added tokens (some sharing prefixes, some special, some normalized)."""

    def change(j):
        for i in range(100_000):
            j["added_tokens"].append(
                {
                    "id": 50257 + i,
                    "content": f"<t{i}>" if i % 3 else f"tok{i}x",
                    "single_word": i % 7 == 0,
                    "lstrip": i % 5 == 0,
                    "rstrip": i % 11 == 0,
                    "normalized": i % 2 == 0,
                    "special": i % 4 == 0,
                }
            )

    texts = TEXTS + ["<t1><t2> tok3x <t99999>tok99999x <t100000> <t5", " tok0x  <t6>  "]
    assert check_like_the_oracle(edit(change), None, texts) is not None


@pytest.mark.parametrize(
    "n_merges",
    [
        300_000,
        pytest.param(
            10_000_000,
            marks=pytest.mark.skipif(
                os.environ.get("TAGPIPE_SLOW") != "1", reason="10 million merges: minutes and GBs; TAGPIPE_SLOW=1"
            ),
        ),
    ],
)
def test_millions_of_merges(n_merges):
    text = merges_file(n_merges)
    t0 = time.monotonic()
    oracle = tokenizers.Tokenizer.from_str(text)
    t_oracle = time.monotonic() - t0
    t0 = time.monotonic()
    tok = tagpipe.Tokenizer.from_str(text)
    t_tagpipe = time.monotonic() - t0
    print(f"{n_merges} merges: tagpipe loads in {t_tagpipe:.1f} s, the oracle in {t_oracle:.1f} s")
    assert t_tagpipe < max(MAX_SECONDS, 10 * t_oracle)
    texts = ["abcdefghijklmnop " * 20, "ponmlkjihgfedcba aaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "ab q z"]
    assert tok.encode_batch(texts) == [e.ids for e in oracle.encode_batch(texts)]
