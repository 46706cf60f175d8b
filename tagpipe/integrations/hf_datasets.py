"""Hugging Face ``datasets``: ``dataset.map(tagpipe.datasets_encoder(tok), batched=True, num_proc=N)``.

The encoder takes the batch in whichever format the dataset is in:

* Arrow (``dataset.with_format("arrow")``, what `datasets_encode` uses): the text column
  is read from its Arrow buffers and the ids are appended as an Arrow ``list<uint32>``
  column -- no Python object per row on either side.  (datasets does not apply
  ``remove_columns`` to a returned Arrow table: give them to the encoder instead.)
* Python (the default format): datasets hands a list of str; the ids go back as one
  uint32 numpy array per row (views of one flat array), stored as ``list<uint32>``.
* pandas: the ids go back as a column of uint32 arrays.

With ``num_proc=N`` datasets pickles the encoder into N processes (the tokenizer travels
as its JSON, rebuilt once per process); each encodes on one native thread unless
``num_threads`` says otherwise.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tagpipe.integrations.base import ColumnEncoder, require, table_column, with_column


def _split(ids: np.ndarray, offsets: np.ndarray) -> list[np.ndarray]:
    return np.split(ids, offsets[1:-1]) if len(offsets) > 1 else []


class DatasetsEncoder(ColumnEncoder):
    """A batched ``datasets.Dataset.map`` function (see the module docstring)."""

    def __init__(
        self,
        tok: Any,
        column: str = "text",
        output: str = "input_ids",
        *,
        remove_columns: Sequence[str] = (),
        **kw: Any,
    ):
        super().__init__(tok, column, output, **kw)
        self._settings["remove_columns"] = self.remove_columns = tuple(remove_columns)

    def __call__(self, batch: Any) -> Any:
        pa = require("pyarrow", "datasets")
        if isinstance(batch, pa.Table):
            out = with_column(batch, self.output, self.encode_column(table_column(batch, self.column)))
            return out.drop_columns([c for c in self.remove_columns if c in out.column_names and c != self.output])
        if isinstance(batch, dict) or hasattr(batch, "keys"):  # python / numpy formats; a pandas DataFrame
            if self.column not in batch:
                raise KeyError(f"the batch has no column {self.column!r} (columns: {list(batch.keys())})")
            ids, offsets = self.encode_flat(batch[self.column])
            rows = _split(ids, offsets)
            if type(batch).__module__.startswith("pandas"):
                import pandas as pd

                return pd.DataFrame({self.output: rows}, index=batch.index)
            return {self.output: rows}
        raise TypeError(
            f"datasets_encoder expects a batch (batched=True): a dict or an Arrow table, got {type(batch).__name__}"
        )


def datasets_encoder(
    tok: Any,
    column: str = "text",
    output: str = "input_ids",
    *,
    add_special_tokens: bool = True,
    num_threads: Optional[int] = 1,
    nulls: str = "error",
    remove_columns: Sequence[str] = (),
) -> DatasetsEncoder:
    """A function for ``dataset.map(fn, batched=True, num_proc=N)`` adding column `output`
    (the ids of column `column`, ``list<uint32>``).  Faster on an Arrow-formatted dataset
    (``dataset.with_format("arrow")``, as `datasets_encode` does)."""
    return DatasetsEncoder(
        tok,
        column,
        output,
        add_special_tokens=add_special_tokens,
        num_threads=num_threads,
        nulls=nulls,
        remove_columns=remove_columns,
    )


def datasets_encode(
    dataset: Any,
    tok: Any,
    column: str = "text",
    output: str = "input_ids",
    *,
    num_proc: Optional[int] = None,
    batch_size: int = 1000,
    remove_columns: Sequence[str] = (),
    add_special_tokens: bool = True,
    num_threads: Optional[int] = 1,
    nulls: str = "error",
    **map_kwargs: Any,
) -> Any:
    """``dataset.map`` with a `datasets_encoder` over the dataset's Arrow batches; returns the
    new dataset in the input's format.  Other keywords go to ``map`` (``desc``,
    ``cache_file_name``, ``load_from_cache_file``, ...)."""
    datasets = require("datasets", "datasets")
    if not isinstance(dataset, datasets.Dataset):
        raise TypeError(
            f"datasets_encode expects a datasets.Dataset, got {type(dataset).__name__} "
            "(for a DatasetDict, call it per split)"
        )
    fn = datasets_encoder(
        tok,
        column,
        output,
        add_special_tokens=add_special_tokens,
        num_threads=num_threads,
        nulls=nulls,
        remove_columns=remove_columns,
    )
    fmt = dataset.format
    out = dataset.with_format("arrow").map(fn, batched=True, batch_size=batch_size, num_proc=num_proc, **map_kwargs)
    return out.with_format(
        fmt["type"], columns=None, output_all_columns=fmt["output_all_columns"], **fmt["format_kwargs"]
    )
