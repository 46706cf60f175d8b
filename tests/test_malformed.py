"""Malformed and unusual tokenizer.json files: each is accepted exactly when the oracle
accepts it (and then encodes like it), and otherwise refused with a TokenizerJsonError that
names the JSON path -- never another exception, a crash or a hang."""

from __future__ import annotations

import json

import pytest

from tagpipe import cli

from support.malformed import check_like_the_oracle

BASE = cli.bundled_tokenizer_json()


def edit(change):
    j = json.loads(BASE)
    change(j)
    return json.dumps(j)


def setitem(path, value):
    def change(j):
        node = j
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


CASES = {
    # (text, the path the error must name when refused)
    "truncated": (BASE[:5000], "line"),
    "not an object": ("[1, 2]", "tokenizer"),
    "nested 100,000 deep (arrays)": ("[" * 100_000 + "]" * 100_000, "nested"),
    "nested 100,000 deep (objects)": ('{"a":' * 100_000 + "1" + "}" * 100_000, "a.a.a.a"),
    "vocab is a list": (edit(setitem(["model", "vocab"], [1, 2])), "model.vocab"),
    "merges is a string": (edit(setitem(["model", "merges"], "a b")), "model.merges"),
    "unknown pre_tokenizer type": (edit(setitem(["pre_tokenizer"], {"type": "Foo"})), "pre_tokenizer"),
    "unknown model type": (edit(setitem(["model", "type"], "Bpe")), "model"),
    "bad Split behavior": (
        edit(
            setitem(
                ["pre_tokenizer"], {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolate", "invert": False}
            )
        ),
        "pre_tokenizer.behavior",
    ),
    "merge of a missing token": (edit(lambda j: j["model"]["merges"].insert(0, "zzzq qqqz")), "model.merges[0]"),
    "merge result missing": (edit(lambda j: j["model"]["merges"].insert(0, "Ġ zzz")), "model.merges[0]"),
    "id out of range": (edit(setitem(["model", "vocab", "Ġthe"], 10**12)), "model.vocab['Ġthe']"),
    "negative id": (edit(setitem(["model", "vocab", "Ġthe"], -1)), "model.vocab['Ġthe']"),
    "duplicate ids": (edit(setitem(["model", "vocab", "Ġthe"], 0)), None),
    "empty-string merge": (edit(lambda j: j["model"]["merges"].insert(0, "")), "model.merges[0]"),
    "duplicate merges": (edit(lambda j: j["model"]["merges"].append(j["model"]["merges"][5])), None),
    "added token id far out": (
        edit(
            lambda j: j["added_tokens"].append(
                {
                    "id": 4_000_000_000,
                    "content": "<big>",
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": False,
                    "special": True,
                }
            )
        ),
        None,
    ),
    "added token without fields": (edit(lambda j: j["added_tokens"].append({"id": 5, "content": "x"})), "added_tokens"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_accepted_exactly_when_the_oracle_accepts(name):
    text, path = CASES[name]
    check_like_the_oracle(text, path)
