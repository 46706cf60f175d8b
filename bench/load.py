"""Loading a tokenizer.json: seconds and peak resident memory, tagpipe against the oracle.

Each load runs in a fresh process (`from_file`, imports not timed), so the peak (VmHWM) is
that load's own; the table shows the median of the rounds and every round.  A target is a
tokenizer of shared/tokenizers, or ``merges:N``: the hostile file of tests/test_hostile_files.py
with N merges (and as many tokens), generated into a temporary folder first.

    python -m bench.load                                   # gpt2 llama3 gpt-4o merges:300000
    python -m bench.load --targets merges:10000000 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import harness
from bench.worker import python_env

MiB = 1 << 20


def status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def child(engine: str, path: str) -> None:
    """One load; prints {"seconds", "peak", "base", "after"} (bytes) as JSON."""
    if engine == "oracle":
        import tokenizers

        load = lambda: tokenizers.Tokenizer.from_file(path)  # noqa: E731
    else:
        import tagpipe

        load = lambda: tagpipe.Tokenizer.from_file(path)  # noqa: E731
    base = status("VmRSS")
    t0 = time.perf_counter()
    tok = load()
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "peak": status("VmHWM"), "base": base, "after": status("VmRSS")}))
    del tok


def make(n_merges: int, path: str) -> None:
    from tests.support.hostile import merges_file  # (the generator tests/test_hostile_files.py uses)

    Path(path).write_text(merges_file(n_merges), encoding="utf-8")


def run(*args: str) -> str:
    with tempfile.TemporaryDirectory() as home:  # (nothing in the child's working directory to import)
        out = subprocess.run(
            [sys.executable, "-m", "bench.load", *args], capture_output=True, text=True, env=python_env(), cwd=home
        )
    if out.returncode:
        sys.exit(f"python -m bench.load {' '.join(args)} failed:\n{out.stderr}")
    return out.stdout


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--targets", default="gpt2,llama3,gpt-4o,merges:300000")
    ap.add_argument("--engines", default="tagpipe,oracle")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("ENGINE", "FILE"), help=argparse.SUPPRESS)
    ap.add_argument("--make", nargs=2, metavar=("N", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.make:
        return make(int(args.make[0]), args.make[1])
    print("| file | engine | load s (median) | peak RSS MiB | RSS after MiB | rounds (s) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.targets.split(","):
            if target.startswith("merges:"):
                path = str(Path(tmp) / f"{target.replace(':', '-')}.json")
                run("--make", target.split(":")[1], path)
            else:
                path = harness.tokenizer_path(target)
            results: dict = {e: [] for e in args.engines.split(",")}
            for _ in range(args.rounds):  # engines interleaved
                for engine in results:
                    results[engine].append(json.loads(run("--child", engine, path)))
            for engine, rounds in results.items():
                seconds = [r["seconds"] for r in rounds]
                print(
                    f"| {target} | {engine} | {statistics.median(seconds):.2f} "
                    f"| {max(r['peak'] for r in rounds) / MiB:.0f} | {rounds[-1]['after'] / MiB:.0f} "
                    f"| {', '.join(f'{s:.2f}' for s in seconds)} |",
                    flush=True,
                )
    print(f"\n{harness.machine()}")


if __name__ == "__main__":
    main()
