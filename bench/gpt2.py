"""Reference benchmark, GPT-2: encode throughput of tagpipe against tokenizers (the oracle),
the exact peers that serve it (gigatoken, fastokens, snaptokens, splintr, tuetoken) and
tiktoken, one thread and all cores, on every corpus.

    python -m bench.gpt2 [--rounds 5] [--corpora english code ...] [--round-docs 60]
                         [--threads N] [--out-dir DIR] [--no-write] [--no-plot]

Writes bench/results/gpt2.md (printed too) and bench/results/gpt2.png.

What is measured: MB/s (and M tokens/s) of encoding ~10 kB documents cut from
shared/corpora with /work/shared/tokenizers/gpt2/tokenizer.json, add_special_tokens=True
(GPT-2's post-processor adds nothing, so every engine does the same work).

How (bench/harness.py, driven by bench/encode.py; bench/drivers.py says how each engine is
called): every engine warms on one slice of a corpus and is timed on fresh, disjoint slices,
one per round, engines interleaved in a rotating order; only the engine's own call is timed,
in a worker process per thread count (one thread: RAYON_NUM_THREADS=1, FASTOKENS_BPE_THREADS=1,
TOKENIZERS_PARALLELISM=false; all cores: N); every id of every timed round is compared with
tokenizers 0.23.3's.  tiktoken cannot download its encodings here, so its Encoding is built
from the tokenizer.json's own byte-level vocabulary (ranks = ids) and GPT-2's split regex.
The report has the per-round figures, the cores each engine used, how busy the machine was,
tagpipe's stage breakdown (Tokenizer.profile: normalize / split / model ns per byte) and the
machine and versions.  The plot: one panel per thread count, a group of bars per corpus,
median per engine with the slowest and fastest round as error bars, log y.
"""

import sys

from bench import reference

ENGINES = ["tagpipe", "tokenizers", "gigatoken", "fastokens", "snaptokens", "splintr", "tuetoken", "tiktoken"]

if __name__ == "__main__":
    sys.exit(reference.main("gpt2", "GPT-2", {"gpt2": ENGINES}, __doc__))
