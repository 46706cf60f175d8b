"""The reference benchmarks' plot: encode throughput per corpus per engine.

One panel per (model, thread count): a group of bars per corpus, one bar per engine at the
median of its rounds, the error bar spanning the slowest and the fastest round, the median
written above it.  The y axis is logarithmic (the oracle runs at a few MB/s, the others at
tens to hundreds).  Only verified cells are drawn as plain bars; a cell with a wrong id is
hatched and marked "✗".  matplotlib (Agg backend) is optional: without it `throughput`
prints a note and returns None.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench import harness

COLORS = {
    "tagpipe": "#1f77b4",
    "tagpipe-wholespan": "#9ecae1",
    "tokenizers": "#7f7f7f",
    "gigatoken": "#2ca02c",
    "fastokens": "#ff7f0e",
    "snaptokens": "#ffbb78",
    "splintr": "#d62728",
    "tuetoken": "#8c564b",
    "toktok": "#e377c2",
    "nanotoken": "#bcbd22",
    "tiktoken": "#9467bd",
}


def machine_summary() -> str:
    """CPU and cores, tagpipe's kernel, commit and date, from harness.machine()."""
    parts = harness.machine().split("; ")
    keep = [parts[0]] + [p for p in parts if p.startswith(("tagpipe kernel", "commit"))] + [parts[-1]]
    return ", ".join(keep)


def _split(engine: str) -> tuple[str, int]:
    """'tagpipe 2t' -> ('tagpipe', 2)."""
    kind, threads = engine.rsplit(" ", 1)
    return kind, int(threads.rstrip("t"))


def throughput(path: Path, results: dict, corpora, thread_counts, title: str) -> Path | None:
    """Draw {model: [harness.Cell]} (engines named "<kind> <N>t") to `path` (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        print("note: matplotlib is not installed, so no plot (pip install matplotlib)")
        return None

    rows, cols = len(results), len(thread_counts)
    top, bottom = 0.6, 0.65  # inches for the title and for the legend and footnote
    height = 4 * rows + top + bottom
    fig, axes = plt.subplots(rows, cols, figsize=(max(6.5 * cols, 10), height), squeeze=False, sharey="row")
    shown = []
    for r, (model, cells) in enumerate(results.items()):
        spans = [(min(c.rounds), max(c.rounds)) for c in cells if c.rounds and min(c.rounds) > 0]
        for c, threads in enumerate(thread_counts):
            ax = axes[r][c]
            at = {}
            for cell in cells:
                kind, t = _split(cell.engine)
                if t == threads and cell.rounds:
                    at[(kind, cell.corpus)] = cell
            kinds = [k for k in COLORS if any((k, corpus) in at for corpus in corpora)]
            shown += [k for k in kinds if k not in shown]
            width = 0.84 / max(len(kinds), 1)
            for i, kind in enumerate(kinds):
                for x, corpus in enumerate(corpora):
                    cell = at.get((kind, corpus))
                    if cell is None:
                        continue
                    med, lo, hi = statistics.median(cell.rounds), min(cell.rounds), max(cell.rounds)
                    pos = x + (i - (len(kinds) - 1) / 2) * width
                    ax.bar(
                        pos,
                        med,
                        width,
                        color=COLORS[kind],
                        edgecolor="white",
                        linewidth=0.5,
                        hatch=None if cell.verified else "//",
                    )
                    ax.errorbar(
                        pos, med, yerr=[[med - lo], [hi - med]], fmt="none", ecolor="black", elinewidth=0.8, capsize=1.5
                    )
                    text = f"{med:.0f}" if med >= 10 else f"{med:.1f}"
                    ax.text(
                        pos,
                        hi * 1.06,
                        text + ("" if cell.verified else " ✗"),
                        ha="center",
                        va="bottom",
                        rotation=90,
                        fontsize=6.5,
                    )
            ax.set_yscale("log")
            if spans:  # room under the slowest bar and above the fastest one's label
                ax.set_ylim(min(s[0] for s in spans) / 1.5, max(s[1] for s in spans) * 2)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.set_xticks(range(len(corpora)), corpora)
            ax.set_ylabel("MB/s (log scale)")
            ax.tick_params(labelleft=True)
            ax.set_title(f"{model}, {threads} thread{'s' if threads > 1 else ''}", fontsize=10)
            ax.grid(axis="y", which="both", alpha=0.25)
            ax.set_axisbelow(True)
    fig.suptitle(f"{title}\n{machine_summary()}", fontsize=10.5, y=1 - 0.12 / height, va="top")
    fig.legend(
        handles=[Patch(color=v, label=k) for k, v in COLORS.items() if k in shown],
        loc="lower center",
        ncol=len(shown),
        bbox_to_anchor=(0.5, 0.25 / height),
        frameon=False,
        fontsize=9,
    )
    fig.text(
        0.5,
        0.06 / height,
        "bars: median of the rounds; error bars: slowest and fastest round; "
        "every id checked against tokenizers 0.23.3 (hatched, ✗: a mismatch)",
        ha="center",
        fontsize=8,
    )
    fig.tight_layout(rect=(0, bottom / height, 1, 1 - top / height))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
