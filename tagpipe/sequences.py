"""The sequences of a batch as tokenizers' model leaves them, before the post-processor: each
text's ids -- and, when asked, each token's characters in the text and the post-processor's trim
counts (tagpipe.offsets) -- natively, with the texts the native path leaves out spliced in from
the oracle (a normalization tagpipe does not run, spans it cannot prove).  What
`Tokenizer.encode_batch_pairs` and `tagpipe.accelerate` lay out (tagpipe.plan.rows)."""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

import numpy as np

from tagpipe._delegate import oracle
from tagpipe.offsets import OffsetTables, spaces, trim_counts
from tagpipe.plan.rows import Side


def _check(texts: list) -> None:
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"encode expects str items, item {i} is {type(t).__name__}")


def check_unicode(texts) -> None:
    """ValueError naming the text of a batch (and the index in it) that holds a lone surrogate."""
    for i, t in enumerate(texts):
        try:
            t.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(
                f"text {i} of the batch contains a lone surrogate U+{ord(t[e.start]):04X} at index {e.start}; "
                "tagpipe needs valid Unicode"
            ) from None


class Sequences:
    """A tokenizer's sequences: `native` its `_core.Encoder` (None: delegated), `oracle_check`
    raises DelegationError while delegation is disabled."""

    def __init__(self, json_text: str, native: Any, plan: Any, oracle_check: Callable[[], Any]):
        self._json = json_text
        self._native = native
        self._plan = plan
        self._oracle_check = oracle_check
        self._bare = None  # the oracle with no truncation, padding or post-processor
        self._tables: Optional[OffsetTables] = None

    @property
    def trims(self) -> Optional[bool]:
        """None, or the post-processor's trim of the offsets (its add_prefix_space)."""
        p = self._plan.offsets
        return p.trim_prefix_space if p.trim else None

    def _oracle(self):
        self._oracle_check()  # (raises while delegation is disabled)
        if self._bare is None:
            doc = json.loads(self._json)
            doc["truncation"] = doc["padding"] = doc["post_processor"] = None
            self._bare = oracle().Tokenizer.from_str(json.dumps(doc))
        return self._bare

    def ids(self, texts: list[str], threads: int) -> Side:
        """Each text's ids, without special tokens, truncation or padding."""
        _check(texts)
        if self._native is None:
            check_unicode(texts)
            return self._from_oracle(texts, False)
        try:
            ids, offsets, delegate = self._native.encode_batch(texts, False, threads, -1, False)
        except UnicodeEncodeError:
            check_unicode(texts)
            raise
        return self._splice(Side(ids, offsets), delegate, texts, False)

    def offsets(self, texts: list[str], threads: int) -> Side:
        """`ids` with each token's characters (and trim counts when the post-processor trims):
        natively when the plan says so (else every text from the oracle)."""
        _check(texts)
        if self._native is None or self._plan.offsets.why:
            check_unicode(texts)
            return self._from_oracle(texts, True)
        if self._tables is None:
            self._tables = OffsetTables(self._json, self._plan.byte_level, self._plan.offsets.trim)
        try:
            ids, offsets, spans, added, delegate = self._native.encode_offsets(texts, self._tables.spans, threads)
        except UnicodeEncodeError:
            check_unicode(texts)
            raise
        side = Side(ids, offsets, spans.astype(np.int64))
        if self.trims is not None:
            row_of = np.repeat(np.arange(len(texts)), np.diff(offsets))
            side.lead, side.trail = trim_counts(self._tables, ids, side.spans, added, texts.__getitem__, row_of)
        return self._splice(side, delegate, texts, True)

    def _from_oracle(self, texts: list[str], with_offsets: bool) -> Side:
        encs = self._oracle().encode_batch(texts, add_special_tokens=False) if texts else []
        offsets = np.zeros(len(encs) + 1, dtype=np.int64)
        np.cumsum([len(e.ids) for e in encs], out=offsets[1:])
        side = Side(np.asarray([i for e in encs for i in e.ids], dtype=np.uint32), offsets)
        if with_offsets:
            side.spans = np.asarray([o for e in encs for o in e.offsets], dtype=np.int64).reshape(-1, 2)
            if self.trims is not None:
                counts = np.asarray([spaces(t) for e in encs for t in e.tokens], dtype=np.int64).reshape(-1, 2)
                side.lead, side.trail = counts[:, 0], counts[:, 1]
        return side

    def _splice(self, side: Side, delegate: np.ndarray, texts: list[str], with_offsets: bool) -> Side:
        """Rare: the delegated texts' sequences from the oracle, in their rows."""
        if not delegate.any():
            return side
        rows = np.flatnonzero(delegate)
        got = self._from_oracle([texts[i] for i in rows], with_offsets)
        lengths = np.diff(side.offsets)
        lengths[rows] = np.diff(got.offsets)
        offsets = np.zeros_like(side.offsets)
        np.cumsum(lengths, out=offsets[1:])
        out = Side(np.empty(int(offsets[-1]), dtype=np.uint32), offsets)
        mine = np.repeat(~delegate.astype(bool), lengths)
        theirs = ~mine
        for name in ("ids", "spans", "lead", "trail"):
            values = getattr(side, name)
            if values is None:
                continue
            merged = np.empty((int(offsets[-1]),) + values.shape[1:], dtype=values.dtype)
            merged[mine] = values  # (a delegated row holds nothing natively)
            merged[theirs] = getattr(got, name)
            setattr(out, name, merged)
        return out
