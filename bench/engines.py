"""Corpus throughput through the data engines vs plain encode_batch, on the same machine and data.

    python -m bench.engines [--model PATH|bundled] [--slice-mb 2] [--rounds 3]
                            [--engines plain-1t plain-nt arrow-nt datasets ray spark-arrow spark-pandas]
                            [--workers N] [--out NAME] [--no-write]

Writes bench/results/engines.md: per path, the MB/s of a job of --slice-mb MB (median and
per round) and its share of plain ``encode_batch_flat`` on every core, and the job's time
split into a fixed cost per job and a marginal MB/s (from two job sizes, S/4 and S: the
marginal rate is the extra MB over the extra seconds) -- on a corpus far larger than one
job, the marginal rate is what the engine path costs.

Method.  Documents: ~10 kB pieces of every shared corpus, interleaved.  Round 0 warms every
path (worker processes started, tokenizers unpickled and built, word caches filled with
other text); then each round times every path on a fresh S/4 job and a fresh S job, paths
interleaved with the order rotating.  Every path has its own Tokenizer (plain paths: a
copy; engines: unpickled in their workers), so no path sees text another one cached.
Every run's ids are checked against encode_batch_flat of a separate reference Tokenizer,
after the timing.  What is timed, per path (the engine's input is built before the clock
starts, as a real job would read it from storage):

  plain-1t / plain-nt  Tokenizer.encode_batch_flat(list of str), 1 / N native threads.
  arrow-nt             Tokenizer.encode_arrow(pyarrow string array), N threads -> list<uint32>.
  datasets             tagpipe.datasets_encode(Dataset, num_proc=N): Arrow batches of 1000,
                       results in cache files; includes datasets' process pool start and the
                       tokenizer rebuilt in each new process (datasets starts a pool per map).
  ray                  ds.map_batches(tagpipe.ray_encoder(tok), batch_format="pyarrow")
                       .materialize() on a local Ray with N CPUs, 2N blocks.
  spark-arrow          tagpipe.spark_encode(df, tok) (mapInArrow) on local[N], ids collected
                       to the driver as Arrow (DataFrame.toArrow).
  spark-pandas         df.withColumn(ids, tagpipe.spark_udf(tok)(text)), collected the same way.

Engine start (ray.init, the SparkSession) is reported separately, not in the rates.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import harness

ALL = ["plain-1t", "plain-nt", "arrow-nt", "datasets", "ray", "spark-arrow", "spark-pandas"]


def slices(slice_bytes: int, count: int) -> list[list[str]]:
    per_corpus = [harness.documents(c) for c in harness.CORPORA]
    mixed = [d for group in itertools.zip_longest(*per_corpus) for d in group if d is not None]
    out, cur, size = [], [], 0
    for d in mixed:
        cur.append(d)
        size += len(d.encode())
        if size >= slice_bytes:
            out.append(cur)
            cur, size = [], 0
            if len(out) == count:
                return out
    sys.exit(f"bench: the corpora hold only {len(out)} slices of {slice_bytes} bytes; lower --slice-mb or --rounds")


def arrow_flat(pa, column, n_column) -> tuple[np.ndarray, np.ndarray]:
    """(flat ids, offsets) of an Arrow list column, rows put in the order of `n_column`."""
    import pyarrow.compute as pc

    order = pc.sort_indices(n_column).to_numpy()
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    col = col.take(pa.array(order))
    offsets = col.offsets.to_numpy().astype(np.int64)
    return col.flatten().to_numpy().astype(np.uint32), offsets - offsets[0]


class Paths:
    def __init__(self, tok, workers: int, wanted: list[str]):
        import pyarrow as pa

        self.pa, self.tok, self.workers, self.start = pa, tok, workers, {}
        self.tmp = tempfile.TemporaryDirectory(prefix="tagpipe-engines-")
        self.run = {}
        for name in wanted:
            try:
                getattr(self, "setup_" + name.replace("-", "_"))()
            except ImportError as e:
                print(f"  {name}: skipped ({e})", file=sys.stderr)

    # plain: each path its own Tokenizer (its own word cache, warmed only by the text it saw)
    def _own(self):
        import pickle

        return pickle.loads(pickle.dumps(self.tok))

    def setup_plain_1t(self):
        tok = self._own()
        self.run["plain-1t"] = (
            lambda docs: docs,
            lambda docs: tok.encode_batch_flat(docs, num_threads=1),
            lambda out: out,
        )

    def setup_plain_nt(self):
        tok = self._own()
        self.run["plain-nt"] = (
            lambda docs: docs,
            lambda d: tok.encode_batch_flat(d, num_threads=self.workers),
            lambda out: out,
        )

    def setup_arrow_nt(self):
        pa, tok = self.pa, self._own()
        self.run["arrow-nt"] = (
            lambda docs: pa.array(docs),
            lambda arr: tok.encode_arrow(arr, num_threads=self.workers),
            lambda out: (out.values.to_numpy(), out.offsets.to_numpy().astype(np.int64)),
        )

    # datasets
    def setup_datasets(self):
        import datasets

        import tagpipe

        datasets.disable_progress_bars()
        counter = itertools.count()
        pa = self.pa

        def prepare(docs):
            return datasets.Dataset.from_dict({"n": np.arange(len(docs)), "text": docs})

        def go(ds):
            name = os.path.join(self.tmp.name, f"ds{next(counter)}.arrow")
            out = tagpipe.datasets_encode(
                ds,
                self.tok,
                num_proc=self.workers,
                remove_columns=["text"],
                cache_file_name=name,
                load_from_cache_file=False,
            )
            return out

        self.run["datasets"] = (
            prepare,
            go,
            lambda out: arrow_flat(pa, out.data.column("input_ids"), out.data.column("n")),
        )

    # ray
    def setup_ray(self):
        import ray

        import tagpipe

        t0 = time.perf_counter()
        ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        self.start["ray"] = time.perf_counter() - t0
        pa = self.pa
        fn = tagpipe.ray_encoder(self.tok)

        def prepare(docs):
            return (
                ray.data.from_arrow(pa.table({"n": np.arange(len(docs)), "text": docs}))
                .repartition(2 * self.workers)
                .materialize()
            )

        def result(ds):
            table = pa.concat_tables(ray.get(ds.to_arrow_refs()))
            return arrow_flat(pa, table.column("input_ids"), table.column("n"))

        self.run["ray"] = (prepare, lambda ds: ds.map_batches(fn, batch_format="pyarrow").materialize(), result)

    # spark
    def _spark(self):
        if "spark" in self.start:
            return self._session
        from pyspark.sql import SparkSession

        t0 = time.perf_counter()
        self._session = (
            SparkSession.builder.master(f"local[{self.workers}]")
            .appName("tagpipe-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", "2g")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate()
        )
        self._session.sparkContext.setLogLevel("ERROR")
        self.start["spark"] = time.perf_counter() - t0
        return self._session

    def _spark_prepare(self, docs):
        spark = self._spark()
        df = (
            spark.createDataFrame(self.pa.table({"n": np.arange(len(docs)), "text": docs}).to_pandas())
            .repartition(2 * self.workers)
            .cache()
        )
        df.count()
        return df

    def _spark_result(self, table):
        return arrow_flat(self.pa, table.column("input_ids"), table.column("n"))

    def setup_spark_arrow(self):
        import tagpipe

        self._spark()
        self.run["spark-arrow"] = (
            self._spark_prepare,
            lambda df: tagpipe.spark_encode(df, self.tok).select("n", "input_ids").toArrow(),
            self._spark_result,
        )

    def setup_spark_pandas(self):
        import tagpipe

        self._spark()
        udf = tagpipe.spark_udf(self.tok)
        self.run["spark-pandas"] = (
            self._spark_prepare,
            lambda df: df.select("n", udf("text").alias("input_ids")).toArrow(),
            self._spark_result,
        )

    def close(self):
        if "ray" in self.start:
            import ray

            ray.shutdown()
        if "spark" in self.start:
            self._session.stop()
        self.tmp.cleanup()


def arguments(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.engines", description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="bundled", help="a tokenizer.json, or 'bundled' (GPT-2)")
    ap.add_argument("--slice-mb", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--engines", nargs="+", default=ALL, choices=ALL)
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="engine worker processes and plain-nt threads (default: every core)",
    )
    ap.add_argument("--out", default="engines", help="the report's name in bench/results (default: engines)")
    ap.add_argument("--no-write", action="store_true")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = arguments(argv)
    import tagpipe
    from tagpipe import cli

    json_text = cli.bundled_tokenizer_json() if args.model == "bundled" else Path(args.model).read_text("utf-8")
    tok = tagpipe.Tokenizer.from_str(json_text)  # (pickled into every path; never encodes itself)
    reference = tagpipe.Tokenizer.from_str(json_text)
    big = int(args.slice_mb * 1e6)
    pieces = slices(big // 4, 5 * (args.rounds + 1))  # each round: one small slice, and four for a big one
    data = [(pieces[5 * r], sum(pieces[5 * r + 1 : 5 * r + 5], [])) for r in range(args.rounds + 1)]
    load = os.getloadavg()[0]
    paths = Paths(tok, args.workers, args.engines)
    names = [n for n in args.engines if n in paths.run]
    times: dict[tuple[str, str], list[float]] = {}
    sizes = {"small": [], "big": []}
    errors: list[str] = []
    try:
        for r, pair in enumerate(data):
            k = (r - 1) % max(1, len(names))
            for size, docs in zip(("small", "big"), pair):
                nbytes = sum(len(d.encode()) for d in docs)
                if r > 0:
                    sizes[size].append(nbytes)
                want_ids, want_off = reference.encode_batch_flat(docs, num_threads=args.workers)
                for name in names[k:] + names[:k]:  # (the order rotates each round)
                    prepare, go, result = paths.run[name]
                    inp = prepare(docs)
                    t0 = time.perf_counter()
                    out = go(inp)
                    dt = time.perf_counter() - t0
                    ids, offsets = result(out)
                    if not (np.array_equal(offsets, want_off) and np.array_equal(ids, want_ids)):
                        errors.append(f"{name}, round {r} ({size}): ids differ from encode_batch_flat")
                    if r > 0:  # (round 0 warms)
                        times.setdefault((name, size), []).append(dt)
                    print(f"  round {r} {size} {name}: {nbytes / 1e6:.2f} MB in {dt:.2f} s", file=sys.stderr)
    finally:
        paths.close()
    small_mb, big_mb = statistics.median(sizes["small"]) / 1e6, statistics.median(sizes["big"]) / 1e6
    row = {}
    for name in names:
        ts, tb = statistics.median(times[(name, "small")]), statistics.median(times[(name, "big")])
        marginal = (big_mb - small_mb) / (tb - ts) if tb > ts else float("nan")  # (nan: too noisy to split)
        fixed = max(0.0, ts - small_mb / marginal) if marginal == marginal else float("nan")
        row[name] = (big_mb / tb, marginal, fixed, times[(name, "big")])
    base = row.get("plain-nt")
    lines = [
        f"Model: {args.model}; {args.rounds} timed rounds after a warm-up round, each a fresh "
        f"~{small_mb:.2f} MB job and a fresh ~{big_mb:.2f} MB job per path (~10 kB documents of "
        f"{', '.join(harness.CORPORA)}, interleaved); {args.workers} worker processes (engines) / native "
        f"threads (plain-nt, arrow-nt).  Load average when the run started: {load:.2f} on {os.cpu_count()} "
        f"cores.  Ids of every timed run checked against encode_batch_flat: "
        f"{'all equal' if not errors else '; '.join(errors)}.",
        "",
        f"Throughput of a {big_mb:.1f} MB job, and the job's time split into a fixed cost and a marginal rate "
        f"(from the medians of the two job sizes: marginal = extra MB / extra seconds):",
        "",
        f"| path | MB/s, {big_mb:.1f} MB job (median) | per round | vs plain-nt | fixed cost per job | "
        f"marginal MB/s | marginal vs plain-nt |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        rate, marginal, fixed, tb = row[name]
        lines.append(
            f"| {name} | {rate:.1f} | {' / '.join(f'{big_mb / t:.1f}' for t in tb)} | "
            f"{rate / base[0]:.2f} | {fixed:.2f} s | {marginal:.1f} | {marginal / base[1]:.2f} |"
            if base
            else f"| {name} | {rate:.1f} | | | {fixed:.2f} s | {marginal:.1f} | |"
        )
    if paths.start:
        lines += [
            "",
            "Engine start (not in the rates): " + ", ".join(f"{k} {v:.1f} s" for k, v in paths.start.items()) + ".",
        ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(
            harness.write_report(
                args.out, "Corpus throughput through the data engines", harness.command("engines", argv), body
            )
        )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
