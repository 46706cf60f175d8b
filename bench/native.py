"""tagpipe's native benchmark hooks and internals, as bench/ reaches them: in this one place.

The hooks live in ``tagpipe._core.testing``; the planner's internals (how a normalizer
section becomes native steps) change with tagpipe's layout.  When either moves, this file is
what changes -- the benchmarks call these functions only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tagpipe import _core

HOOKS = _core.testing


def spans(docs: list[str]) -> tuple[bytes, np.ndarray]:
    """The documents as one UTF-8 buffer and int64 offsets (document i: data[o[i]:o[i + 1]])."""
    raw = [d.encode("utf-8") for d in docs]
    return b"".join(raw), np.cumsum([0] + [len(r) for r in raw], dtype=np.int64)


def time_classify(docs: list[str], alphabet: str, kernel: str) -> int:
    """Nanoseconds of `kernel`'s classify calls alone over the documents (one reused buffer)."""
    data, offsets = spans(docs)
    return HOOKS.time_classify(data, offsets, alphabet, kernel)


def time_transcode(docs: list[str], kernel: str) -> int:
    """Nanoseconds of `kernel`'s str -> UTF-8 conversions alone over the documents."""
    return HOOKS.time_transcode(docs, kernel)


def transcode(text: str, kernel: str) -> bytes:
    return HOOKS.transcode(text, kernel=kernel)


def time_pretokenizer(pretokenizer: Any, docs: list[str]) -> tuple[int, Any]:
    """(nanoseconds, pieces) of a tagpipe.PreTokenizer's native pass alone over the documents."""
    data, offsets = spans(docs)
    return HOOKS.time_pre_tokenizer(pretokenizer.plan.stages, data, offsets)


def normalizer_steps(node: dict) -> tuple[list, bool]:
    """(the native steps of a tokenizer.json normalizer section, whether all of it is native)."""
    from tagpipe.plan import Plan, plan_normalizer
    from tagpipe.spec import parse_normalizer

    plan = Plan()
    steps = plan_normalizer(parse_normalizer(node), "normalizer", plan)
    return steps, all(s.native for s in plan.steps)


def normalize_timed(steps: list, docs: list[str]) -> tuple[list, int]:
    """(each document normalized, or None where tagpipe would delegate it; nanoseconds)."""
    return HOOKS.normalize_timed(steps, docs)


def oracle_pre_tokenizer(section: dict) -> Any:
    """tokenizers' own pre-tokenizer for a tokenizer.json pre_tokenizer section."""
    from tagpipe.pretokenizer import _oracle_pre_tokenizer

    return _oracle_pre_tokenizer(section)
