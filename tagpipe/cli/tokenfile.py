"""The output of `tagpipe encode`: token ids and document offsets, readable with numpy alone.

`tagpipe encode ... -o corpus` writes three files:

  corpus.bin   every document's ids, one after another, as raw little-endian unsigned integers:
               uint16 when every id of the vocabulary fits (< 65,536), else uint32
  corpus.idx   raw little-endian uint64, one more than the number of documents: document i is
               ids[idx[i]:idx[i + 1]]
  corpus.json  the manifest: format, dtype, documents, tokens, the inputs, the tokenizer's
               sha256, add_special_tokens and the tagpipe version.  It is written last: a
               run that did not finish leaves no manifest (and no .bin/.idx under their
               final names), so an output without one is never complete.

With ``--format npy`` (or ``-o corpus.npy``) the ids are ``corpus.npy`` and the offsets
``corpus.idx.npy`` instead (ordinary .npy files), with the same manifest::

    meta = json.load(open("corpus.json"))
    ids = np.memmap("corpus.bin", dtype=meta["dtype"], mode="r")   # or np.load("corpus.npy", mmap_mode="r")
    idx = np.fromfile("corpus.idx", dtype="<u8")                      # or np.load("corpus.idx.npy")
    doc_3 = ids[idx[3]:idx[4]]

Every file is first written under a temporary name beside its destination
(``.corpus.bin.partial-<pid>``) and renamed into place only when complete; an interrupted run
removes its temporary files when it can (Ctrl-C, SIGTERM) and otherwise leaves only those.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, BinaryIO, Optional

import numpy as np

FORMATS = ("bin", "npy")
_NPY_HEADER = 128  # bytes: magic, version, length and a padded dict, rewritten at the end


def paths(out: str, fmt: str) -> tuple[Path, Path, Path]:
    """(ids, index, manifest) paths for `-o out` in format `fmt`."""
    base = str(out)
    for ext in (".npy", ".bin", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    if fmt == "npy":
        return Path(base + ".npy"), Path(base + ".idx.npy"), Path(base + ".json")
    return Path(base + ".bin"), Path(base + ".idx"), Path(base + ".json")


def _npy_header(dtype: np.dtype, n: int) -> bytes:
    """A version 1.0 .npy header of exactly _NPY_HEADER bytes for a 1-D array of n items
    (numpy reads any header padded with spaces and ended by a newline)."""
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (dtype.str, n)
    body = d.encode("latin1").ljust(_NPY_HEADER - 10 - 1) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body


class _Stream:
    """A 1-D array appended to a temporary file; `commit` renames it to `dest`."""

    def __init__(self, dest: Path, dtype: np.dtype, npy: bool):
        self.dest, self.dtype, self.npy, self.n = dest, np.dtype(dtype).newbyteorder("<"), npy, 0
        self.tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
        self.f: Optional[BinaryIO] = open(self.tmp, "wb")
        if npy:
            self.f.write(_npy_header(self.dtype, 0))

    def append(self, a: np.ndarray) -> None:
        assert self.f is not None
        self.f.write(np.ascontiguousarray(a, dtype=self.dtype).tobytes())
        self.n += len(a)

    def finish(self) -> None:
        assert self.f is not None
        if self.npy:
            self.f.seek(0)
            self.f.write(_npy_header(self.dtype, self.n))
        self.f.flush()
        os.fsync(self.f.fileno())
        self.f.close()
        self.f = None

    def commit(self) -> None:
        os.replace(self.tmp, self.dest)

    def discard(self) -> None:
        if self.f is not None:
            self.f.close()
            self.f = None
        try:
            self.tmp.unlink()
        except FileNotFoundError:
            pass


class Writer:
    """Streams ids and offsets of documents, batch by batch, into the files above."""

    def __init__(self, out: str, fmt: str, vocab_size: int, meta: dict[str, Any]):
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
        self.ids_path, self.idx_path, self.manifest = paths(out, fmt)
        if not self.ids_path.parent.is_dir():
            raise FileNotFoundError(f"{out}: the directory {self.ids_path.parent} does not exist")
        self.dtype = np.dtype(np.uint16 if vocab_size <= 1 << 16 else np.uint32)
        self.fmt, self.meta = fmt, dict(meta)
        self.ids = _Stream(self.ids_path, self.dtype, fmt == "npy")
        self.idx = _Stream(self.idx_path, np.dtype(np.uint64), fmt == "npy")
        self.idx.append(np.zeros(1, np.uint64))
        self.docs = 0

    def write(self, ids: np.ndarray, offsets: np.ndarray) -> None:
        """One batch from ``encode_batch_flat``: ids and its offsets (starting at 0)."""
        if self.dtype == np.uint16 and len(ids) and int(ids.max()) >= 1 << 16:
            raise ValueError("an id does not fit uint16 (the vocabulary size was wrong)")
        self.idx.append(np.asarray(offsets[1:], dtype=np.uint64) + np.uint64(self.ids.n))
        self.ids.append(ids)
        self.docs += len(offsets) - 1

    def commit(self) -> dict[str, Any]:
        """Make the output complete: both arrays renamed into place, then the manifest."""
        self.ids.finish()
        self.idx.finish()
        meta = {
            "format": self.fmt,
            "dtype": self.dtype.str,
            "documents": self.docs,
            "tokens": self.ids.n,
            "ids": self.ids_path.name,
            "index": self.idx_path.name,
            **self.meta,
        }
        tmp = self.manifest.with_name(f".{self.manifest.name}.partial-{os.getpid()}")
        tmp.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        try:  # an old manifest must not vouch for new, half-renamed arrays
            self.manifest.unlink()
        except FileNotFoundError:
            pass
        self.ids.commit()
        self.idx.commit()
        os.replace(tmp, self.manifest)
        return meta

    def discard(self) -> None:
        self.ids.discard()
        self.idx.discard()


def read(out: str) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(ids, offsets, manifest) of a finished `tagpipe encode -o out` (ids memory-mapped)."""
    manifest = paths(out, "bin")[2]
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest}: no manifest (the run did not finish, or wrote elsewhere)")
    meta = json.loads(manifest.read_text(encoding="utf-8"))
    d = manifest.parent
    if meta["format"] == "npy":
        ids = np.load(d / meta["ids"], mmap_mode="r")
        idx = np.load(d / meta["index"])
    else:
        ids = (
            np.memmap(d / meta["ids"], dtype=meta["dtype"], mode="r") if meta["tokens"] else np.zeros(0, meta["dtype"])
        )
        idx = np.fromfile(d / meta["index"], dtype="<u8")
    if len(ids) != meta["tokens"] or len(idx) != meta["documents"] + 1:
        raise ValueError(f"{out}: the arrays do not match the manifest")
    return ids, idx, meta
