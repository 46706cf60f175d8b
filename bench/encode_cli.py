"""`tagpipe encode` on whole corpora: throughput and peak memory, streaming.

    python -m bench.encode_cli [--model gpt2] [--gigabytes 1.0] [--threads N] [--no-write]

Three runs of the command line, each in its own process, its peak resident memory read from
the kernel (wait4's ru_maxrss) and its ids spot-checked against tokenizers 0.23.3 (300 random
documents, untimed):
  1. every file of shared/corpora (16 MB) with --blank-lines;
  2. and 3. a generated file of `--gigabytes` / 10 and of `--gigabytes` (default 1 GB) with
     --lines: lines of the corpora in a shuffled order, each with a running number, so the
     text is mostly unique.  Peak memory that does not grow from run 2 to run 3 is the
     streaming at work: the whole corpus is never in memory.
Writes bench/results/encode-cli.md.  The generated files live in a temporary directory and
are removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import harness


def generate(path: Path, nbytes: int, seed: int = 0) -> int:
    lines = []
    for name in harness.CORPORA:
        text = (harness.shared_dir() / "corpora" / f"{name}.txt").read_bytes()
        lines += [ln for ln in text.split(b"\n") if ln.strip()]
    rng = random.Random(seed)
    written = n = 0
    with open(path, "wb") as f:
        while written < nbytes:
            rng.shuffle(lines)
            buf = []
            for ln in lines:
                buf.append(b"%d " % n + ln + b"\n")
                n += 1
            data = b"".join(buf)[: nbytes - written]
            data = data[: data.rfind(b"\n") + 1] or data
            f.write(data)
            written += len(data)
    return written


def run_cli(model: str, inputs: list[str], out: Path, flags: list[str]) -> dict:
    cmd = [sys.executable, "-m", "tagpipe", "encode", model, *inputs, "-o", str(out), *flags]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=out.parent, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    meta = json.loads(out.with_suffix(".json").read_text())
    size = sum(os.path.getsize(p) for p in inputs)
    return {"bytes": size, "seconds": seconds, "peak_mb": usage.ru_maxrss / 1024, "meta": meta}


def spot_check(model: str, inputs: list[str], out: Path, split: str, n: int = 300) -> str:
    """Compare n random documents of the output with the oracle's ids for the same text."""
    import tokenizers

    from tagpipe.cli import corpus, tokenfile

    ids, idx, _ = tokenfile.read(str(out))
    rng = random.Random(1)
    picks = sorted(rng.sample(range(len(idx) - 1), min(n, len(idx) - 1)))
    want, doc_no, k = {}, 0, 0
    for path in inputs:  # stream the inputs again, keeping only the picked documents
        for docs, _ in corpus.read_text(path, split=split):
            while k < len(picks) and picks[k] < doc_no + len(docs):
                want[picks[k]] = docs[picks[k] - doc_no]
                k += 1
            doc_no += len(docs)
    oracle = tokenizers.Tokenizer.from_file(model)
    bad = [i for i in picks if ids[idx[i] : idx[i + 1]].tolist() != oracle.encode(want[i]).ids]
    return f"{len(picks)} random documents identical" if not bad else f"MISMATCH in documents {bad[:5]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.encode_cli", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default="gpt2", help="a tokenizer in shared/tokenizers (default gpt2)")
    ap.add_argument("--gigabytes", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    model = harness.tokenizer_path(args.model)
    corpora = [str(harness.shared_dir() / "corpora" / f"{c}.txt") for c in harness.CORPORA + ["edge"]]
    rows, ok = [], True
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        tmp = Path(tmp)
        plan = [("shared/corpora (6 files)", corpora, ["--blank-lines"], "blank")]
        for gb in (args.gigabytes / 10, args.gigabytes):
            path = tmp / f"generated-{gb:g}GB.txt"
            print(f"generating {path.name} ...", flush=True)
            generate(path, int(gb * 1e9))
            plan.append((f"generated {gb:g} GB", [str(path)], ["--lines"], "lines"))
        for label, inputs, flags, split in plan:
            out = tmp / "out"
            r = run_cli(model, inputs, out, flags + ["--threads", str(args.threads)])
            check = spot_check(model, inputs, out, split)
            ok &= not check.startswith("MISMATCH")
            m = r["meta"]
            rows.append(
                f"| {label} | {r['bytes'] / 1e6:,.0f} | {m['documents']:,} | {m['tokens']:,} | "
                f"{m['dtype']} | {r['seconds']:.1f} | {r['bytes'] / r['seconds'] / 1e6:.1f} | "
                f"{r['peak_mb']:.0f} | {check} |"
            )
            print(rows[-1], flush=True)
            for p in tmp.glob("out*"):
                p.unlink()
    body = (
        f"`tagpipe encode` with {args.model}, {args.threads} threads; wall time of the whole "
        "command (start-up, tokenizer load, reading, encoding, writing); peak memory = the "
        "process's maximum resident set.\n\n"
        "| input | MB | documents | tokens | dtype | seconds | MB/s | peak RSS (MB) | ids |\n"
        "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        out = harness.write_report(
            "encode-cli", "tagpipe encode: whole corpora, streaming", harness.command("encode_cli", argv), body
        )
        print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
