"""`Encodings`: what `Tokenizer.encode_batch_pairs` returns -- ids, type ids, special-tokens
and attention masks of a batch and, when asked, each token's offsets and the overflowing rows --
flat (row i is ``[offsets[i]:offsets[i + 1]]`` of each), as tokenizers' ``Encoding`` objects
hold them one by one; and `Encoding`, one row as lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

FIELDS = ("ids", "type_ids", "special_tokens_mask", "attention_mask")


@dataclass(frozen=True)
class Encoding:
    """One row: the lists tokenizers' ``Encoding`` has under the same names (``offsets``: None
    unless asked for; ``overflowing``: the rows truncation overflowed into, when asked for)."""

    ids: list[int]
    type_ids: list[int]
    special_tokens_mask: list[int]
    attention_mask: list[int]
    offsets: Optional[list[tuple[int, int]]] = None
    overflowing: list["Encoding"] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Encodings:
    """A batch, flat: ``ids`` and ``type_ids`` uint32, the masks uint8, ``offsets`` int64[n + 1];
    ``offset_mapping`` int64[N, 2] (each token's characters in its text) when offsets were asked
    for; with overflowing rows, each input's first row is followed by its overflowing ones and
    ``overflow_to_sample_mapping`` (int64[n]) gives each row's input."""

    ids: np.ndarray
    type_ids: np.ndarray
    special_tokens_mask: np.ndarray
    attention_mask: np.ndarray
    offsets: np.ndarray
    offset_mapping: Optional[np.ndarray] = None
    overflow_to_sample_mapping: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> Encoding:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"row {i} of a batch of {n}")
        i %= n
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        spans = None
        if self.offset_mapping is not None:
            spans = [tuple(x) for x in self.offset_mapping[lo:hi].tolist()]
        return Encoding(*(getattr(self, f)[lo:hi].tolist() for f in FIELDS), spans)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def lengths(self) -> np.ndarray:
        """The number of ids of each row (padding included)."""
        return np.diff(self.offsets)

    def to_numpy(self, dtype=np.int64) -> dict[str, np.ndarray]:
        """The fields as 2-D arrays [rows, length] (what a model takes; ``offset_mapping``
        [rows, length, 2] when present); every row must have the same length -- encode with
        padding (ValueError naming the first that differs)."""
        lengths = self.lengths
        width = int(lengths[0]) if len(lengths) else 0
        odd = np.flatnonzero(lengths != width)
        if odd.size:
            i = int(odd[0])
            raise ValueError(f"row {i} has {lengths[i]} ids, row 0 has {width}: pad the batch to one length")
        out = {f: getattr(self, f).astype(dtype).reshape(len(self), width) for f in FIELDS}
        if self.offset_mapping is not None:
            out["offset_mapping"] = self.offset_mapping.astype(dtype).reshape(len(self), width, 2)
        return out
