"""Delegation to the oracle, and the switch that forbids it.

tagpipe never approximates: a stage it cannot run exactly is handed to `tokenizers`, and
`explain()` says so.  Tests (and users who want to know) can make any delegation raise:

    with tagpipe.delegation_disabled():
        tagpipe.PreTokenizer.from_json(section)   # raises DelegationError if not all native

or set ``TAGPIPE_DELEGATION=error`` in the environment.
"""

from __future__ import annotations

import contextlib
import os
import threading

ENV = "TAGPIPE_DELEGATION"
_state = threading.local()


class DelegationError(RuntimeError):
    """Raised instead of delegating to the oracle while delegation is disabled."""


def delegation_allowed() -> bool:
    if getattr(_state, "disabled", 0):
        return False
    return os.environ.get(ENV, "allow").lower() != "error"


@contextlib.contextmanager
def delegation_disabled():
    """Inside this block (in this thread), anything that would delegate raises DelegationError."""
    _state.disabled = getattr(_state, "disabled", 0) + 1
    try:
        yield
    finally:
        _state.disabled -= 1


def oracle():
    """The `tokenizers` module, or a clear error if it is missing."""
    try:
        import tokenizers
    except ImportError:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "this part of the pipeline is delegated to the `tokenizers` package, "
            "which is not installed (pip install tokenizers==0.23.3)"
        ) from None
    return tokenizers
