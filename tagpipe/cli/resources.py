"""What the commands share: a tokenizer from MODEL, the bundled GPT-2, and real text that
every Python install has (the standard library's source)."""

from __future__ import annotations

import gzip
import sysconfig
from importlib import resources
from pathlib import Path

from tagpipe.hub import from_pretrained
from tagpipe.tokenizer import Tokenizer

SENTENCE = "It's 3.5km to 東京, naïve!"
DOC_BYTES = 10_000


def bundled_tokenizer_json() -> str:
    """GPT-2's tokenizer.json, shipped with tagpipe (tagpipe/data/SOURCES.md)."""
    data = resources.files("tagpipe").joinpath("data/gpt2.tokenizer.json.gz").read_bytes()
    return gzip.decompress(data).decode("utf-8")


def load_model(model: str) -> tuple[Tokenizer, str]:
    """A Tokenizer from a tokenizer.json, a directory holding one, "bundled", or a Hub id;
    and how to name it."""
    if model == "bundled":
        return Tokenizer.from_str(bundled_tokenizer_json()), "the bundled GPT-2"
    path = Path(model)
    if path.is_dir():
        path = path / "tokenizer.json"
    return from_pretrained(model), str(path) if path.exists() else f"{model} (Hugging Face Hub)"


def sample_text() -> str:
    return resources.files("tagpipe").joinpath("data/sample.txt").read_text(encoding="utf-8")


def stdlib_documents(megabytes: float) -> list[str]:
    """About `megabytes` of real English and code that every Python install has: the
    standard library's .py files, in a fixed order, cut into ~10 kB documents."""
    root = Path(sysconfig.get_paths()["stdlib"])
    want, docs, size = int(megabytes * 1e6), [], 0
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for i in range(0, len(text), DOC_BYTES):
            docs.append(text[i : i + DOC_BYTES])
            size += len(docs[-1].encode("utf-8"))
            if size >= want:
                return docs
    return docs or [sample_text()]
