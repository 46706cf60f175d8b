"""What the native offsets path needs beside the encoder (cpp/encode/offsets.h;
docs/design/offsets.md): `_core.TokenSpans` and the post-processor's trim counts of each
vocabulary token -- both built from the tokenizer.json on the first offsets call, not at load --
and the trim counts of one string (an added token's matched text, a delegated text's token).

A trim count (tokenizers' byte_level.rs ``process_offsets``) is the number of leading or
trailing characters of a token's string that are ``Ġ`` (the ByteLevel space) or whitespace
(``char::is_whitespace``)."""

from __future__ import annotations

import json

import numpy as np

from tagpipe import _core
from tagpipe.pretokenizer import BYTE_CHARS

# char::is_whitespace: the 25 White_Space code points (not str.isspace, which adds U+001C..1F)
WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_SPACES = WHITESPACE | {BYTE_CHARS[0x20]}
_BYTE_OF = {c: b for b, c in enumerate(BYTE_CHARS)}


def spaces(s: str) -> tuple[int, int]:
    """The trim counts of a token's string: its leading and trailing spaces."""
    lead = len(s) - len(s.lstrip("".join(_SPACES)))
    return lead, len(s) - len(s.rstrip("".join(_SPACES)))


class OffsetTables:
    """A tokenizer's `_core.TokenSpans` (what the spans of the word cache's ids need) and,
    when the post-processor trims, each vocabulary id's trim counts."""

    def __init__(self, json_text: str, byte_level: bool, trim: bool):
        model = json.loads(json_text)["model"]
        vocab = _vocab(model)
        size = max(vocab.values(), default=-1) + 1
        strings = [b""] * size
        for s, i in vocab.items():
            strings[i] = _bytes_of(s, byte_level)
        fallback = [vocab.get(f"<0x{b:02X}>") for b in range(256)] if model.get("byte_fallback") else [None] * 256
        unk = model.get("unk_token")
        unk_id = vocab.get(unk) if isinstance(unk, str) else None
        refused: list[int] = []
        if _unigram(model):  # (its unk and <0xXX> tokens: the model spans those pieces itself)
            unk_id = model.get("unk_id")
            refused = [i for i in fallback + [unk_id] if i is not None]
            unk_id, fallback = None, [None] * 256
        prefix = (model.get("continuing_subword_prefix") or "").encode()
        suffix = (model.get("end_of_word_suffix") or "").encode()
        shared = len(set(vocab.values())) < len(vocab)  # (two strings, one id: which one is not known)
        check = bool(prefix or suffix) or shared
        self.spans = _core.TokenSpans(strings, prefix, suffix, unk_id, fallback, refused, check)
        self.lead = self.trail = np.zeros(0, dtype=np.int64)
        if trim:  # (ByteLevel BPE only: tagpipe.plan.offsets)
            counts = np.zeros((size, 2), dtype=np.int64)
            for s, i in vocab.items():
                counts[i] = spaces(s)
            self.lead, self.trail = counts[:, 0], counts[:, 1]


def _unigram(model: dict) -> bool:
    return isinstance(model.get("vocab"), list)


def _vocab(model: dict) -> dict[str, int]:
    """The model's vocabulary string -> id (Unigram's list: by position; a repeated piece is
    its last id, as the oracle looks it up)."""
    if _unigram(model):
        return {piece: i for i, (piece, _) in enumerate(model["vocab"])}
    return model["vocab"]


def _bytes_of(s: str, byte_level: bool) -> bytes:
    """A vocabulary string's bytes in a piece (b"" when no piece holds it: never spanned)."""
    if not byte_level:
        return s.encode("utf-8", "surrogatepass")
    try:
        return bytes(_BYTE_OF[c] for c in s)
    except KeyError:
        return b""


def trim_counts(
    tables: OffsetTables, ids: np.ndarray, spans: np.ndarray, added: np.ndarray, text_of, row_of: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each token's trim counts: its id's, or for an added token's match those of the text it
    matched (``text_of(row)[start:end]``)."""
    if len(tables.lead):  # (an id past the vocabulary is an added token's: set below)
        at = np.minimum(ids, len(tables.lead) - 1)
        lead, trail = tables.lead[at], tables.trail[at]
    else:
        lead, trail = np.zeros(len(ids), dtype=np.int64), np.zeros(len(ids), dtype=np.int64)
    for k in np.flatnonzero(added):
        start, end = spans[k]
        lead[k], trail[k] = spaces(text_of(int(row_of[k]))[start:end])
    return lead, trail
