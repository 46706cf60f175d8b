"""A tokenizer.json is accepted by tagpipe exactly when the oracle accepts it, and then encodes
like it; otherwise refused with a TokenizerJsonError naming the JSON path (tests/test_malformed.py,
tests/test_hostile_files.py)."""

from __future__ import annotations

import os
import time

import tokenizers

import tagpipe
from tagpipe.spec import TokenizerJsonError
from tagpipe.spec._base import short_path

TEXTS = ["Hello the world !", " the the  the", "zzzq qqqz", "東京 naïve 12345", "", "!!!"]


def oracle_or_none(text):
    try:
        return tokenizers.Tokenizer.from_str(text)
    except Exception:  # noqa: BLE001 - the oracle's refusals are plain Exceptions
        return None


def check_like_the_oracle(text: str, path, texts=TEXTS, max_seconds: float = 60):
    """tagpipe accepts `text` exactly when the oracle does (then the same ids on `texts`, one
    by one and as a 2-thread batch); else its TokenizerJsonError names `path`.  Also used by
    tests/test_hostile_files.py.  Returns the Tokenizer, or None when refused."""
    oracle = oracle_or_none(text)
    t0 = time.monotonic()
    try:
        tok = tagpipe.Tokenizer.from_str(text)
    except TokenizerJsonError as e:
        assert oracle is None, f"the oracle accepts it, tagpipe refused: {e}"
        # (a long path is written with its repeats folded: spec._base.short_path)
        assert path is not None and (path in str(e) or (path in e.path and short_path(e.path) in str(e))), str(e)[:300]
        return None
    finally:
        # (TAGPIPE_TIME_SCALE: scripts/sanitize.sh runs a Debug build under ASan, ~10-20x slower)
        assert time.monotonic() - t0 < max_seconds * float(os.environ.get("TAGPIPE_TIME_SCALE", "1"))
    assert oracle is not None, "tagpipe accepted a file the oracle refuses"
    for t in texts:
        assert tok.encode(t) == oracle.encode(t).ids, t
    assert tok.encode_batch(texts, num_threads=2) == [e.ids for e in oracle.encode_batch(texts)]
    return tok
