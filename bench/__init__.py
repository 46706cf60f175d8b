"""tagpipe's benchmarks: one package, run from the repository root as ``python -m bench.<name>``
(with the tagpipe to measure importable: built in place and on PYTHONPATH, or installed).

The harness and its parts
    harness      the method every benchmark follows: ~10 kB documents of shared/corpora, warm
                 on one slice, time fresh slices (one per round, engines interleaved, order
                 rotating), only the engine's own call timed, every output verified; the
                 oracle's ids (Reference), the machine and the markdown report
    drivers      how each engine is called: tagpipe, tokenizers and the exact peers of
                 PEERS.md (gigatoken, fastokens, snaptokens, splintr, tuetoken, toktok,
                 nanotoken) and tiktoken, each in its fastest list-free form
    worker       the engines in worker processes of their own, one per thread count
    native       tagpipe's native benchmark hooks, reached in one place

Encoding (worker processes, every id checked against tokenizers 0.23.3)
    encode       throughput of every engine, one thread and all cores, per model and corpus;
                 --repeat pools runs in new worker processes   -> results/encode.md
    gpt2, llama, families   the reference reports with plots (reference, plot)
    ceiling      each engine on fresh text and on the same text again
    misses       text in which every word is new: the cache-miss path
    encode_cli   `tagpipe encode` on whole corpora: throughput and peak memory
    engines      through the data engines (datasets, Ray, Spark)

transformers (in this process)
    accelerate   tagpipe.accelerate(tok)(docs, padding=True, truncation=True, ...) against the
                 same call unaccelerated, single texts or --pairs, with --call offsets or
                 overflow (question answering), outputs verified equal

One stage at a time (in this process)
    classify, transcode, normalize, pretokenize   per kernel / against the oracle's entry points
    load, memory, hostile                         loading, the memory bound, pathological text

Reports go to bench/results/<name>.md (--no-write: print only).  The user-facing
`tagpipe bench` (tagpipe.cli.bench) is the small version of `encode` for anyone's own text.
"""

import os

# numpy's OpenBLAS starts a thread per core, which busy-waits for a while after work it is
# given: on 2-core machines that slowed a one-thread tagpipe run that followed it to half
# speed.  No engine uses BLAS; set before anything here imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
