"""The post-processor's layout of one sequence and of a pair, and what tokenizers does around
it: pair truncation, the template, padding -- ids, type ids, special-tokens and attention masks,
as ``TokenizerImpl::post_process`` and ``encode_batch`` build them (tokenizers/src/utils/
truncation.rs ``truncate_encodings``, processors/*.rs ``process_encodings``, padding.rs).

A layout is a tuple of pieces ``(source, ids, type_id)``: source 0 is sequence A, 1 is B, -1 a
special token's ids.  What the oracle does (checked against it in tests/test_pairs.py):

* ``ByteLevel`` and no post-processor: A with type id 0, B with type id 1, no special tokens;
* ``BertProcessing``: ``cls A sep`` / ``cls A sep B:1 sep:1``; without special tokens A:0 B:1;
* ``RobertaProcessing``: ``cls A sep`` / ``cls A sep sep B sep``, every type id 0, also
  without special tokens;
* ``TemplateProcessing``: its pieces in order; without special tokens only its sequences, with
  the template's type ids;
* ``Sequence``: the one child that is not ``ByteLevel`` (several are not native for pairs).

Truncation cuts the sequences before the special tokens are added, to ``max_length`` minus the
pair form's special ids (the oracle's ``usize`` wraps below 0: no truncation; exactly 0 empties
both): ``LongestFirst`` shares the room (the shorter keeps what it has when it fits in half),
``OnlyFirst``/``OnlySecond`` cut one sequence and are the oracle's error when it is too short;
a cut to a length ``<= stride`` (but not 0) is the oracle's panic.  Such rows are reported as
failing: the caller asks the oracle, which raises its own error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from tagpipe import spec
from tagpipe.plan.post_processors import _MAX_PAD, PostProcess

Piece = tuple[int, tuple[int, ...], int]
Pieces = tuple[Piece, ...]

A, B, SPECIAL = 0, 1, -1


@dataclass(frozen=True)
class Layout:
    """The pieces of one sequence and of a pair, with and without special tokens (a pair form
    of None: pairs are not native, `why` says why)."""

    single: Pieces
    single_plain: Pieces
    pair: Optional[Pieces]
    pair_plain: Optional[Pieces]
    why: str = ""

    def pieces(self, is_pair: bool, add_special: bool) -> Optional[Pieces]:
        if is_pair:
            return self.pair if add_special else self.pair_plain
        return self.single if add_special else self.single_plain

    def added(self, is_pair: bool) -> int:
        """``PostProcessor::added_tokens(is_pair)``: the special ids of the form."""
        form = self.pair if is_pair else self.single
        return sum(len(ids) for src, ids, _ in form or () if src == SPECIAL)


_DEFAULT = Layout(((A, (), 0),), ((A, (), 0),), ((A, (), 0), (B, (), 1)), ((A, (), 0), (B, (), 1)))


def _template(node: spec.TemplateProcessing, path: str) -> tuple[Optional[Layout], str]:
    def form(pieces, name: str) -> tuple[Optional[Pieces], str]:
        out = []
        for i, piece in enumerate(pieces):
            if piece.kind == "Sequence":
                out.append((A if piece.id == "A" else B, (), piece.type_id))
            elif piece.id not in node.special_tokens:
                return None, f"{path}.{name}[{i}]: the special token {piece.id!r} is not in special_tokens"
            else:
                out.append((SPECIAL, tuple(node.special_tokens[piece.id].ids), piece.type_id))
        return tuple(out), ""

    single, why = form(node.single, "single")
    if single is None:
        return None, why
    if any(src == B for src, _, _ in single):
        return None, f"{path}.single uses $B (the oracle panics)"
    pair, why = form(node.pair, "pair")
    plain = tuple(p for p in pair or () if p[0] != SPECIAL) if pair is not None else None
    return Layout(single, tuple(p for p in single if p[0] != SPECIAL), pair, plain, why), ""


def plan_layout(node: Optional[spec.PostProcessor], path: str = "post_processor") -> tuple[Optional[Layout], str]:
    """The layout of this post-processor, or (None, why) when not even its single form is known."""
    if node is None or isinstance(node, spec.ByteLevelPreTokenizer):
        return _DEFAULT, ""
    if isinstance(node, (spec.BertProcessing, spec.RobertaProcessing)):
        cls, sep = (SPECIAL, (node.cls[1],), 0), (SPECIAL, (node.sep[1],), 0)
        single = (cls, (A, (), 0), sep)
        if isinstance(node, spec.RobertaProcessing):
            pair = single + (sep, (B, (), 0), sep)
            return Layout(single, ((A, (), 0),), pair, ((A, (), 0), (B, (), 0))), ""
        sep1 = (SPECIAL, (node.sep[1],), 1)
        return Layout(single, ((A, (), 0),), single + ((B, (), 1), sep1), _DEFAULT.pair_plain), ""
    if isinstance(node, spec.TemplateProcessing):
        return _template(node, path)
    if isinstance(node, spec.ProcessorSequence):
        adding = [
            (i, child) for i, child in enumerate(node.processors) if not isinstance(child, spec.ByteLevelPreTokenizer)
        ]
        if not adding:
            return _DEFAULT, ""
        if len(adding) > 1:
            return None, f"{path}: a Sequence of several post-processors that add tokens"
        i, child = adding[0]
        return plan_layout(child, f"{path}.processors[{i}]")
    return None, f"{path}: no native {node.type} post-processor"


# -- the batch: truncation, the layout, padding ------------------------------------------------


@dataclass
class Rows:
    """A batch, flat: row i is [offsets[i]:offsets[i + 1]] of each array."""

    ids: np.ndarray  # uint32
    type_ids: np.ndarray  # uint32
    special_tokens_mask: np.ndarray  # uint8
    attention_mask: np.ndarray  # uint8
    offsets: np.ndarray  # int64, n + 1


def _longest_first(n1: np.ndarray, n2: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """truncate_encodings' LongestFirst targets for a pair (the rows over `m`)."""
    swap = n1 > n2
    short = np.minimum(n1, n2)
    long_t = np.where(short > m, short, np.maximum(short, m - short))
    both = short + long_t > m
    short_t = np.where(both, m // 2, short)
    long_t = np.where(both, m // 2 + m % 2, long_t)
    return np.where(swap, long_t, short_t), np.where(swap, short_t, long_t)


def targets(
    n1: np.ndarray, n2: Optional[np.ndarray], post: PostProcess, n_added: int
) -> tuple[np.ndarray, Optional[np.ndarray], np.ndarray]:
    """The length each sequence keeps, and the rows that are the oracle's error."""
    failing = np.zeros(len(n1), dtype=bool)
    if post.max_length is None:
        return n1, n2, failing
    m = post.max_length - n_added
    if m < 0:  # (the oracle's usize wraps: no truncation)
        return n1, n2, failing
    if m == 0:
        return np.zeros_like(n1), None if n2 is None else np.zeros_like(n2), failing
    total = n1 if n2 is None else n1 + n2
    over = total > m
    t1, t2 = n1, n2
    if post.only_second or post.only_first:
        cut_second = post.only_second
        if cut_second and n2 is None:
            return n1, n2, over  # "Second sequence not provided"
        target = n2 if cut_second else n1
        remove = total - m
        failing |= over & (target <= remove)  # "Sequence to truncate too short"
        cut = np.where(over & ~failing, target - remove, target)
        t1, t2 = (n1, cut) if cut_second else (cut, n2)
    elif n2 is None:
        t1 = np.where(over, m, n1)
    else:
        l1, l2 = _longest_first(n1, n2, m)
        t1, t2 = np.where(over, l1, n1), np.where(over, l2, n2)
    for n, t in ((n1, t1), (n2, t2)):
        if n is not None:  # Encoding::truncate asserts stride < max_len (a 0 is allowed)
            failing |= (t < n) & (t > 0) & (post.stride >= t)
    return t1, t2, failing


def cut(ids: np.ndarray, offsets: np.ndarray, keep: np.ndarray, left: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row cut to `keep` ids: its first (right truncation) or its last (`left`)."""
    lengths = np.diff(offsets)
    keep = np.minimum(lengths, keep)
    if (keep == lengths).all():
        return ids, offsets
    doc = np.repeat(np.arange(len(lengths)), lengths)
    pos = np.arange(len(ids)) - offsets[:-1][doc]
    lo = lengths - keep if left else np.zeros_like(lengths)
    mask = (pos >= lo[doc]) & (pos < (lo + keep)[doc])
    new = np.zeros_like(offsets)
    np.cumsum(keep, out=new[1:])
    return ids[mask], new


def assemble(pieces: Pieces, seqs: list[tuple[np.ndarray, np.ndarray]], n: int) -> Rows:
    """The rows of the layout: `seqs` the (ids, offsets) of A (and B)."""
    lengths = [np.full(n, len(ids)) if src == SPECIAL else np.diff(seqs[src][1]) for src, ids, _ in pieces]
    total = np.sum(lengths, axis=0) if lengths else np.zeros(n, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(total, out=offsets[1:])
    size = int(offsets[-1])
    ids = np.empty(size, dtype=np.uint32)
    type_ids = np.empty(size, dtype=np.uint32)
    special = np.zeros(size, dtype=np.uint8)
    start = offsets[:-1].copy()
    for (src, tok, type_id), length in zip(pieces, lengths):
        if src == SPECIAL:
            pos = (start[:, None] + np.arange(len(tok))).ravel()
            ids[pos] = np.tile(np.asarray(tok, dtype=np.uint32), n)
            special[pos] = 1
        else:
            sid, soff = seqs[src]
            pos = np.arange(len(sid)) + np.repeat(start - soff[:-1], length)
            ids[pos] = sid
        type_ids[pos] = type_id
        start += length
    return Rows(ids, type_ids, special, np.ones(size, dtype=np.uint8), offsets)


def pad(rows: Rows, post: PostProcess) -> Rows:
    """Every row padded to the batch's target (PostProcess.pad's rule): pad_id, pad_type_id, a
    special-tokens mask of 1 and an attention mask of 0 on the `pad_left` or right side."""
    if post.pad_id is None or len(rows.offsets) < 2:
        return rows
    lengths = np.diff(rows.offsets)
    target = post.pad_fixed if post.pad_fixed is not None else int(lengths.max())
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
    for values, fill in (
        (rows.ids, post.pad_id),
        (rows.type_ids, post.pad_type_id),
        (rows.special_tokens_mask, 1),
        (rows.attention_mask, 0),
    ):
        arr = np.full(int(offsets[-1]), fill, dtype=values.dtype)
        arr[pos] = values
        out.append(arr)
    return Rows(*out, offsets)


def post_process(
    layout: Layout,
    a: tuple[np.ndarray, np.ndarray],
    b: Optional[tuple[np.ndarray, np.ndarray]],
    post: PostProcess,
    add_special: bool,
) -> tuple[Optional[Rows], np.ndarray]:
    """Truncation, the layout and padding of the sequences' ids (A's and, for pairs, B's, each
    as (ids, offsets)): the rows, or None and the rows that are the oracle's error."""
    pieces = layout.pieces(b is not None, add_special)
    assert pieces is not None, "the caller checks the layout's pair form"
    n_added = layout.added(b is not None) if add_special else 0
    n1 = np.diff(a[1])
    n2 = None if b is None else np.diff(b[1])
    t1, t2, failing = targets(n1, n2, post, n_added)
    if failing.any():
        return None, failing
    seqs = [cut(*a, t1, post.cut_left)]
    if b is not None:
        seqs.append(cut(*b, t2, post.cut_left))
    return pad(assemble(pieces, seqs, len(n1)), post), failing
