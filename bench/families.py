"""Encode throughput of the WordPiece / WordLevel / Unigram families (issue 8): tagpipe against
tokenizers (the oracle) and the peers that load the models (gigatoken, and the WordPiece
peers nanotoken and splintr), one thread and all cores, on every corpus, for
all-minilm-l6-v2, bert-wiki, t5-small, marian-ortx-nmt and rwkv-midi-wordlevel.

    python -m bench.families [--stripped | --no-cut] [--rounds 5] [--corpora english code ...]
                             [--round-docs 60] [--threads N] [--models NAME ...] [--out-dir DIR]
                             [--no-write] [--no-plot]

Writes bench/results/families.md and .png (with --stripped: families-stripped.md / .png; with
--no-cut: families-nocut.md / .png).

--stripped: every engine gets the *stripped variant* of each file -- the same tokenizer.json
with normalizer, truncation and padding set to null -- written to a temporary shared/ folder
(tokenizers/<name>/tokenizer.json, with a symlink to the real corpora) that TAGPIPE_TEST_DATA
points at for this run.  It measures the models, pre-tokenizers and post-processors natively
before the normalizers are; without it the real files run, and a tokenizer tagpipe would
delegate is reported as such, not timed (TAGPIPE_DELEGATION=error in the workers).

--no-cut: the same with only truncation and padding set to null (normalizers kept): the
real pipelines without all-minilm-l6-v2's truncation to 128, where tagpipe stops the model
once the kept ids are known and the oracle encodes the whole text.

Method: bench.reference and bench.encode (see their docstrings): ~10 kB documents,
every engine warms on one slice and is timed on fresh slices, one per round, engines
interleaved; only the engine's call is timed; every id of every timed round is checked
against tokenizers 0.23.3.  Post-processors that add [CLS]/[SEP] or </s> cannot be asked of
gigatoken, so those models run with add_special_tokens=False on every engine (printed under
each table).  Target (issue 8): tagpipe >= 10x the oracle on one thread for the BERT family.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

from bench import harness, reference

ENGINES = ["tagpipe", "tokenizers", "gigatoken", "nanotoken", "splintr"]
NAMES = ["all-minilm-l6-v2", "bert-wiki", "t5-small", "marian-ortx-nmt", "rwkv-midi-wordlevel"]


def stripped_shared(real: Path, into: Path, sections=("normalizer", "truncation", "padding")) -> Path:
    """A shared/ folder whose tokenizers are the variants of NAMES with `sections` set to null."""
    (into / "corpora").symlink_to(real / "corpora")
    for name in NAMES:
        data = json.loads((real / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))
        for section in sections:
            data[section] = None
        out = into / "tokenizers" / name / "tokenizer.json"
        out.parent.mkdir(parents=True)
        out.write_text(json.dumps(data), encoding="utf-8")
    return into


VARIANTS = {  # flag: (report name, title, sections set to null)
    "--stripped": (
        "families-stripped",
        "WordPiece / WordLevel / Unigram families, stripped variants (no normalizer, truncation, padding)",
        ("normalizer", "truncation", "padding"),
    ),
    "--no-cut": (
        "families-nocut",
        "WordPiece / WordLevel / Unigram families without truncation and padding",
        ("truncation", "padding"),
    ),
}

if __name__ == "__main__":
    command = harness.command("families")
    flags = [f for f in VARIANTS if f in sys.argv]
    if len(flags) > 1:
        sys.exit("--stripped and --no-cut: one variant at a time")
    for f in flags:
        sys.argv.remove(f)
    models = {name: ENGINES for name in NAMES}
    if not flags:
        sys.exit(reference.main("families", "WordPiece / WordLevel / Unigram families", models, __doc__))
    report, title, sections = VARIANTS[flags[0]]
    with tempfile.TemporaryDirectory(prefix="tagpipe-families-") as tmp:
        os.environ["TAGPIPE_TEST_DATA"] = str(stripped_shared(harness.shared_dir(), Path(tmp), sections))
        sys.exit(reference.main(report, title, models, __doc__, command))
