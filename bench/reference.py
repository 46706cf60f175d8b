"""What bench.gpt2, bench.llama and bench.families share: their command line, the measurement
(bench.encode's run_models: worker processes per thread count, every id verified, per-round
figures, the stage breakdown), the markdown report and the plot (bench.plot)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bench import encode, harness, plot
from bench.drivers import ENGINES


def main(name: str, title: str, models: dict[str, list[str]], doc: str, command: str = "", argv=None) -> int:
    """Measure every model with its engines, print the report, write <out-dir>/<name>.md and
    <name>.png.  Exit status 1 when an id differed or an engine failed."""
    ap = argparse.ArgumentParser(
        prog=f"python -m bench.{name}", description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds, each on fresh documents (default 5)")
    ap.add_argument("--corpora", nargs="*", default=harness.CORPORA, choices=harness.CORPORA)
    ap.add_argument("--round-docs", type=int, default=60, help="documents per round, at most (default 60, ~600 kB)")
    ap.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="threads for the all-cores columns (default: every core; 1: one thread only)",
    )
    ap.add_argument(
        "--out-dir",
        type=Path,
        default=harness.RESULTS,
        help="where <name>.md and <name>.png go (default bench/results)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only: write neither the report nor the plot")
    ap.add_argument("--no-plot", action="store_true", help="write the report without the plot")
    ap.add_argument(
        "--models",
        nargs="*",
        default=list(models),
        choices=list(models),
        help="only these tokenizers (default: all of them)",
    )
    args = ap.parse_args(argv)
    models = {m: kinds for m, kinds in models.items() if m in args.models}

    thread_counts = [1] if args.threads <= 1 else [1, args.threads]
    load = harness.load_average()
    print(f"load average before the run: {load} on {os.cpu_count()} cores")
    sections, results, ok = [], {}, True
    for model, kinds in models.items():
        md, cells, good = encode.run_models(
            [model], args.corpora, kinds, thread_counts, args.rounds, args.round_docs, "auto", True
        )
        sections.append(md)
        results.update(cells)
        ok &= good
    kinds = [k for k in ENGINES if any(k in ks for ks in models.values())]
    body = encode.header(kinds, args.rounds, args.threads, load) + "\n\n" + "\n\n".join(sections)
    if args.no_write:
        return 0 if ok else 1

    png = None
    if not args.no_plot:
        png = plot.throughput(
            args.out_dir / f"{name}.png",
            results,
            args.corpora,
            thread_counts,
            f"{title}: encode MB/s, median of {args.rounds} rounds",
        )
        if png:
            print(f"wrote {png}")
    command = command or harness.command(name, argv)
    image = f"![{title} throughput]({png.name})\n\n" if png else ""
    out = args.out_dir / f"{name}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# {title}: encode throughput\n\n`{command}`\n\n{harness.machine()}\n\n{image}{body}\n")
    print(f"wrote {out}")
    return 0 if ok else 1
