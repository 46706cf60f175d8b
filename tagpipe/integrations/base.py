"""The part every engine helper shares: a tokenizer that travels, and one thread per worker.

A `ColumnEncoder` pickles as the tokenizer's JSON text, its options and the helper's
settings.  Unpickled in a worker process, the tokenizer is built once per process and
reused by every later batch or task with the same bytes (`_WORKER_TOKENIZERS`, keyed by
the JSON's sha256 and the options), so an engine that ships the function with each task
does not pay for a rebuild per task.
"""

from __future__ import annotations

import hashlib
import importlib
from typing import Any, Optional

import numpy as np

from tagpipe._threads import default_threads, engine_worker
from tagpipe._version import __version__
from tagpipe.tokenizer import Tokenizer

__all__ = [
    "ColumnEncoder",
    "default_threads",
    "engine_worker",
    "provenance",
    "require",
    "table_column",
    "tokenizer_sha256",
    "with_column",
]

_WORKER_TOKENIZERS: dict[tuple, Any] = {}
PICKLE_FORMAT = 1


def require(module: str, extra: str) -> Any:
    """Imports an optional engine, or raises ImportError naming the tagpipe extra."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f'this tagpipe helper needs {module!r}: pip install "tagpipe[{extra}]" ({e})') from e


def tokenizer_sha256(tok: Any) -> str:
    """The sha256 of the tokenizer.json text a Tokenizer was built from (UTF-8): the same
    value `tagpipe encode` writes in its manifest."""
    return tok.sha256


def provenance(tok: Any, add_special_tokens: bool = True) -> dict[str, Any]:
    """What to record next to token ids so a later run can prove it makes the same ids:
    the tokenizer's sha256, add_special_tokens, and the tagpipe (and, when installed,
    tokenizers) versions."""
    out = {
        "tokenizer_sha256": tokenizer_sha256(tok),
        "add_special_tokens": add_special_tokens,
        "tagpipe": __version__,
        "native": tok.native,
    }
    try:
        import tokenizers

        out["tokenizers"] = tokenizers.__version__
    except ImportError:
        out["tokenizers"] = None
    return out


def _worker_tokenizer(json_text: str, sha: str, options: dict[str, Any]) -> Tokenizer:
    key = (sha, tuple(sorted(options.items())))
    tok = _WORKER_TOKENIZERS.get(key)
    if tok is None:
        tok = _WORKER_TOKENIZERS[key] = Tokenizer(json_text, **options)
    return tok


def _rebuild(
    cls,
    version: int,
    json_text: str,
    sha: str,
    options: dict[str, Any],
    settings: dict[str, Any],
    tagpipe_version: str = "?",
):
    if version != PICKLE_FORMAT:
        raise ValueError(f"a tagpipe engine helper pickled by another tagpipe (format {version})")
    if tagpipe_version != __version__:  # (identical ids on every worker: one tagpipe)
        raise ValueError(
            f"this worker runs tagpipe {__version__}, the helper comes from tagpipe "
            f"{tagpipe_version}: install one tagpipe version on the driver and the workers"
        )
    if hashlib.sha256(json_text.encode("utf-8")).hexdigest() != sha:
        raise ValueError("the tokenizer.json shipped to this worker does not match its sha256")
    obj = cls.__new__(cls)
    obj._init(_worker_tokenizer(json_text, sha, options), **settings)
    return obj


class ColumnEncoder:
    """Encodes one text column of an engine's batch into an ids column.

    `column`: the text column; `output`: the ids column added to the batch (default
    ``input_ids``); `num_threads`: native threads per call (default 1: the engine runs one
    worker per core); `nulls`: ``"error"`` (a null text raises ValueError naming its row)
    or ``"null"`` (a null ids row)."""

    def __init__(
        self,
        tok: Tokenizer,
        column: str = "text",
        output: str = "input_ids",
        *,
        add_special_tokens: bool = True,
        num_threads: Optional[int] = 1,
        nulls: str = "error",
    ):
        if not isinstance(tok, Tokenizer):
            raise TypeError(
                f"expected a tagpipe.Tokenizer, got {type(tok).__name__} "
                "(tagpipe.Tokenizer.from_file / from_pretrained / from_hf make one)"
            )
        if not isinstance(column, str) or not isinstance(output, str):
            raise TypeError("column and output are column names (str)")
        if num_threads is not None and int(num_threads) < 1:
            raise ValueError("num_threads must be at least 1 (None: every core)")
        if nulls not in ("error", "null"):
            raise ValueError(f"nulls must be 'error' or 'null', got {nulls!r}")
        self._init(
            tok,
            column=column,
            output=output,
            add_special_tokens=bool(add_special_tokens),
            num_threads=num_threads,
            nulls=nulls,
        )

    def _init(self, tok: Any, **settings: Any) -> None:
        self.tokenizer = tok
        self._settings = settings
        for k, v in settings.items():
            setattr(self, k, v)

    def __reduce__(self):
        tok = self.tokenizer
        return (
            _rebuild,
            (
                type(self),
                PICKLE_FORMAT,
                tok.to_str(),
                tokenizer_sha256(tok),
                dict(tok._options),
                dict(self._settings),
                __version__,
            ),
        )

    def provenance(self) -> dict[str, Any]:
        """tokenizer sha256, add_special_tokens, versions: record them with the ids."""
        return provenance(self.tokenizer, self.add_special_tokens)

    def encode_column(self, texts: Any) -> Any:
        """An Arrow list<uint32> array of the ids of `texts` (Arrow, numpy, pandas or a list)."""
        return self.tokenizer.encode_arrow(texts, self.add_special_tokens, self.num_threads, nulls=self.nulls)

    def encode_flat(self, texts: Any) -> tuple[np.ndarray, np.ndarray]:
        return self.tokenizer.encode_batch_flat(texts, self.add_special_tokens, self.num_threads, nulls=self.nulls)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(column={self.column!r}, output={self.output!r}, "
            f"tokenizer sha256 {tokenizer_sha256(self.tokenizer)[:12]}, num_threads={self.num_threads})"
        )


def table_column(table: Any, name: str) -> Any:
    if name not in table.column_names:
        raise KeyError(f"the batch has no column {name!r} (columns: {table.column_names})")
    return table.column(name)


def with_column(table: Any, name: str, values: Any) -> Any:
    """The Arrow table with `values` as column `name` (replaced if it is there)."""
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)
