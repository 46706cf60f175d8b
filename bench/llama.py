"""Reference benchmark, Llama: encode throughput of tagpipe against tokenizers (the oracle),
the exact peers that serve each model (gigatoken, fastokens, snaptokens, splintr, tuetoken)
and tiktoken, one thread and all cores, on every corpus, for two tokenizers of different
kinds:

  llama3  byte-level BPE with a split regex (tiktoken-style): tiktoken's Encoding is built
          from the tokenizer.json's own vocabulary (ranks = ids), since it cannot download
          its encodings here.
  llama2  SentencePiece-style BPE (a normalizer that prepends "▁" and turns spaces into it,
          no pre-tokenizer, byte fallback): tagpipe splits the text with MetaspaceRuns;
          tagpipe-wholespan is tagpipe with MetaspaceRuns off (the same BPE and cache, only
          the splitter swapped).  tiktoken cannot express it.

    python -m bench.llama [--rounds 5] [--corpora english code ...] [--round-docs 60]
                          [--threads N] [--out-dir DIR] [--no-write] [--no-plot]

Writes bench/results/llama.md (printed too) and bench/results/llama.png.

What is measured: MB/s (and M tokens/s) of encoding ~10 kB documents cut from
shared/corpora.  llama3 runs with add_special_tokens=True (its post-processor adds
nothing); llama2's post-processor adds BOS, which gigatoken cannot, so llama2 runs with
add_special_tokens=False on every engine.

How (bench/harness.py, driven by bench/encode.py; bench/drivers.py says how each engine is
called): every engine warms on one slice of a corpus and is timed on fresh, disjoint slices,
one per round, engines interleaved in a rotating order; only the engine's own call is timed,
in a worker process per thread count (one thread: RAYON_NUM_THREADS=1, FASTOKENS_BPE_THREADS=1,
TOKENIZERS_PARALLELISM=false; all cores: N); every id of every timed round is compared with
tokenizers 0.23.3's.  The report has the per-round figures, the cores each engine used, how
busy the machine was, tagpipe's stage breakdown (Tokenizer.profile: normalize / split /
model ns per byte; for llama2 also with MetaspaceRuns off) and the machine and versions.
The plot: one row per model, one panel per thread count, a group of bars per corpus, median
per engine with the slowest and fastest round as error bars, log y.
"""

import sys

from bench import reference

MODELS = {
    "llama3": ["tagpipe", "tokenizers", "gigatoken", "fastokens", "snaptokens", "splintr", "tuetoken", "tiktoken"],
    "llama2": ["tagpipe", "tagpipe-wholespan", "tokenizers", "gigatoken", "fastokens", "splintr", "tuetoken"],
}

if __name__ == "__main__":
    sys.exit(reference.main("llama", "Llama 3 and Llama 2", MODELS, __doc__))
