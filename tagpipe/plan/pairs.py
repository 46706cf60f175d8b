"""The post-processor's layout of one sequence and of a pair, and the truncation targets of
each sequence, as ``TokenizerImpl::post_process`` computes them (tokenizers/src/utils/
truncation.rs ``truncate_encodings``, processors/*.rs ``process_encodings``); the rows
themselves -- windows, layout, padding -- are tagpipe.plan.rows.

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
from tagpipe.plan.post_processors import PostProcess

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
    # (overflowing rows, tagpipe.plan.rows) every window after a sequence's first has type id 0
    # when special tokens are added (RobertaProcessing), else its sequence's own
    zero_window_types: bool = False
    # why the overflowing windows of one sequence, and of a pair, do not combine as
    # tagpipe.plan.rows does ("" when they do); b_first: the pair form has $B before $A
    windows_whys: tuple[str, str] = ("", "")
    b_first: bool = False

    def pieces(self, is_pair: bool, add_special: bool) -> Optional[Pieces]:
        if is_pair:
            return self.pair if add_special else self.pair_plain
        return self.single if add_special else self.single_plain

    def windows_why(self, is_pair: bool) -> str:
        """Why overflowing rows are not native for this form ("" when they are)."""
        return self.windows_whys[is_pair]

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
    order = None if pair is None else _sources(pair)
    whys = (
        "" if _sources(single) == [A] else f"{path}.single: not one $A (its overflowing windows)",
        "" if order in (None, [A, B], [B, A]) else f"{path}.pair: not $A and $B once each (overflowing)",
    )
    plain_single = tuple(p for p in single if p[0] != SPECIAL)
    return Layout(single, plain_single, pair, plain, why, windows_whys=whys, b_first=order == [B, A]), ""


def _sources(pieces: Pieces) -> list[int]:
    return [src for src, _, _ in pieces if src != SPECIAL]


def plan_layout(node: Optional[spec.PostProcessor], path: str = "post_processor") -> tuple[Optional[Layout], str]:
    """The layout of this post-processor, or (None, why) when not even its single form is known."""
    if node is None or isinstance(node, spec.ByteLevelPreTokenizer):
        return _DEFAULT, ""
    if isinstance(node, (spec.BertProcessing, spec.RobertaProcessing)):
        cls, sep = (SPECIAL, (node.cls[1],), 0), (SPECIAL, (node.sep[1],), 0)
        single = (cls, (A, (), 0), sep)
        if isinstance(node, spec.RobertaProcessing):
            pair = single + (sep, (B, (), 0), sep)
            return Layout(single, ((A, (), 0),), pair, ((A, (), 0), (B, (), 0)), zero_window_types=True), ""
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


# -- truncation ---------------------------------------------------------------------------------


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
