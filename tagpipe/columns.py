"""Text columns as the data engines hand them: Arrow string arrays, numpy and pandas.

`Tokenizer.encode_batch_flat` / `encode_arrow` call `text_column(texts)`:

* a pyarrow ``StringArray`` / ``LargeStringArray`` (sliced or not) or a ``ChunkedArray`` of
  them becomes an `ArrowText`: the array's data buffer and one (start, end) byte span per
  row, read from its offsets buffer with numpy -- no Python str per row.  The native core
  encodes the spans with the GIL released.
* a pandas Series backed by Arrow (pandas' ``str`` / ``string[pyarrow]`` / ``ArrowDtype``)
  goes the same way; any other Series and a numpy object or ``<U`` array become a list of
  str (numpy's C loop; items are checked like a list's).
* a list or tuple, or another sequence (``len`` and indexing), is returned as is; what is not
  a sequence of texts raises TypeError as the oracle's ``encode_batch`` does: a str or bytes
  (not one text per character), a set (its order is arbitrary), a dict, a DataFrame, a
  generator or iterator (no length: ``list(...)`` it first).

Nulls (Arrow rows that are null, pandas NA in an Arrow-backed Series): ``nulls="error"``
(the default) raises ValueError naming the first null row; ``nulls="null"`` keeps them:
no ids (an empty range in the flat numpy form) and a null row in `encode_arrow`'s output.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

NULLS = ("error", "null")


@dataclass
class ArrowText:
    """A string column as byte spans into one buffer (see the module docstring)."""

    array: Any  # the pyarrow (Large)StringArray the spans are read from
    data: Any  # its data buffer (a pyarrow.Buffer or b"")
    starts: np.ndarray  # int64[n]: text i is data[starts[i]:ends[i]]
    ends: np.ndarray  # int64[n]
    null_mask: Optional[np.ndarray]  # bool[n], True where the row is null (None: no nulls)

    def __len__(self) -> int:
        return len(self.starts)

    def text(self, i: int) -> str:
        """Row i as a Python str (only for the rare row the native core delegates)."""
        return bytes(memoryview(self.data)[self.starts[i] : self.ends[i]]).decode("utf-8")


def _pyarrow():
    return sys.modules.get("pyarrow")


def _is_arrow(obj: Any) -> bool:
    pa = _pyarrow()
    return pa is not None and isinstance(obj, (pa.Array, pa.ChunkedArray))


def _arrow_text(arr: Any, nulls: str) -> ArrowText:
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        # One buffer for the core: the chunks' bytes are copied once (memcpy speed, small
        # next to encoding); an empty ChunkedArray has no chunk to concatenate.
        arr = pa.concat_arrays(arr.chunks) if arr.num_chunks else pa.array([], type=arr.type)
    if pa.types.is_string(arr.type):
        offset_type = np.int32
    elif pa.types.is_large_string(arr.type):
        offset_type = np.int64
    elif pa.types.is_string_view(arr.type) if hasattr(pa.types, "is_string_view") else False:
        arr, offset_type = arr.cast(pa.large_string()), np.int64  # (views: one copy into offsets form)
    else:
        raise TypeError(f"expected an Arrow string column, got Arrow type {arr.type}")
    try:
        arr.validate(full=True)  # Arrow checks that every row is UTF-8 (the core requires it)
    except pa.ArrowInvalid as e:
        raise ValueError(f"the Arrow string column is not valid UTF-8: {e}") from None
    n = len(arr)
    _, offsets_buf, data = arr.buffers()
    if n == 0 or offsets_buf is None:
        offsets = np.zeros(n + 1, dtype=np.int64)
    else:
        offsets = np.frombuffer(offsets_buf, dtype=offset_type)[arr.offset : arr.offset + n + 1].astype(np.int64)
    starts, ends = offsets[:-1], offsets[1:].copy()
    null_mask = None
    if arr.null_count:
        null_mask = arr.is_null().to_numpy(zero_copy_only=False)
        if nulls == "error":
            first = int(np.flatnonzero(null_mask)[0])
            raise ValueError(
                f"text {first} is null ({arr.null_count} null rows); drop them first, "
                f"or pass nulls='null' to keep them as null rows without ids"
            )
        ends[null_mask] = starts[null_mask]  # (a null row's bytes, if any, are not text)
    return ArrowText(arr, data if data is not None else b"", np.ascontiguousarray(starts), ends, null_mask)


def text_column(texts: Any, nulls: str = "error") -> Any:
    """An `ArrowText` for Arrow (and Arrow-backed pandas) input, a list of str for numpy
    and other pandas input, or `texts` unchanged."""
    if nulls not in NULLS:
        raise ValueError(f"nulls must be one of {NULLS}, got {nulls!r}")
    if isinstance(texts, ArrowText):  # already a column (the integrations pass one on)
        return texts
    if _is_arrow(texts):
        return _arrow_text(texts, nulls)
    if isinstance(texts, np.ndarray):
        if texts.ndim != 1:
            raise ValueError(f"expected a 1-D array of texts, got shape {texts.shape}")
        if texts.dtype.kind not in "OU":
            raise TypeError(f"expected a numpy array of str (dtype object or <U), got dtype {texts.dtype}")
        return texts.tolist()  # (object arrays: the same str objects, no copy of the text)
    if type(texts).__module__.startswith("pandas") and hasattr(texts, "dtype") and hasattr(texts, "array"):
        if (
            _pyarrow() is not None
            and "pyarrow" in str(getattr(texts.dtype, "storage", ""))
            or type(texts.dtype).__name__ == "ArrowDtype"
        ):
            import pyarrow as pa

            return _arrow_text(pa.array(texts.array), nulls)
        return text_column(texts.to_numpy(dtype=object), nulls)
    return _sequence(texts)


def _sequence(texts: Any) -> Any:
    """`texts` if it is a sequence of texts in a defined order, else TypeError (see above)."""
    if isinstance(texts, (list, tuple)):
        return texts
    if isinstance(texts, Iterator):  # a generator, map, iter(...): its order is defined, read it once
        return list(texts)
    kind = type(texts).__name__
    why = None
    if isinstance(texts, (str, bytes, bytearray, memoryview)):
        why = "one text, not a batch: use encode(), or pass [text]"
    elif isinstance(texts, (Set, Mapping)) or kind == "DataFrame":
        why = "a set has no defined order: pass a list" if isinstance(texts, Set) else "pass one column, or a list"
    elif not (hasattr(type(texts), "__len__") and hasattr(type(texts), "__getitem__")):
        why = "not a sequence (no length or indexing): pass list(...)"
    if why is not None:
        raise TypeError(
            f"expected a batch of texts (a list, tuple, numpy array, pandas Series or Arrow string array), "
            f"got {kind}: {why}"
        )
    return texts
