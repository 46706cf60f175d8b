"""Ray Data: ``ds.map_batches(tagpipe.ray_encoder(tok), batch_format="pyarrow")``.

The encoder takes a batch in any of Ray's batch formats and returns the same format with
an ids column added:

* ``"pyarrow"`` (fastest): the text column is read from its Arrow buffers, the ids are an
  Arrow ``list<uint32>`` column;
* ``"pandas"``: the ids column is Arrow-backed (``pd.ArrowDtype(list<uint32>)``), which Ray
  turns back into Arrow without a copy per row;
* ``"numpy"``: a dict of arrays; the ids are an object array of uint32 arrays.

Ray ships the encoder to its workers by pickle (the tokenizer.json, rebuilt once per worker
process and reused by later tasks); each call runs on one native thread unless
``num_threads`` says otherwise (Ray already runs one task per CPU).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tagpipe.integrations.base import ColumnEncoder, require, table_column, with_column


class RayEncoder(ColumnEncoder):
    """A ``Dataset.map_batches`` function (see the module docstring)."""

    def __call__(self, batch: Any) -> Any:
        pa = require("pyarrow", "ray")
        if isinstance(batch, pa.Table):
            return with_column(batch, self.output, self.encode_column(table_column(batch, self.column)))
        if type(batch).__module__.startswith("pandas"):
            import pandas as pd

            if self.column not in batch.columns:
                raise KeyError(f"the batch has no column {self.column!r} (columns: {list(batch.columns)})")
            ids = self.encode_column(batch[self.column])
            out = batch.copy(deep=False)
            out[self.output] = pd.Series(pd.arrays.ArrowExtensionArray(ids), index=batch.index)
            return out
        if isinstance(batch, dict):
            if self.column not in batch:
                raise KeyError(f"the batch has no column {self.column!r} (columns: {list(batch)})")
            ids, offsets = self.encode_flat(batch[self.column])
            rows = np.empty(len(offsets) - 1, dtype=object)
            for i in range(len(rows)):  # (one view per row; a slice assignment would broadcast)
                rows[i] = ids[offsets[i] : offsets[i + 1]]
            return {**batch, self.output: rows}
        raise TypeError(f"ray_encoder expects a pyarrow, pandas or numpy batch, got {type(batch).__name__}")


def ray_encoder(
    tok: Any,
    column: str = "text",
    output: str = "input_ids",
    *,
    add_special_tokens: bool = True,
    num_threads: Optional[int] = 1,
    nulls: str = "error",
) -> RayEncoder:
    """A function for ``ds.map_batches(fn, batch_format="pyarrow")`` (or ``"pandas"``,
    ``"numpy"``) adding column `output`: the ids of column `column`."""
    return RayEncoder(tok, column, output, add_special_tokens=add_special_tokens, num_threads=num_threads, nulls=nulls)
