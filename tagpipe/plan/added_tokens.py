"""The ``added_tokens`` section -> the tokens the native splitter matches (``_core.AddedToken``):
``normalized=false`` ones on the raw text, the others by their normalized form on each
normalized gap.  The ids are the ones the oracle assigns at load (``tagpipe.spec``)."""

from __future__ import annotations

from typing import Optional

from tagpipe import _core, spec
from tagpipe.plan.steps import Plan


def plan_added_tokens(
    tokens: tuple[spec.AddedToken, ...], normalizer: list[_core.NormalizerStep], plan: Plan
) -> Optional[tuple[list[_core.AddedToken], list[_core.AddedToken]]]:
    """(raw, normalized) tokens; None (with the reason in `plan`) when a normalized token's form
    needs a normalization tagpipe does not run."""
    raw, normalized = [], []
    for token in tokens:
        entry = _core.AddedToken(
            text=token.content, id=token.id, single_word=token.single_word, lstrip=token.lstrip, rstrip=token.rstrip
        )
        if not token.normalized:
            raw.append(entry)
            continue
        form = _core.normalize(normalizer, token.content)
        if form is None:
            plan.add(
                "added_tokens", token.content, False, "its normalized form needs a normalization tagpipe does not run"
            )
            return None
        entry.text = form
        normalized.append(entry)
    return raw, normalized
