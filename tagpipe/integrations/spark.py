"""Spark: ``df.withColumn("input_ids", tagpipe.spark_udf(tok)("text"))`` or
``tagpipe.spark_encode(df, tok, "text")``.

`spark_udf` is a pandas UDF (Series of str in, ``array<int>`` out): Spark converts each
Arrow batch of texts to a pandas Series, tagpipe encodes it and hands the ids back as an
Arrow-backed column Spark reads without a copy per row.  `spark_encode` goes through
``DataFrame.mapInArrow`` instead: the texts are read from Spark's Arrow batches directly
(no pandas, no Python str per row) -- the faster of the two.

Spark has no unsigned integers: ids are ``array<int>`` (int32; every vocabulary is far
below 2**31).  The tokenizer travels to the executors by pickle (its JSON, rebuilt once per
Python worker); each batch is encoded on one native thread unless ``num_threads`` says
otherwise (Spark runs one Python worker per task slot).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

import numpy as np

from tagpipe.integrations.base import ColumnEncoder, require


def _int32_lists(pa: Any, ids: np.ndarray, offsets: np.ndarray, mask: Any = None) -> Any:
    """list<int32> from flat uint32 ids (the same bits: ids are below 2**31)."""
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(ids.view(np.int32)), mask=mask)


class _SparkEncoder(ColumnEncoder):
    def _check(self) -> None:
        if self.tokenizer.vocab_size > 2**31:
            raise ValueError("Spark stores ids as int: this vocabulary has ids past 2**31 - 1")

    def _column(self, texts: Any) -> Any:
        import pyarrow as pa

        from tagpipe.columns import ArrowText, text_column

        column = text_column(texts, self.nulls)
        ids, offsets = self.encode_flat(column)
        mask = pa.array(column.null_mask) if isinstance(column, ArrowText) and column.null_mask is not None else None
        return _int32_lists(pa, ids, offsets, mask)

    def series(self, texts: Any) -> Any:
        """The pandas UDF body: a Series of str in, an Arrow-backed Series of int32 lists out."""
        import pandas as pd

        return pd.Series(pd.arrays.ArrowExtensionArray(self._column(texts)), index=texts.index)

    def batches(self, batches: Iterator[Any]) -> Iterator[Any]:
        """The mapInArrow body: each RecordBatch with the ids column appended."""
        import pyarrow as pa

        for batch in batches:
            names = batch.schema.names
            if self.column not in names:
                raise KeyError(f"the batch has no column {self.column!r} (columns: {names})")
            ids = self._column(batch.column(names.index(self.column)))
            yield pa.RecordBatch.from_arrays(list(batch.columns) + [ids], names=names + [self.output])


def spark_udf(
    tok: Any, *, add_special_tokens: bool = True, num_threads: Optional[int] = 1, nulls: str = "error"
) -> Any:
    """A pandas UDF mapping a string column to its ids (``array<int>``):
    ``df.withColumn("input_ids", spark_udf(tok)("text"))``.  With ``nulls="null"`` a null
    text gives a null ids row."""
    F = require("pyspark.sql.functions", "spark")
    T = require("pyspark.sql.types", "spark")
    enc = _SparkEncoder(
        tok, "text", "input_ids", add_special_tokens=add_special_tokens, num_threads=num_threads, nulls=nulls
    )
    enc._check()
    pd = require("pandas", "spark")

    def encode(texts):
        return enc.series(texts)

    encode.__annotations__ = {"texts": pd.Series, "return": pd.Series}  # (Spark reads the UDF kind from these)
    return F.pandas_udf(encode, T.ArrayType(T.IntegerType(), containsNull=False))


def spark_encode(
    df: Any,
    tok: Any,
    column: str = "text",
    output: str = "input_ids",
    *,
    add_special_tokens: bool = True,
    num_threads: Optional[int] = 1,
    nulls: str = "error",
) -> Any:
    """`df` with column `output` (``array<int>``, the ids of column `column`) appended,
    through ``df.mapInArrow`` (Spark >= 3.3)."""
    T = require("pyspark.sql.types", "spark")
    if output in df.columns:
        raise ValueError(f"the DataFrame already has a column {output!r}")
    enc = _SparkEncoder(
        tok, column, output, add_special_tokens=add_special_tokens, num_threads=num_threads, nulls=nulls
    )
    enc._check()
    schema = T.StructType(
        df.schema.fields + [T.StructField(output, T.ArrayType(T.IntegerType(), False), nulls == "null")]
    )
    return df.mapInArrow(enc.batches, schema)
