"""A batch's rows as tokenizers builds them from the model's sequences: each sequence cut to
its truncation target (tagpipe.plan.pairs.targets) in windows, the post-processor's layout of
each row -- ids, type ids, special-tokens and attention masks and, when asked, the offsets --
then the padding (tokenizers/src/tokenizer/encoding.rs ``truncate``, ``merge_with``, ``pad``;
utils/padding.rs).  Checked against the oracle in tests/test_pairs.py and tests/test_offsets.py.

``Encoding::truncate(max_len, stride)`` keeps the first window (the first ``max_len`` tokens,
or the last ones for ``Left``) and, as its ``overflowing``, the next windows: each starts
``max_len - stride`` tokens after the one before (before it, for ``Left``) and the last one
reaches the sequence's end; ``max_len == 0`` keeps nothing and overflows the whole sequence.

Overflowing rows (asked for by transformers' ``return_overflowing_tokens``, which flattens each
encoding's ``overflowing`` after it, with ``overflow_to_sample_mapping``): a pair's windows
combine as ``Encoding::merge_with`` merges the processors' pieces in order (A's before B's, or a template's
order: ``Layout.b_first``, ``Layout.windows_why``) -- the first windows of both, then each later
window of the first-merged sequence with every window of the other, then the first of it with
each later one of the other.  A later window keeps its sequence's
own type id (0 for A, 1 for B: the processors set only the first window's), except under
RobertaProcessing with special tokens (every type id 0).  The padding length is the longest
*first* row's (``pad_encodings`` looks at the encodings, not their overflowing) and every row is
padded to it.

Offsets: a special token's and a pad's are (0, 0); with the post-processor's ``trim_offsets``
(tagpipe.plan.offsets) each window's tokens are trimmed, the first one keeping one leading
space under ``add_prefix_space``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from tagpipe.plan.pairs import SPECIAL, Layout, Pieces, targets
from tagpipe.plan.post_processors import _MAX_PAD, PostProcess


@dataclass
class Side:
    """One sequence of each row (A, or B of pairs), flat: row i is [offsets[i]:offsets[i + 1]]."""

    ids: np.ndarray  # uint32
    offsets: np.ndarray  # int64, n + 1
    spans: Optional[np.ndarray] = None  # int64 [N, 2]: each token's characters (offsets asked)
    lead: Optional[np.ndarray] = None  # int64 [N]: the trim counts (trim_offsets)
    trail: Optional[np.ndarray] = None

    def split(self, n: int) -> tuple["Side", "Side"]:
        """Rows [0, n) and the rest."""
        cut = int(self.offsets[n])

        def part(lo, hi):
            return [None if v is None else v[lo:hi] for v in (self.spans, self.lead, self.trail)]

        first = Side(self.ids[:cut], self.offsets[: n + 1], *part(0, cut))
        return first, Side(self.ids[cut:], self.offsets[n:] - cut, *part(cut, None))


@dataclass
class Rows:
    """A batch, flat: row i is [offsets[i]:offsets[i + 1]] of each array."""

    ids: np.ndarray  # uint32
    type_ids: np.ndarray  # uint32
    special_tokens_mask: np.ndarray  # uint8
    attention_mask: np.ndarray  # uint8
    offsets: np.ndarray  # int64, n + 1
    offset_mapping: Optional[np.ndarray] = None  # int64 [N, 2], when offsets were asked for
    sample: Optional[np.ndarray] = None  # int64 [n]: each row's input, when overflowing was asked for


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts) - counts


def windows(n: np.ndarray, t: np.ndarray, stride: int, left: bool, overflow: bool):
    """Each row's windows of a sequence of n tokens truncated to t: (window count per row, and
    per window its row, its index k -- 0 the first -- and its [start, stop)); only the first
    ones unless `overflow`."""
    count = np.ones_like(n)
    if overflow:
        step = np.maximum(t - stride, 1)
        count = np.where(t >= n, 1, np.where(t == 0, 2, 1 + (n - t + step - 1) // step))
    row = np.repeat(np.arange(len(n)), count)
    k = np.arange(len(row)) - np.repeat(_starts(count), count)
    nn, tt = n[row], t[row]
    step = k * np.maximum(tt - stride, 1)
    if left:
        stop = nn - step
        start = np.maximum(stop - tt, 0)
    else:
        start = step
        stop = np.minimum(start + tt, nn)
    whole = k * (tt == 0) == 1  # (truncate(0): the whole sequence overflows)
    return count, row, k, np.where(whole, 0, start), np.where(whole, nn, stop)


def _pairs(ca: np.ndarray, cb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The output rows of pairs whose sequences have ca and cb windows: (input row, A's window,
    B's window) of each, in merge_with's order (the module docstring)."""
    total = ca * cb
    row = np.repeat(np.arange(len(ca)), total)
    first = np.repeat(_starts(total), total)
    idx = np.arange(len(row)) - first
    per_b, per_a = cb[row], ca[row]
    i, j = idx // per_b, idx % per_b
    key = np.where(i >= 1, 1 + (i - 1) * per_b + j, np.where(j >= 1, 1 + (per_a - 1) * per_b + j - 1, 0))
    order = np.empty_like(idx)
    order[first + key] = np.arange(len(idx))
    return row[order], i[order], j[order]


def _swap(row, i, j):
    return row, j, i


@dataclass
class _Part:
    """One sequence's window in each output row: its first token (flat index into the side),
    length, and whether it is the sequence's first window."""

    side: Side
    start: np.ndarray
    length: np.ndarray
    first: np.ndarray


def trim(spans: np.ndarray, lead: np.ndarray, trail: np.ndarray, first: np.ndarray, prefix_space: bool) -> np.ndarray:
    """process_offsets: each token's offsets trimmed of its leading and trailing spaces
    (`first`: the token is its window's first)."""
    s, e = spans[:, 0], spans[:, 1]
    if prefix_space:
        lead = np.where((first | (s == 0)) & (lead == 1), 0, lead)
    s = np.where(lead > 0, np.minimum(s + lead, e), s)
    e = np.where((trail > 0) & (e >= trail), np.maximum(e - trail, s), e)
    return np.stack([s, e], axis=1)


def assemble(pieces: Pieces, parts: list[_Part], window_types: tuple[int, int], trimming: Optional[bool]) -> Rows:
    """The rows of the layout: `parts` the windows of A (and B) in each row; a window after a
    sequence's first has type id window_types[source]; `trimming`: None, or the trim's
    add_prefix_space."""
    n = len(parts[0].length)
    lengths = [np.full(n, len(ids)) if src == SPECIAL else parts[src].length for src, ids, _ in pieces]
    total = np.sum(lengths, axis=0) if lengths else np.zeros(n, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(total, out=offsets[1:])
    size = int(offsets[-1])
    ids = np.empty(size, dtype=np.uint32)
    type_ids = np.empty(size, dtype=np.uint32)
    special = np.zeros(size, dtype=np.uint8)
    spans = np.zeros((size, 2), dtype=np.int64) if parts[0].side.spans is not None else None
    start = offsets[:-1].copy()
    for (src, tok, type_id), length in zip(pieces, lengths):
        if src == SPECIAL:
            pos = (start[:, None] + np.arange(len(tok))).ravel()
            ids[pos] = np.tile(np.asarray(tok, dtype=np.uint32), n)
            special[pos] = 1
            type_ids[pos] = type_id
        else:
            part, count = parts[src], int(length.sum())
            pos = np.arange(count) + np.repeat(start - _starts(length), length)
            # (every row's whole sequence, in order: the side's arrays as they are)
            whole = count == len(part.side.ids) and np.array_equal(part.start, part.side.offsets[:-1])
            took = slice(None) if whole else pos + np.repeat(part.start - start, length)
            ids[pos] = part.side.ids[took]
            firsts = part.first.all()
            type_ids[pos] = type_id if firsts else np.repeat(np.where(part.first, type_id, window_types[src]), length)
            if spans is not None:
                got = part.side.spans[took]
                if trimming is not None:
                    first = pos == np.repeat(start, length)
                    got = trim(got, part.side.lead[took], part.side.trail[took], first, trimming)
                spans[pos] = got
        start += length
    return Rows(ids, type_ids, special, np.ones(size, dtype=np.uint8), offsets, spans)


def pad(rows: Rows, post: PostProcess, firsts: Optional[np.ndarray] = None) -> Rows:
    """Every row padded to the batch's target (PostProcess.pad's rule, over the `firsts` rows:
    the encodings, not their overflowing): pad_id, pad_type_id, a special-tokens mask of 1, an
    attention mask of 0 and offsets (0, 0) on the `pad_left` or right side."""
    if post.pad_id is None or len(rows.offsets) < 2:
        return rows
    lengths = np.diff(rows.offsets)
    longest = int((lengths if firsts is None else lengths[firsts]).max())
    target = post.pad_fixed if post.pad_fixed is not None else longest
    m = post.pad_multiple
    if m and target % m:
        target += m - target % m
    if target > _MAX_PAD:
        raise ValueError(f"padding: a padded length of {target} ids is more than tagpipe allocates ({_MAX_PAD})")
    new_lengths = np.maximum(lengths, target)
    if (new_lengths == lengths).all():
        return rows
    offsets = np.zeros_like(rows.offsets)
    np.cumsum(new_lengths, out=offsets[1:])
    doc = np.repeat(np.arange(len(lengths)), lengths)
    shift = offsets[:-1] + (new_lengths - lengths if post.pad_left else 0)
    pos = np.arange(len(rows.ids)) - rows.offsets[:-1][doc] + shift[doc]
    out = []
    fields = [
        (rows.ids, post.pad_id),
        (rows.type_ids, post.pad_type_id),
        (rows.special_tokens_mask, 1),
        (rows.attention_mask, 0),
    ]
    if rows.offset_mapping is not None:
        fields.append((rows.offset_mapping, 0))
    for values, fill in fields:
        arr = np.full((int(offsets[-1]),) + values.shape[1:], fill, dtype=values.dtype)
        arr[pos] = values
        out.append(arr)
    mapping = out.pop() if rows.offset_mapping is not None else None
    return Rows(*out, offsets, mapping, rows.sample)


def post_process(
    layout: Layout,
    a: Side,
    b: Optional[Side],
    post: PostProcess,
    add_special: bool,
    overflow: bool = False,
    trimming: Optional[bool] = None,
) -> tuple[Optional[Rows], np.ndarray]:
    """Truncation, the layout and padding of the sequences (A's and, for pairs, B's): the rows
    (with the overflowing ones after each row's first when `overflow`), or None and the rows
    that are the oracle's error.  `trimming`: None, or the post-processor's trim
    (add_prefix_space) of the offsets."""
    pieces = layout.pieces(b is not None, add_special)
    assert pieces is not None, "the caller checks the layout's pair form"
    n_added = layout.added(b is not None) if add_special else 0
    n1 = np.diff(a.offsets)
    n2 = None if b is None else np.diff(b.offsets)
    t1, t2, failing = targets(n1, n2, post, n_added)
    if failing.any():
        return None, failing
    stride, left = post.stride, post.cut_left
    ca, _, ka, sa, ea = windows(n1, t1, stride, left, overflow)
    wa = _starts(ca)
    if b is None:
        row, ia = np.repeat(np.arange(len(n1)), ca), ka
        parts = [_Part(a, a.offsets[row] + sa, ea - sa, ka == 0)]
    else:
        cb, _, _, sb, eb = windows(n2, t2, stride, left, overflow)
        row, ia, ib = _pairs(ca, cb) if not layout.b_first else _swap(*_pairs(cb, ca))
        wb = _starts(cb)[row] + ib
        parts = [None, _Part(b, b.offsets[row] + sb[wb], eb[wb] - sb[wb], ib == 0)]
        w = wa[row] + ia
        parts[0] = _Part(a, a.offsets[row] + sa[w], ea[w] - sa[w], ia == 0)
    types = (0, 0) if layout.zero_window_types and add_special else (0, 1)
    rows = assemble(pieces, parts, types, trimming)
    firsts = ia == 0 if b is None else (ia == 0) & (ib == 0)
    if overflow:
        rows.sample = row
    return pad(rows, post, None if firsts.all() else firsts), failing
