"""Every python and sh code block of README.md and docs/**/*.md runs as written, page by page
(docs/run_examples.py: in order, each as its own process, in a fresh directory with the
bundled GPT-2 as tokenizer.json and a corpus/), and docs/distributed.md's engine examples
write exactly tokenizers' ids for every line, for each engine installed here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tagpipe

from support.data import REPO

sys.path.insert(0, str(REPO / "docs"))
import run_examples  # noqa: E402  (docs/ is not a package)

PAGES = run_examples.pages()
RUNNABLE = [p for p in PAGES if run_examples.blocks(p)]


def test_every_block_says_whether_it_runs():
    # a block tagged neither python, sh nor text (```bash, or no tag) would silently not run
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        tags = [m.group(1) for m in run_examples.FENCE.finditer(text)]
        assert set(tags) <= {"python", "sh", "text"}, f"{page.name}: {tags}"
        if run_examples.RUN & set(tags):
            assert "<!-- Code blocks: the blocks tagged python and sh" in text, f"{page.name} does not say how they run"


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(REPO)) for p in RUNNABLE])
def test_the_page_runs_as_written(page, tmp_path):
    # the blocks' processes import the tagpipe these tests run against, from anywhere
    home = str(Path(tagpipe.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p))
    run = subprocess.run(
        [sys.executable, str(REPO / "docs" / "run_examples.py"), str(page), "--kb", "60"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " 0 failures" in run.stdout, run.stdout
