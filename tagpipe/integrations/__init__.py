"""tagpipe inside the data engines people already run: Hugging Face ``datasets``, Ray Data
and Spark (docs/distributed.md).

Each helper wraps a `tagpipe.Tokenizer` in a small callable the engine ships to its worker
processes by pickle (the tokenizer.json and options: the same bytes, so the same ids, on
every worker; rebuilt once per worker process).  Inside a worker the native core runs on
one thread unless `num_threads` says otherwise: the engine already runs one worker per
core.  Text columns are encoded from their Arrow buffers where the engine hands Arrow
batches, and ids come back as an Arrow ``list<uint32>`` column (``array<int>`` in Spark).

The engines are optional: nothing here imports them until a helper needs one, and a
missing one raises ImportError naming the extra to install (``tagpipe[datasets]``,
``tagpipe[ray]``, ``tagpipe[spark]``).
"""

from tagpipe.integrations.base import ColumnEncoder, default_threads, engine_worker, provenance
from tagpipe.integrations.hf_datasets import DatasetsEncoder, datasets_encode, datasets_encoder
from tagpipe.integrations.ray_data import RayEncoder, ray_encoder
from tagpipe.integrations.spark import spark_encode, spark_udf

__all__ = [
    "ColumnEncoder",
    "DatasetsEncoder",
    "RayEncoder",
    "datasets_encode",
    "datasets_encoder",
    "default_threads",
    "engine_worker",
    "provenance",
    "ray_encoder",
    "spark_encode",
    "spark_udf",
]
