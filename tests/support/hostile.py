"""Generators of hostile tokenizer.json files (tests/test_hostile_files.py; bench.load times
loading them)."""

from __future__ import annotations

import json


def merges_file(n_merges: int) -> str:
    """A valid BPE file with n_merges merges: every string over 16 letters up to the length
    needed is a token, and each is its prefix merged with its last letter."""
    letters = "abcdefghijklmnop"
    vocab = {c: i for i, c in enumerate(letters)}
    merges = []
    level = list(letters)
    while len(merges) < n_merges:
        nxt = []
        for s in level:
            for c in letters:
                if len(merges) == n_merges:
                    break
                vocab[s + c] = len(vocab)
                merges.append([s, c])
                nxt.append(s + c)
        level = nxt
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Whitespace"},
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
                "vocab": vocab,
                "merges": merges,
            },
        }
    )
