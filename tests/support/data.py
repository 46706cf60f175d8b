"""Where the tests find the real tokenizers and corpora, and what this build runs.

One setting, ``TAGPIPE_TEST_DATA`` (the ``shared/`` folder), defaulting to ``../shared``
beside the checkout.  The tests that need it run whenever it exists (CI always has it) and
skip otherwise (``needs_shared``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

import tagpipe

REPO = Path(__file__).resolve().parent.parent.parent


def shared_dir() -> Optional[Path]:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    path = Path(env) if env else REPO.parent / "shared"
    return path if (path / "corpora").is_dir() else None


SHARED = shared_dir()
CORPORA = sorted((SHARED / "corpora").glob("*.txt")) if SHARED else []
KERNELS = tagpipe.kernels().available
SIMD_KERNELS = [k for k in KERNELS if k != "scalar"]
ALPHABETS = sorted(tagpipe.alphabets())

needs_shared = pytest.mark.skipif(SHARED is None, reason="TAGPIPE_TEST_DATA / ../shared not found")


def corpus_ids(paths):
    return [p.stem for p in paths]
