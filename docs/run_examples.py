"""Runs the code blocks of README.md and docs/**/*.md as written, the way each page says.

    python docs/run_examples.py [PAGE ...] [--kb 200] [--list]

The convention (an HTML comment at the top of each page): the blocks tagged python and sh
run in order, each as its own process (python: this interpreter; sh: bash -e -o pipefail),
in one fresh directory per page holding `tokenizer.json` (the GPT-2 bundled with tagpipe)
and `corpus/` (text files, one document per line), with `tagpipe` on PATH; blocks tagged
text are not run.  A page fails when one of its blocks exits non-zero.

`corpus/` holds the first ~--kb kB of each shared corpus (TAGPIPE_TEST_DATA, else
../shared beside the checkout), or, without them, the Python standard library's source.
A block that imports a package this environment lacks (an engine of docs/distributed.md,
say), or Spark without Java, is skipped and said so.  After a page runs, the ids written by
docs/distributed.md's engine examples (tokenized-datasets, -ray, -spark) are compared with
tokenizers' ids of every line of the corpus.

The blocks import the tagpipe this script imports (its folder goes first on PYTHONPATH),
and `tagpipe` on PATH runs `python -m tagpipe` with this interpreter.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # (engines split on \n alone)
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
RUN = {"python", "sh"}
BLOCK_TIMEOUT = 900  # seconds; a Spark or Ray start-up on a busy 2-core machine takes ~1 min


def pages() -> list[Path]:
    """Every page: README.md, then docs/**/*.md."""
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def blocks(page: Path) -> list[tuple[int, str, str]]:
    """(line number, language, code) of each fenced block tagged python or sh, in order."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in FENCE.finditer(text) if m.group(1) in RUN
    ]


def missing_requirement(lang: str, code: str) -> Optional[str]:
    """Why this environment cannot run the block (a package it imports is not installed,
    Spark without Java), or None."""
    if lang != "python":
        return None
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    absent = sorted(n for n in names if importlib.util.find_spec(n) is None)
    if absent:
        return "needs " + ", ".join(absent)
    if "pyspark" in names and not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return "needs Java (Spark)"
    return None


def make_corpus(folder: Path, kb: int) -> list[str]:
    """Writes corpus/*.txt (one document per line); returns every line, in file order."""
    shared = Path(os.environ.get("TAGPIPE_TEST_DATA", REPO.parent / "shared"))
    sources = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((shared / "corpora").glob("*.txt"))]
    if not sources:
        from tagpipe.cli.resources import stdlib_documents

        sources = [("stdlib", "".join(stdlib_documents(kb / 1000)))]
    lines = []
    for name, text in sources:
        part = [ln for ln in text[: kb * 1000 // max(1, len(sources))].split("\n")[:-1] if not LINE_BREAKS.search(ln)]
        (folder / f"{name}.txt").write_text("\n".join(part) + "\n", encoding="utf-8")
        lines += part
    return lines


def environment(home: Path) -> dict[str, str]:
    """The blocks' environment: this tagpipe first on PYTHONPATH, a `tagpipe` command that
    runs it with this interpreter first on PATH, and no reaching for the Hub."""
    import tagpipe

    root = str(Path(tagpipe.__file__).resolve().parent.parent)
    bin_dir = home / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "tagpipe"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tagpipe "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return dict(
        os.environ,
        PYTHONPATH=path,
        PATH=os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]),
        HF_HUB_OFFLINE="1",
        PYTHONIOENCODING="utf-8",
    )


def engine_outputs(work: Path, lines: list[str]) -> list[str]:
    """Problems with the ids docs/distributed.md's engine examples wrote (none when every id
    equals tokenizers')."""
    import tokenizers

    oracle = tokenizers.Tokenizer.from_file(str(work / "tokenizer.json"))
    problems = []
    for engine in ("datasets", "ray", "spark"):
        if not (work / f"tokenized-{engine}").exists():
            continue
        texts, ids = _read_engine_output(engine, work)
        if texts is None:  # (datasets: the text column was removed; compare as multisets)
            ok = sorted(map(tuple, ids)) == sorted(tuple(e.ids) for e in oracle.encode_batch(lines))
        else:
            # (Ray's read_text drops empty lines: every other line must be there)
            kept = [ln for ln in lines if ln.strip()] if engine == "ray" else lines
            ok = sorted(t for t in texts if t.strip() or engine != "ray") == sorted(kept) and [
                list(r) for r in ids
            ] == [e.ids for e in oracle.encode_batch(texts)]
        print(f"  {engine}: {len(ids)} rows, ids {'equal to tokenizers' if ok else 'DIFFER from tokenizers'}")
        if not ok:
            problems.append(f"{engine}: the ids differ from tokenizers'")
    return problems


def _read_engine_output(engine: str, work: Path) -> tuple[Optional[list[str]], list[list[int]]]:
    """(texts in output order, or None when the example dropped them; ids per row)."""
    import pyarrow.parquet as pq

    if engine == "datasets":
        import datasets

        return None, datasets.load_from_disk(str(work / "tokenized-datasets"))["input_ids"]
    table = pq.read_table(work / f"tokenized-{engine}")
    texts = table.column("text" if engine == "ray" else "value").to_pylist()
    return texts, table.column("input_ids").to_pylist()


def run_page(page: Path, kb: int) -> tuple[int, int, list[str]]:
    """Runs the page's blocks in a fresh directory: (blocks run, blocks skipped, failures)."""
    from tagpipe.cli.resources import bundled_tokenizer_json

    name = page.relative_to(REPO)
    ran, skipped, failures = 0, 0, []
    with tempfile.TemporaryDirectory(prefix=f"tagpipe-docs-{page.stem}-") as tmp:
        work = Path(tmp) / "page"
        (work / "corpus").mkdir(parents=True)
        (work / "tokenizer.json").write_text(bundled_tokenizer_json(), encoding="utf-8")
        lines = make_corpus(work / "corpus", kb)
        env = environment(Path(tmp))
        for n, (line, lang, code) in enumerate(blocks(page), 1):
            where = f"{name}:{line} ({lang})"
            why = missing_requirement(lang, code)
            if why:
                print(f"  skipped {where}: {why}")
                skipped += 1
                continue
            script = Path(tmp) / f"block{n}.{'py' if lang == 'python' else 'sh'}"
            script.write_text(code, encoding="utf-8")
            cmd = [sys.executable, str(script)] if lang == "python" else ["bash", "-e", "-o", "pipefail", str(script)]
            t0 = time.perf_counter()
            try:
                out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
                code_, tail = out.returncode, (out.stdout[-1500:] + out.stderr[-3000:])
            except subprocess.TimeoutExpired:
                code_, tail = "timeout", f"no exit after {BLOCK_TIMEOUT} s"
            ran += 1
            print(f"  {'ok' if code_ == 0 else 'FAILED'} {where} in {time.perf_counter() - t0:.1f} s")
            if code_ != 0:
                failures.append(f"{where} exited with {code_}:\n{tail}")
        try:
            failures += engine_outputs(work, lines)
        except ImportError as err:  # (no engine wrote anything without its own packages)
            print(f"  engine outputs not checked: {err}")
    return ran, skipped, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*", type=Path, help="pages to run (default: README.md and docs/**/*.md)")
    ap.add_argument("--kb", type=int, default=200, help="corpus/ size in kB (default 200)")
    ap.add_argument("--list", action="store_true", help="list the runnable blocks, run nothing")
    args = ap.parse_args()
    chosen = [p.resolve() for p in args.pages] or pages()
    failed = 0
    for page in chosen:
        if args.list:
            for line, lang, _ in blocks(page):
                print(f"{page.relative_to(REPO)}:{line} {lang}")
            continue
        print(f"{page.relative_to(REPO)}:", flush=True)
        ran, skipped, failures = run_page(page, args.kb)
        for f in failures:
            print(f"FAILED {f}")
        print(f"  {ran} blocks run, {skipped} skipped, {len(failures)} failures", flush=True)
        failed += bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
