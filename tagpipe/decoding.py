"""What `Tokenizer.decode` and its kin share: the flag check, and `DecodeStream`, ids -> text
as a generation loop makes them (the oracle's ``tokenizers.decoders.DecodeStream``).

    >>> stream = tok.decode_stream()
    >>> for id in generated:
    ...     chunk = stream.step(id)          # None until a chunk of text is complete
    ...     if chunk is not None:
    ...         print(chunk, end="")

The native decode (cpp/decode/) handles every call the oracle answers; where the oracle
*panics* (a Strip decoder asked to cut more than a token holds), the same ids are handed to
the oracle so that its exception is the one raised.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Optional

import numpy as np

from tagpipe import _core
from tagpipe._delegate import oracle as oracle_module


def flag(value: Any, name: str = "skip_special_tokens") -> bool:
    """A bool (or numpy bool), as the oracle takes it: anything else is a TypeError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name}: '{type(value).__name__}' object is not an instance of 'bool'")


class DecodeStream:
    """ids -> text, one chunk at a time: ``step(id)`` (an int, or a list of ints) returns the
    text the ids so far add, or None while it is incomplete (a character split across byte
    tokens).  Equal to ``tokenizers.decoders.DecodeStream(ids, skip_special_tokens).step(tok, id)``,
    including its errors.  Made by `Tokenizer.decode_stream`."""

    def __init__(
        self,
        native: Optional[_core.DecodeStream],
        oracle: Callable[[], Any],
        skip_special_tokens: bool,
        ids: Optional[list[int]] = None,
    ) -> None:
        """`native`: the native stream, or None to step the oracle's; `oracle()`: the oracle
        tokenizer (it raises DelegationError while delegation is disabled)."""
        self._native = native
        self._oracle = oracle
        self._skip = skip_special_tokens
        self._delegated = None
        if native is None:
            self._delegated = oracle_module().decoders.DecodeStream(ids=ids, skip_special_tokens=skip_special_tokens)

    def step(self, id: Any) -> Optional[str]:
        if self._native is None:
            return self._delegated.step(self._oracle(), id)
        try:
            return self._native.step(id)
        except _core.DecodeNotNative as e:  # the oracle panics on these ids: raise its exception
            self._oracle().decode(e.args[0], skip_special_tokens=self._skip)
            raise RuntimeError(f"the native decode and the oracle disagree on ids {e.args[0]}") from None

    def __copy__(self) -> "DecodeStream":
        out = DecodeStream.__new__(DecodeStream)
        out.__dict__.update(self.__dict__)
        out._native = copy.copy(self._native) if self._native is not None else None
        out._delegated = copy.copy(self._delegated) if self._delegated is not None else None
        return out

    def __deepcopy__(self, memo: dict) -> "DecodeStream":
        return self.__copy__()
