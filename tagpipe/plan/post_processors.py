"""The ``post_processor`` section -> the special-token ids around one sequence; and the
``truncation`` and ``padding`` sections -> `PostProcess`, applied to the native ids as
tokenizers' ``TokenizerImpl::post_process`` and ``encode_batch`` do them
(tokenizers/src/utils/truncation.rs, padding.rs, tokenizer/encoding.rs).

The native encoder returns ``prefix + body + suffix``: the post-processor's special tokens
(``n_added = len(prefix) + len(suffix)``, what ``PostProcessor::added_tokens(false)`` counts)
around the model's ids.  The oracle truncates the body *before* adding them, so here the body
is cut in place and the special tokens stay:

* the limit is ``max_length - n_added`` when special tokens are added (and there are any),
  else ``max_length``.  The oracle subtracts in ``usize`` and its release build wraps: a
  ``max_length`` below ``n_added`` means no truncation at all;
* a limit of 0 empties the body; otherwise a longer body keeps its first (``Right``) or last
  (``Left``) ``limit`` ids -- ``LongestFirst`` and ``OnlyFirst`` are the same for one
  sequence.  Two cases are the oracle's errors, raised by the oracle itself (the text is
  delegated): ``OnlySecond`` ("Second sequence not provided") and ``stride >= limit`` (a panic
  in ``Encoding::truncate``);
* padding comes after: ``Fixed(n)`` pads each encoding to ``n``, ``BatchLongest`` to the
  longest of the batch (of one text: itself), both rounded up to ``pad_to_multiple_of``;
  never shorter, ``pad_id`` on the ``direction`` side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from tagpipe import spec
from tagpipe.plan.steps import Plan

# -- the post-processor's special tokens -------------------------------------------------------


def special_ids(node: Optional[spec.PostProcessor], path: str, plan: Plan) -> tuple[list[int], list[int]]:
    """The special-token ids the post-processor puts before and after one sequence."""
    if node is None or isinstance(node, spec.ByteLevelPreTokenizer):
        return [], []
    if isinstance(node, (spec.BertProcessing, spec.RobertaProcessing)):
        return [node.cls[1]], [node.sep[1]]
    if isinstance(node, spec.TemplateProcessing):
        before: list[int] = []
        after: list[int] = []
        seen = False
        for i, piece in enumerate(node.single):
            if piece.kind == "Sequence":
                seen = True
            elif piece.id not in node.special_tokens:
                why = f"the special token {piece.id!r} is not in special_tokens"
                plan.add(
                    path,
                    "TemplateProcessing",
                    False,
                    f"single[{i}]: {why} (add_special_tokens=True is an error, the oracle panics there; "
                    "False is delegated)",
                )
                plan.special_tokens_error = (
                    f"{path}.single[{i}]",
                    f"{why}: tokenizers cannot add this template's special tokens (it panics); "
                    "encode with add_special_tokens=False, or add the token to special_tokens",
                )
                return [], []
            else:
                (after if seen else before).extend(node.special_tokens[piece.id].ids)
        return before, after
    if isinstance(node, spec.ProcessorSequence):
        before, after = [], []
        for i, child in enumerate(node.processors):
            b, a = special_ids(child, f"{path}.processors[{i}]", plan)
            before, after = b + before, after + a
        return before, after
    plan.add(path, node.type, False, f"no native {node.type} post-processor yet")
    return [], []


# -- truncation and padding ----------------------------------------------------------------------

_MAX_PAD = 1 << 32  # a padded length beyond this is refused, not allocated


@dataclass(frozen=True)
class PostProcess:
    n_prefix: int = 0
    n_suffix: int = 0
    max_length: Optional[int] = None  # truncation
    stride: int = 0
    only_second: bool = False
    only_first: bool = False  # (the same as LongestFirst for one sequence; not for pairs)
    cut_left: bool = False
    pad_fixed: Optional[int] = None  # padding: Fixed(n), or BatchLongest when pad_id is set
    pad_multiple: Optional[int] = None
    pad_id: Optional[int] = None
    pad_left: bool = False
    pad_type_id: int = 0

    @property
    def active(self) -> bool:
        return self.max_length is not None or self.pad_id is not None

    def limit(self, add_special: bool) -> Optional[int]:
        """How many body ids truncation keeps (None: no truncation)."""
        if self.max_length is None:
            return None
        n_added = self.n_prefix + self.n_suffix if add_special else 0
        limit = self.max_length - n_added
        return None if limit < 0 else limit  # (the oracle's usize wraps: no truncation)

    def _may_fail(self, limit: Optional[int]) -> bool:
        """Whether a body longer than `limit` is the oracle's error: OnlySecond, or a stride
        the cut cannot take (a limit of 0 empties the body instead)."""
        return bool(limit) and (self.only_second or self.stride >= limit)

    def native(self, add_special: bool) -> Optional[tuple[int, bool]]:
        """The truncation the native encoder applies itself: (limit, cut_left), limit -1 for
        none; None when no text can be cut natively because a text may be the oracle's error
        (`failing`: OnlySecond, or a stride the cut cannot take) -- then `truncate` does it.
        Natively, a right cut also stops the model once the body is long enough."""
        limit = self.limit(add_special)
        if limit is None:
            return -1, False
        return None if self._may_fail(limit) else (limit, self.cut_left)

    def failing(self, lengths: np.ndarray, add_special: bool) -> np.ndarray:
        """Where the oracle fails (it is asked, to raise its own error): a body that must be cut
        under OnlySecond, or with a stride the cut cannot take."""
        limit = self.limit(add_special)
        n_added = self.n_prefix + self.n_suffix if add_special else 0
        if not self._may_fail(limit):
            return np.zeros(len(lengths), dtype=bool)
        return lengths - n_added > limit

    def truncate(self, ids: np.ndarray, offsets: np.ndarray, add_special: bool) -> tuple[np.ndarray, np.ndarray]:
        """Each document's body cut to the limit (the documents `failing` names are left whole)."""
        limit = self.limit(add_special)
        if limit is None:
            return ids, offsets
        lengths = np.diff(offsets)
        p, s = (self.n_prefix, self.n_suffix) if add_special else (0, 0)
        body = lengths - p - s
        over = (body > limit) & ~self.failing(lengths, add_special)
        if not over.any():
            return ids, offsets
        # Per id: its document and its position in the body; keep a body id inside the window.
        doc = np.repeat(np.arange(len(lengths)), lengths)
        pos = np.arange(len(ids)) - offsets[:-1][doc] - p
        lo = np.where(over & self.cut_left, body - limit, 0)
        hi = np.where(over, lo + limit, body)
        keep = (pos < 0) | (pos >= body[doc]) | ((pos >= lo[doc]) & (pos < hi[doc]))
        new_lengths = np.where(over, limit + p + s, lengths)
        new_offsets = np.zeros_like(offsets)
        np.cumsum(new_lengths, out=new_offsets[1:])
        return ids[keep], new_offsets

    def pad(
        self, ids: np.ndarray, offsets: np.ndarray, live: Optional[np.ndarray] = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every document padded to the batch's target length (a batch of one: encode); the
        documents `live` leaves out (null rows of an Arrow column) stay as they are."""
        if self.pad_id is None or len(offsets) < 2:
            return ids, offsets
        lengths = np.diff(offsets)
        if live is None:
            live = np.ones(len(lengths), dtype=bool)
        if not live.any():
            return ids, offsets
        target = self.pad_fixed if self.pad_fixed is not None else int(lengths[live].max())
        m = self.pad_multiple
        if m and target % m:
            target += m - target % m
        if target > _MAX_PAD:
            raise ValueError(
                f"padding: a padded length of {target} ids (padding.strategy / "
                f"pad_to_multiple_of) is more than tagpipe allocates ({_MAX_PAD})"
            )
        new_lengths = np.where(live, np.maximum(lengths, target), lengths)
        if (new_lengths == lengths).all():
            return ids, offsets
        new_offsets = np.zeros_like(offsets)
        np.cumsum(new_lengths, out=new_offsets[1:])
        out = np.full(int(new_offsets[-1]), self.pad_id, dtype=ids.dtype)
        doc = np.repeat(np.arange(len(lengths)), lengths)
        shift = new_offsets[:-1] + (new_lengths - lengths if self.pad_left else 0)
        out[np.arange(len(ids)) - offsets[:-1][doc] + shift[doc]] = ids
        return out, new_offsets


def plan_post_process(
    truncation: Optional[spec.Truncation],
    padding: Optional[spec.Padding],
    prefix_ids: list[int],
    suffix_ids: list[int],
    plan: Plan,
) -> PostProcess:
    """The truncation and padding sections, with their explain() lines."""
    kw: dict[str, Any] = {"n_prefix": len(prefix_ids), "n_suffix": len(suffix_ids)}
    trunc = truncation
    if trunc is not None:
        kw.update(
            max_length=trunc.max_length,
            stride=trunc.stride,
            only_second=trunc.strategy == "OnlySecond",
            only_first=trunc.strategy == "OnlyFirst",
            cut_left=trunc.direction == "Left",
        )
        how = "on the native ids, before the special tokens"
        if kw["only_second"]:
            how += " (a text that needs it is the oracle's error: delegated to raise it)"
        elif trunc.direction == "Right":
            how += " (the model stops once the kept ids are known, unless a later piece could be an error)"
        plan.add(
            "truncation",
            f"{trunc.strategy}(max_length={trunc.max_length}, stride={trunc.stride}, {trunc.direction})",
            True,
            how,
        )
    pad = padding
    if pad is not None:
        fixed = pad.strategy.length if isinstance(pad.strategy, spec.FixedPadding) else None
        kw.update(
            pad_fixed=fixed,
            pad_multiple=pad.pad_to_multiple_of,
            pad_id=pad.pad_id,
            pad_left=pad.direction == "Left",
            pad_type_id=pad.pad_type_id,
        )
        what = f"Fixed({fixed})" if fixed is not None else "BatchLongest"
        plan.add("padding", f"{what}, {pad.direction}, pad_id={pad.pad_id}", True, "on the native ids")
    return PostProcess(**kw)
