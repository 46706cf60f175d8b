"""Which classify kernels this build has, which this CPU runs, and which one is active."""

from __future__ import annotations

import os
from typing import NamedTuple

from tagpipe import _core

ENV = "TAGPIPE_KERNEL"


class KernelInfo(NamedTuple):
    """`available`: kernels this CPU can run, best last; `active`: the one in use;
    `compiled`: every kernel built into this wheel (for this architecture)."""

    available: tuple[str, ...]
    active: str
    compiled: tuple[str, ...]


def kernels() -> KernelInfo:
    """List the classify kernels: available here, active, compiled in.

    >>> import tagpipe
    >>> info = tagpipe.kernels()
    >>> info.active in info.available and "scalar" in info.available
    True
    """
    return KernelInfo(tuple(_core.kernels_available()), _core.active_kernel(), tuple(_core.kernels_compiled()))


def set_kernel(name: str) -> None:
    """Make `name` the active kernel for this process (``TAGPIPE_KERNEL`` does this at import).

    Raises ValueError if the kernel is unknown or this CPU cannot run it.
    """
    try:
        _core.set_kernel(name)
    except ValueError as e:
        raise ValueError(f"tagpipe: {e}") from None


def _apply_env() -> None:
    name = os.environ.get(ENV)
    if name:
        try:
            _core.set_kernel(name)
        except ValueError as e:
            raise ValueError(f"tagpipe: {ENV}={name!r}: {e}") from None
