"""Runs the per-engine examples of docs/distributed.md as written, and checks every id.

    python docs/run_examples.py [--model tokenizer.json] [--engines datasets ray spark] [--kb 200]

Each example runs in a fresh temporary folder holding `tokenizer.json` (default: the GPT-2
bundled with tagpipe) and `corpus/`: lines of the shared corpora (TAGPIPE_TEST_DATA, else
../shared; ~--kb kB in all).  Then the ids it wrote are compared with tokenizers' ids of
every line.  Needs the engine installed (and Java for Spark).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DOC = Path(__file__).resolve().parent / "distributed.md"
SECTIONS = {"datasets": "## Hugging Face datasets", "ray": "## Ray Data", "spark": "## Spark"}
LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # (engines split on \n alone)


def example(section: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index(section + "\n") :]
    return re.search(r"```python\n(.*?)```", body, re.S).group(1)


def make_corpus(folder: Path, kb: int) -> list[str]:
    shared = Path(os.environ.get("TAGPIPE_TEST_DATA", Path(__file__).resolve().parents[2] / "shared"))
    lines = []
    for path in sorted((shared / "corpora").glob("*.txt")):
        part = [
            ln
            for ln in path.read_text(encoding="utf-8")[: kb * 1000 // 6].split("\n")[:-1]
            if not LINE_BREAKS.search(ln)
        ]
        (folder / f"{path.stem}.txt").write_text("\n".join(part) + "\n", encoding="utf-8")
        lines += part
    return lines


def results(engine: str, work: Path) -> tuple[list[str] | None, list[list[int]]]:
    """(texts in output order, or None when the example dropped them; ids per row)."""
    import pyarrow.parquet as pq

    if engine == "datasets":
        import datasets

        return None, datasets.load_from_disk(str(work / "tokenized-datasets"))["input_ids"]
    table = pq.read_table(work / f"tokenized-{engine}")
    texts = table.column("text" if engine == "ray" else "value").to_pylist()
    return texts, table.column("input_ids").to_pylist()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="a tokenizer.json (default: tagpipe's bundled GPT-2)")
    ap.add_argument("--engines", nargs="+", default=list(SECTIONS), choices=list(SECTIONS))
    ap.add_argument("--kb", type=int, default=200)
    args = ap.parse_args()
    import tokenizers

    from tagpipe import cli

    json_text = Path(args.model).read_text("utf-8") if args.model else cli.bundled_tokenizer_json()
    oracle = tokenizers.Tokenizer.from_str(json_text)
    failed = 0
    for engine in args.engines:
        with tempfile.TemporaryDirectory(prefix=f"tagpipe-example-{engine}-") as tmp:
            work = Path(tmp)
            (work / "tokenizer.json").write_text(json_text, encoding="utf-8")
            (work / "corpus").mkdir()
            lines = make_corpus(work / "corpus", args.kb)
            (work / "example.py").write_text(example(SECTIONS[engine]), encoding="utf-8")
            run = subprocess.run([sys.executable, "example.py"], cwd=work, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{engine}: the example failed\n{run.stderr[-3000:]}")
                failed += 1
                continue
            texts, ids = results(engine, work)
            if texts is None:  # (datasets: the text column was removed; compare as multisets)
                ok = sorted(map(tuple, ids)) == sorted(tuple(e.ids) for e in oracle.encode_batch(lines))
            else:
                # (Ray's read_text drops empty lines: every other line must be there)
                kept = [ln for ln in lines if ln.strip()] if engine == "ray" else lines
                ok = sorted(t for t in texts if t.strip() or engine != "ray") == sorted(kept) and [
                    list(r) for r in ids
                ] == [e.ids for e in oracle.encode_batch(texts)]
            print(f"{engine}: {len(ids)} rows, ids {'equal to tokenizers' if ok else 'DIFFER from tokenizers'}")
            failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
