"""Encode corpus files into a token file: the engine of `tagpipe encode`.

A reader thread cuts the inputs into documents (tagpipe.cli.corpus) and hands batches of about
``batch_bytes`` through a queue of two; the calling thread encodes each batch on every core
(``encode_batch_flat`` releases the GIL, so reading the next batch overlaps it) and appends
ids and offsets to the output (tagpipe.cli.tokenfile).  Memory stays bounded by a few batches
whatever the corpus size.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Sequence, TextIO

from tagpipe._version import __version__
from tagpipe.cli import corpus, tokenfile
from tagpipe.tokenizer import Tokenizer


@dataclass
class Options:
    kind: str = "auto"  # text, jsonl, parquet or auto (by file name)
    split: str = "file"  # text: file, lines, blank or separator
    separator: str = ""
    field: str = "text"  # jsonl
    column: str = "text"  # parquet
    errors: str = "strict"  # invalid UTF-8: strict, replace or skip
    fmt: str = "bin"  # bin or npy (tagpipe.cli.tokenfile)
    add_special_tokens: bool = True
    threads: Optional[int] = None  # native threads (default: every core)
    batch_bytes: int = 8 << 20


@dataclass
class Result:
    meta: dict[str, Any]
    input_bytes: int
    seconds: float
    skipped: int
    peak_rss_mb: float


class Progress:
    """One line on a terminal, redrawn at most ten times a second: a bar and bytes of the
    total when it is known (plain files), documents, tokens, MB/s.  Silent when not enabled."""

    BAR = 24

    def __init__(self, total_bytes: Optional[int], enabled: bool, stream: TextIO):
        self.total, self.enabled, self.stream = total_bytes, enabled, stream
        self.t0 = self.last = time.perf_counter()
        self.bytes = self.docs = self.tokens = 0

    def update(self, nbytes: int, docs: int, tokens: int) -> None:
        self.bytes += nbytes
        self.docs += docs
        self.tokens += tokens
        now = time.perf_counter()
        if self.enabled and now - self.last >= 0.1:
            self.last = now
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()

    def line(self) -> str:
        dt = max(time.perf_counter() - self.t0, 1e-9)
        done = f"{self.bytes / 1e6:,.1f}"
        if self.total:
            share = min(1.0, self.bytes / self.total)
            filled = int(share * self.BAR)
            done = (
                f"[{'#' * filled}{'.' * (self.BAR - filled)}] {100 * share:3.0f}% {done} of {self.total / 1e6:,.1f} MB"
            )
        else:
            done += " MB"
        return f"{done} · {self.docs:,} documents · {self.tokens:,} tokens · {self.bytes / dt / 1e6:,.1f} MB/s"

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + self.line() + "\x1b[K\n")
            self.stream.flush()


def _batches(inputs: Sequence[str], opts: Options, stats: corpus.Stats) -> Iterator[tuple[list[str], int]]:
    """Documents of every input, regrouped into batches of about opts.batch_bytes."""
    docs: list[str] = []
    nbytes = 0
    for path in inputs:
        for part, size in corpus.read(
            path,
            opts.kind,
            split=opts.split,
            separator=opts.separator,
            field=opts.field,
            column=opts.column,
            errors=opts.errors,
            stats=stats,
            stdin=sys.stdin.buffer if path == "-" else None,
        ):
            docs += part
            nbytes += size
            if nbytes >= opts.batch_bytes:
                yield docs, nbytes
                docs, nbytes = [], 0
    if docs or nbytes:
        yield docs, nbytes


def _reader(inputs: Sequence[str], opts: Options, stats: corpus.Stats, q: "queue.Queue", stop: threading.Event) -> None:
    try:
        for item in _batches(inputs, opts, stats):
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if stop.is_set():
                return
        q.put(None)
    except BaseException as e:  # noqa: BLE001 - handed to the encoding thread, raised there
        q.put(e)


def _peak_rss_mb() -> float:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    except (ImportError, OSError):
        return 0.0


def encode_files(
    tok: Tokenizer,
    inputs: Sequence[str],
    out: str,
    opts: Optional[Options] = None,
    *,
    progress: Optional[Progress] = None,
    model: str = "",
) -> Result:
    """Encode `inputs` (paths; "-" is standard input) into the token file `out`
    (tagpipe.cli.tokenfile).  The output appears only when complete."""
    opts = opts or Options()
    for path in inputs:
        if path != "-" and not os.path.isfile(path):
            raise corpus.InputError(f"{path}: no such file")
    sha = tok.sha256
    meta = {
        "tokenizer": model,
        "tokenizer_sha256": sha,
        "add_special_tokens": opts.add_special_tokens,
        "inputs": list(inputs),
        "kind": opts.kind,
        "split": opts.split,
        "separator": opts.separator,
        "field": opts.field,
        "column": opts.column,
        "errors": opts.errors,
        "tagpipe": __version__,
    }
    writer = tokenfile.Writer(out, opts.fmt, tok.vocab_size, meta)
    stats = corpus.Stats()
    q: "queue.Queue" = queue.Queue(maxsize=2)
    stop = threading.Event()
    reader = threading.Thread(target=_reader, args=(inputs, opts, stats, q, stop), daemon=True)
    progress = progress or Progress(None, False, sys.stderr)
    t0 = time.perf_counter()
    committed = False
    try:
        reader.start()
        while True:
            item = q.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            docs, nbytes = item
            ids, offsets = tok.encode_batch_flat(
                docs, add_special_tokens=opts.add_special_tokens, num_threads=opts.threads
            )
            writer.write(ids, offsets)
            progress.update(nbytes, len(docs), len(ids))
        meta = writer.commit()
        committed = True
    finally:
        stop.set()
        if not committed:
            writer.discard()
        progress.close()
    return Result(meta, progress.bytes, time.perf_counter() - t0, stats.skipped, _peak_rss_mb())


def terminate_cleanly() -> None:
    """Make SIGTERM unwind like Ctrl-C, so the temporary files are removed."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
