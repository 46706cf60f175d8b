"""Documents from corpus files, streamed in bounded memory (the input side of `tagpipe encode`).

Every reader yields *batches*: ``(documents, input_bytes)``, a list of ``str`` and how many
bytes of input they came from (for progress).  Only one chunk of input (``chunk_bytes``,
plus the one document that spans it) is held at a time, so a corpus larger than memory
streams through.

Input kinds
  text     split one of four ways (``split=``):
             "file"      each file is one document (the whole file is read);
             "lines"     each line is a document, without its "\\n" or "\\r\\n"; an empty line
                         is an empty document, so document i is line i + 1;
             "blank"     documents are separated by one or more blank lines (empty, or only
                         spaces, tabs and "\r"); the separators and each document's last line
                         end are dropped, and no document is empty or only white space;
             "separator" documents are separated by a string (e.g. "<|endoftext|>"), which is
                         dropped; a separator at the very end makes no empty last document.
  jsonl    one JSON object per line, the document is its ``field`` (a string); blank lines
           are skipped.
  parquet  the string column ``column`` of a Parquet file, row by row (needs pyarrow).

Invalid UTF-8 (``errors=``): "strict" raises :class:`InputError` naming the file and the byte
offset; "replace" decodes it as U+FFFD (like ``bytes.decode(errors="replace")``); "skip"
drops the document that holds it (``Stats.skipped`` counts them).  Splitting happens on the
raw bytes, before decoding: the separators are ASCII or valid UTF-8, and UTF-8 never hides an
ASCII byte inside a multi-byte character, so this equals splitting the decoded text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

Batch = tuple[list[str], int]

SPLITS = ("file", "lines", "blank", "separator")
ERRORS = ("strict", "replace", "skip")
# one or more blank lines after a line end: the "blank" split's separator
# (starting with a literal "\n" lets the regex engine skip ahead to line ends: ~400 MB/s)
_BLANK = re.compile(rb"\n(?:[ \t\r]*\n)+")
_FINAL = re.compile(rb"[ \t\r]*[^ \t\r\n]")  # what follows a blank-line run that cannot grow
_SURROGATE = re.compile("[\ud800-\udfff]")


class InputError(ValueError):
    """A corpus file that cannot be read as asked; the message names the file and where."""


@dataclass
class Stats:
    skipped: int = 0  # documents dropped by errors="skip"


def kind_of(path: str) -> str:
    """The input kind a file name implies: jsonl, parquet or text."""
    name = path.lower()
    if name.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
        return "jsonl"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def _open(path: str, stdin: Optional[BinaryIO]) -> BinaryIO:
    if path == "-":
        if stdin is None:
            raise InputError("-: no standard input")
        return stdin
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _decode(raw: bytes, path: str, offset: int, errors: str, stats: Stats) -> Optional[str]:
    """One document's text, or None when errors="skip" drops it."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if errors == "replace":
            return raw.decode("utf-8", errors="replace")
        if errors == "skip":
            stats.skipped += 1
            return None
        raise InputError(
            f"{path}: invalid UTF-8 at byte {offset + e.start} "
            f"({raw[e.start : e.start + 4]!r}); use --errors replace or skip"
        ) from None


def _pieces(
    f: BinaryIO, split: str, separator: bytes, chunk_bytes: int
) -> Iterator[tuple[list[bytes], bytes, int, int]]:
    """Per chunk of `f`: (raw documents, the bytes they were cut from, its offset in the
    input, input bytes consumed).  "lines" keeps a "\r" before "\n" (the caller drops it)."""
    if split == "file":
        data = f.read()
        yield [data], data, 0, len(data)
        return
    sep = b"\n" if split == "lines" else separator
    pending: list[bytes] = []  # input after the last complete document
    pending_len = base = 0
    while True:
        chunk = f.read(chunk_bytes)
        eof = not chunk
        if not eof:
            pending.append(chunk)
            pending_len += len(chunk)
            if split != "blank":  # a new separator ends in this chunk, or straddles its start
                overlap = pending[-2][-(len(sep) - 1) :] if len(sep) > 1 and len(pending) > 1 else b""
                if sep not in overlap + chunk:
                    continue
        buf = b"".join(pending)
        if split == "blank":
            # the last separator that cannot grow with more input (or any, at the end): one
            # followed by a byte that is no space, tab or line end
            seps = list(_BLANK.finditer(buf))
            final = len(seps)
            while final > 0 and not (eof or _FINAL.match(buf, seps[final - 1].end())):
                final -= 1
            if final == 0 and not eof:
                pending = [buf]
                continue
            docs, start = [], 0
            for m in seps[:final]:  # the text between separators (one regex pass)
                docs.append(buf[start : m.start()])
                start = m.end()
            rest = buf[start:]
            if eof:
                docs, rest = docs + [rest], b""
            docs = [d for d in docs if d.strip(b" \t\r\n")]  # a leading blank line is no document
            docs = [d[:-1] if d.endswith(b"\r") else d for d in docs]  # "\r\n" line ends
            if eof and docs:
                docs[-1] = docs[-1].rstrip(b"\r\n")  # the input's last line end
        else:
            cut = buf.rfind(sep)
            if eof:
                body, rest = buf, b""
            elif cut < 0:
                pending = [buf]
                continue
            else:
                body, rest = buf[:cut], buf[cut + len(sep) :]
            docs = body.split(sep)
            if eof and docs and docs[-1] == b"" and (len(docs) > 1 or not body):
                docs.pop()  # the input ends with a separator (or is empty): no document after it
        consumed = pending_len - len(rest)
        if docs or consumed:
            yield docs, buf, base, consumed
        base += consumed
        pending, pending_len = ([rest] if rest else []), len(rest)
        if eof:
            return


def read_text(
    path: str,
    *,
    split: str = "file",
    separator: str = "",
    errors: str = "strict",
    chunk_bytes: int = 1 << 22,
    stats: Optional[Stats] = None,
    stdin: Optional[BinaryIO] = None,
) -> Iterator[Batch]:
    """Documents of a text file ("-": `stdin`), split as the module docstring says."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    if errors not in ERRORS:
        raise ValueError(f"errors must be one of {ERRORS}, not {errors!r}")
    if split == "separator" and not separator:
        raise ValueError("split='separator' needs a non-empty separator")
    stats = stats if stats is not None else Stats()
    with _open(path, stdin) as f:
        for raws, buf, base, consumed in _pieces(f, split, separator.encode("utf-8"), chunk_bytes):
            try:  # the common case: the whole chunk is valid UTF-8
                docs = [r.decode("utf-8") for r in raws]
            except UnicodeDecodeError:
                docs, at = [], 0
                for r in raws:  # the documents appear in `buf` in order: find each one's offset
                    at = buf.find(r, at)
                    text = _decode(r, path, base + at, errors, stats)
                    at += len(r)
                    if text is not None:
                        docs.append(text)
            if split == "lines":
                docs = [d[:-1] if d.endswith("\r") else d for d in docs]
            yield docs, consumed


def read_jsonl(
    path: str,
    *,
    field: str = "text",
    errors: str = "strict",
    chunk_bytes: int = 1 << 22,
    stats: Optional[Stats] = None,
    stdin: Optional[BinaryIO] = None,
) -> Iterator[Batch]:
    """The string `field` of each JSON object, one per line."""
    stats = stats if stats is not None else Stats()
    line_no = 0
    with _open(path, stdin) as f:
        for raws, _, base, consumed in _pieces(f, "lines", b"", chunk_bytes):
            docs, offset = [], base
            for raw in raws:
                line_no += 1
                where = f"{path}: line {line_no}"
                start, offset = offset, offset + len(raw) + 1
                if not raw.strip():
                    continue
                line = _decode(raw, path, start, errors, stats)
                if line is None:
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{where}: not JSON ({e.msg} at column {e.colno})") from None
                if not isinstance(obj, dict) or field not in obj:
                    raise InputError(f"{where}: no field {field!r} (use --field)")
                text = obj[field]
                if not isinstance(text, str):
                    raise InputError(f"{where}: field {field!r} is {type(text).__name__}, not a string")
                if _SURROGATE.search(text):  # "\ud800" escapes: not representable in UTF-8
                    if errors == "strict":
                        raise InputError(
                            f"{where}: field {field!r} holds a lone surrogate escape "
                            "(not valid UTF-8); use --errors replace or skip"
                        )
                    if errors == "skip":
                        stats.skipped += 1
                        continue
                    text = _SURROGATE.sub("\ufffd", text)
                docs.append(text)
            yield docs, consumed


def read_parquet(
    path: str, *, column: str = "text", errors: str = "strict", batch_rows: int = 8192, stats: Optional[Stats] = None
) -> Iterator[Batch]:
    """The string (or binary, decoded as UTF-8) `column` of a Parquet file, row group by row
    group: memory is bounded by one batch of rows."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f'{path}: reading Parquet needs pyarrow (pip install "tagpipe[parquet]")') from None
    stats = stats if stats is not None else Stats()
    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    if column not in names:
        raise InputError(f"{path}: no column {column!r} (it has {', '.join(names)}); use --column")
    row = 0
    for batch in pf.iter_batches(batch_size=batch_rows, columns=[column]):
        docs, nbytes = [], 0
        for value in batch.column(0).to_pylist():
            row += 1
            if value is None:
                if errors == "skip":
                    stats.skipped += 1
                    continue
                raise InputError(f"{path}: row {row - 1}: {column!r} is null; use --errors skip")
            if isinstance(value, bytes):
                text = _decode(value, f"{path}: row {row - 1}", 0, errors, stats)
                if text is None:
                    continue
                nbytes += len(value)
            elif isinstance(value, str):
                text = value
                nbytes += len(value)  # characters: an estimate, for progress only
            else:
                raise InputError(f"{path}: column {column!r} is {batch.schema.field(0).type}, not a string")
            docs.append(text)
        yield docs, nbytes


def read(
    path: str,
    kind: str,
    *,
    split: str = "file",
    separator: str = "",
    field: str = "text",
    column: str = "text",
    errors: str = "strict",
    stats: Optional[Stats] = None,
    stdin: Optional[BinaryIO] = None,
    chunk_bytes: int = 1 << 22,
) -> Iterator[Batch]:
    """Batches of documents from one input of `kind` ("auto" picks by file name)."""
    kind = kind_of(path) if kind == "auto" else kind
    if path != "-" and not Path(path).is_file():
        raise InputError(f"{path}: no such file")
    if kind == "text":
        return read_text(
            path, split=split, separator=separator, errors=errors, chunk_bytes=chunk_bytes, stats=stats, stdin=stdin
        )
    if kind == "jsonl":
        return read_jsonl(path, field=field, errors=errors, chunk_bytes=chunk_bytes, stats=stats, stdin=stdin)
    if kind == "parquet":
        if path == "-":
            raise InputError("-: Parquet cannot be read from standard input")
        return read_parquet(path, column=column, errors=errors, stats=stats)
    raise ValueError(f"unknown input kind {kind!r} (text, jsonl, parquet or auto)")
