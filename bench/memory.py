"""Memory bound: encode ~1 GB of mostly unique text and measure how far resident memory grows.

The text is generated chunk by chunk (random lowercase words, 3-12 letters, with some
punctuation and newlines: nearly every word is new, so the word cache fills up and is
wiped over and over).  Each chunk is encoded with encode_batch_flat on every core and its
ids dropped, so the input held at once is one chunk and the output is one chunk's ids.

The baseline is the resident set of this fresh process once the tokenizer is loaded,
before anything is encoded (an empty word cache: what the caches of every thread grow to is
part of what is measured); the peak is the kernel's high-water mark (VmHWM, reset through
/proc/self/clear_refs) over the whole run.  The ids of the first chunk's first documents are
checked against the oracle after the peak is read (the oracle's memory is not tagpipe's).
Two bounds, both required (exit status 1 otherwise):

* the growth over the baseline <= the word cache budget (tagpipe.tokenizer
  DEFAULT_CACHE_BYTES, or TAGPIPE_CACHE_BYTES, or --cache-bytes) plus one chunk's output
  (ids and offsets: encode_batch_flat holds a batch's ids once -- the threads encode it in
  rounds of about 4 MiB of text, and their buffers hold one round's ids, which then join
  the result; the bound allows a round the worst case of one id per byte, in buffers grown
  by doubling) plus one chunk of input;
* the peak <= 1.25 x (budget + one chunk's output + baseline) (issue 42, item 6).

    python -m bench.memory                          # gpt2, 1 GB, default budget (128 MiB), every core
    python -m bench.memory --tokenizer llama3 --gigabytes 0.25 --cache-bytes 33554432
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import tokenizers

import tagpipe
from tagpipe.tokenizer import DEFAULT_CACHE_BYTES, ENV_CACHE

from bench import harness

MiB = 1 << 20
ROUND_BYTES = 4 * MiB  # Encoder::kRoundBytes (cpp/encode/encoder.h)


def status(key: str) -> int:
    """A /proc/self/status memory line, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
        return True
    except OSError:
        return False


def chunk(rng: np.random.Generator, nbytes: int, doc_bytes: int) -> list[str]:
    """About nbytes of mostly unique words, as documents of about doc_bytes (made 1 MiB at a
    time, so the generator's temporaries stay small next to the chunk)."""
    seps = np.frombuffer(b"          ,.\n", dtype=np.uint8)
    parts = []
    for _ in range(max(1, nbytes // MiB)):
        block = rng.integers(ord("a"), ord("z") + 1, size=MiB, dtype=np.uint8)
        cut = np.flatnonzero(rng.integers(0, 7, size=MiB, dtype=np.uint8) == 0)  # ~1 in 7: a separator
        block[cut] = seps[rng.integers(0, len(seps), size=len(cut))]
        text = block.tobytes().decode("ascii")
        parts.extend(text[i : i + doc_bytes] for i in range(0, len(text), doc_bytes))
    return parts


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m bench.memory", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tokenizer", default="gpt2")
    ap.add_argument("--gigabytes", type=float, default=1.0)
    ap.add_argument("--chunk-mb", type=int, default=32)
    ap.add_argument("--doc-bytes", type=int, default=4096)
    ap.add_argument("--cache-bytes", type=int, default=None, help=f"default: {ENV_CACHE} or {DEFAULT_CACHE_BYTES}")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", default="memory")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    path = harness.tokenizer_path(args.tokenizer)
    tok = tagpipe.Tokenizer.from_file(path, cache_bytes=args.cache_bytes)
    rng = np.random.default_rng(1)
    chunk_bytes = args.chunk_mb * MiB
    base = status("VmRSS")
    if not reset_peak():
        raise SystemExit("cannot reset the peak RSS (/proc/self/clear_refs)")

    total, tokens, output_bound = 0, 0, 0
    t0 = time.perf_counter()
    n_chunks = max(1, round(args.gigabytes * 1024 / args.chunk_mb))
    used_max = 0
    docs: list[str] = []
    sample: list[str] = []
    for k in range(n_chunks):
        docs = []  # (one chunk of input at a time)
        docs = chunk(rng, chunk_bytes, args.doc_bytes)
        sample = sample or docs[:200]
        ids, offsets = tok.encode_batch_flat(docs, num_threads=args.threads)
        total += sum(map(len, docs))
        tokens += len(ids)
        output_bound = max(output_bound, ids.nbytes + offsets.nbytes)
        used_max = max(used_max, tok.cache_used)
        del ids, offsets
    dt = time.perf_counter() - t0
    peak = status("VmHWM")
    growth = peak - base
    del docs
    oracle = tokenizers.Tokenizer.from_file(str(path))
    assert tok.encode_batch(sample) == [e.ids for e in oracle.encode_batch(sample)], "ids differ from the oracle's"
    # encode_batch_flat: the batch's ids once, plus one round in the threads' buffers (at
    # most one id per byte of its text: 4 bytes per byte, twice that while they double)
    round_bound = 2 * 4 * ROUND_BYTES
    bound = tok.cache_bytes + output_bound + round_bound + chunk_bytes
    lines = [
        f"tokenizer {args.tokenizer}, {total / 1e9:.2f} GB of mostly unique text in {n_chunks} chunks of "
        f"{args.chunk_mb} MiB, {tokens:,} tokens, {dt:.0f} s ({total / MiB / dt:.1f} MiB/s), "
        f"{args.threads or 'all'} thread(s), kernel {harness.kernel()}",
        f"RSS after loading, before the first encode (baseline) {base / MiB:.0f} MiB, "
        f"peak {peak / MiB:.0f} MiB: growth {growth / MiB:.1f} MiB",
    ]
    ratio = peak / (tok.cache_bytes + output_bound + base)
    lines.append(f"peak / (budget + one chunk's output + baseline) = {ratio:.2f} (at most 1.25)")
    lines.append(
        f"bound: cache budget {tok.cache_bytes / MiB:.0f} MiB + one chunk's output {output_bound / MiB:.1f} MiB "
        f"+ one round's buffers {round_bound / MiB:.0f} MiB "
        f"+ one chunk of input {chunk_bytes / MiB:.0f} MiB = {bound / MiB:.1f} MiB; "
        f"the caches held at most {used_max / MiB:.1f} MiB (cache_used)"
    )
    ok = growth <= bound and ratio <= 1.25 and used_max <= tok.cache_bytes
    lines.append("within the bounds" if ok else "OVER THE BOUND")
    print("\n".join(lines))
    if not args.no_write:
        body = "```text\n" + "\n".join(lines) + "\n```"
        out = harness.write_report(
            args.out, "Memory: resident growth under a stream of new words", harness.command("memory", argv), body
        )
        print(f"wrote {out}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
