"""The output of `tagpipe encode`: token ids and document offsets, readable with numpy alone.

`tagpipe encode ... -o corpus` writes three files:

  corpus.bin   every document's ids, one after another, as raw little-endian unsigned integers:
               uint16 when every id of the vocabulary fits (< 65,536), else uint32
  corpus.idx   raw little-endian uint64, one more than the number of documents: document i is
               ids[idx[i]:idx[i + 1]]
  corpus.json  the manifest: format, dtype, documents, tokens, the inputs, the tokenizer's
               sha256, add_special_tokens, the tagpipe version, and ``files``: the size and
               sha256 of the two arrays it describes.  It is written last: a run that did
               not finish leaves no manifest (and no .bin/.idx under their final names), so
               an output without one is never complete; and a .bin or .idx that is not the
               one the manifest names (another run's) fails `read`'s check.

With ``--format npy`` (or ``-o corpus.npy``) the ids are ``corpus.npy`` and the offsets
``corpus.idx.npy`` instead (ordinary .npy files), with the same manifest::

    meta = json.load(open("corpus.json"))
    ids = np.memmap("corpus.bin", dtype=meta["dtype"], mode="r")   # or np.load("corpus.npy", mmap_mode="r")
    idx = np.fromfile("corpus.idx", dtype="<u8")                      # or np.load("corpus.idx.npy")
    doc_3 = ids[idx[3]:idx[4]]

Every file is first written under a temporary name beside its destination
(``.corpus.bin.partial-<pid>``) and renamed into place only when complete; an interrupted run
removes its temporary files when it can (Ctrl-C, SIGTERM) and otherwise leaves only those,
which the next run to the same name removes once their process is gone.  A run holds a lock
(``.corpus.lock``, removed at the end) for the whole time, so a second run to the same name
is refused instead of mixing its files with the first's; an output that is an input or the
model is refused (tagpipe.cli.output_guard).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, BinaryIO, Optional, Sequence

import numpy as np

from tagpipe.cli import output_guard

FORMATS = ("bin", "npy")
_NPY_HEADER = 128  # bytes: magic, version, length and a padded dict, rewritten at the end


def _base(out: str) -> str:
    base = str(out)
    for ext in (".npy", ".bin", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def paths(out: str, fmt: str) -> tuple[Path, Path, Path]:
    """(ids, index, manifest) paths for `-o out` in format `fmt`."""
    base = _base(out)
    if fmt == "npy":
        return Path(base + ".npy"), Path(base + ".idx.npy"), Path(base + ".json")
    return Path(base + ".bin"), Path(base + ".idx"), Path(base + ".json")


def lock_path(out: str) -> Path:
    """The lock file of output name `out`, shared by both formats (they share the manifest)."""
    base = Path(_base(out))
    return base.with_name(f".{base.name}.lock")


def digest(path: Path) -> dict[str, Any]:
    """What the manifest says of each array file: its size and sha256."""
    h = hashlib.sha256()
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(view[:n])
    return {"bytes": path.stat().st_size, "sha256": h.hexdigest()}


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
        self.tmp = dest.with_name(f".{dest.name}{output_guard.PARTIAL}{os.getpid()}")
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
    """Streams ids and offsets of documents, batch by batch, into the files above.

    `keep`: (what, path) pairs no output may be, e.g. ("the input", "data.json"); the output
    name is locked from here to `commit` or `discard`."""

    def __init__(self, out: str, fmt: str, vocab_size: int, meta: dict[str, Any], keep: Sequence[tuple[str, str]] = ()):
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
        output_guard.check_name(out)
        self.ids_path, self.idx_path, self.manifest = paths(out, fmt)
        if not self.ids_path.parent.is_dir():
            raise FileNotFoundError(f"{out}: the directory {self.ids_path.parent} does not exist")
        dests = (self.ids_path, self.idx_path, self.manifest)
        output_guard.refuse_inputs(dests + (lock_path(out),), keep)
        self.lock = output_guard.OutputLock(lock_path(out))
        try:
            output_guard.remove_stale_partials(dests)
            self.dtype = np.dtype(np.uint16 if vocab_size <= 1 << 16 else np.uint32)
            self.fmt, self.meta = fmt, dict(meta)
            self.ids = _Stream(self.ids_path, self.dtype, fmt == "npy")
            self.idx = _Stream(self.idx_path, np.dtype(np.uint64), fmt == "npy")
            self.idx.append(np.zeros(1, np.uint64))
        except BaseException:
            self.discard()
            raise
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
            "files": {s.dest.name: digest(s.tmp) for s in (self.ids, self.idx)},
        }
        tmp = self.manifest.with_name(f".{self.manifest.name}{output_guard.PARTIAL}{os.getpid()}")
        tmp.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        try:  # an old manifest must not vouch for new, half-renamed arrays
            self.manifest.unlink()
        except FileNotFoundError:
            pass
        self.ids.commit()
        self.idx.commit()
        os.replace(tmp, self.manifest)
        self.lock.release()
        return meta

    def discard(self) -> None:
        for stream in (getattr(self, "ids", None), getattr(self, "idx", None)):
            if stream is not None:
                stream.discard()
        self.lock.release()


def check_files(manifest: Path, meta: dict[str, Any], verify: bool = True) -> None:
    """Raise ValueError unless the arrays beside `manifest` are the ones it describes: their
    sizes (and with `verify`, their sha256) as its ``files`` say.  A manifest of a tagpipe
    before ``files`` has nothing to check."""
    for name, want in meta.get("files", {}).items():
        path = manifest.parent / name
        if not path.is_file():
            raise ValueError(f"{path}: missing (the manifest {manifest} names it)")
        got = digest(path) if verify else {"bytes": path.stat().st_size, "sha256": want["sha256"]}
        if got != want:
            what = "size" if got["bytes"] != want["bytes"] else "sha256"
            raise ValueError(
                f"{path}: its {what} is not the one {manifest} records: not the file this manifest "
                f"describes (written by another run?)"
            )


def read(out: str, verify: bool = True) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(ids, offsets, manifest) of a finished `tagpipe encode -o out` (ids memory-mapped),
    after checking that the arrays are the ones the manifest describes (`check_files`;
    ``verify=False`` compares their sizes only, without reading them)."""
    manifest = paths(out, "bin")[2]
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest}: no manifest (the run did not finish, or wrote elsewhere)")
    meta = json.loads(manifest.read_text(encoding="utf-8"))
    check_files(manifest, meta, verify)
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
