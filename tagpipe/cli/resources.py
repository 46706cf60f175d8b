"""What the commands share: a tokenizer from MODEL, the bundled GPT-2, and real text that
every Python install has (the standard library's source)."""

from __future__ import annotations

import gzip
import sysconfig
from importlib import resources
from pathlib import Path

from tagpipe.hub import CONFIG_FILE, SENTENCEPIECE_FILE, TOKENIZER_FILE, from_pretrained
from tagpipe.spec import TokenizerJsonError
from tagpipe.tokenizer import Tokenizer

SENTENCE = "It's 3.5km to 東京, naïve!"
DOC_BYTES = 10_000


def bundled_tokenizer_json() -> str:
    """GPT-2's tokenizer.json, shipped with tagpipe (tagpipe/data/SOURCES.md)."""
    data = resources.files("tagpipe").joinpath("data/gpt2.tokenizer.json.gz").read_bytes()
    return gzip.decompress(data).decode("utf-8")


MODEL_IS = "MODEL is a tokenizer.json, a tokenizer.model, a directory holding one, a Hub id or 'bundled'"


def _not_a_tokenizer(err: TokenizerJsonError) -> bool:
    """An error about the document as a whole (not JSON, not an object, not UTF-8, keys no
    tokenizer.json has, no model): the file is something else, not a broken tokenizer."""
    top = "." not in err.path and "[" not in err.path
    return err.path == "" or (top and ("top-level" in err.message or "missing" in err.message))


def load_model(model: str) -> tuple[Tokenizer, str]:
    """A Tokenizer from a tokenizer.json, a tokenizer.model, a directory holding either,
    "bundled", or a Hub id; and how to name it.  A file that is not a tokenizer says so,
    naming the argument and what MODEL may be."""
    if model == "bundled":
        return Tokenizer.from_str(bundled_tokenizer_json()), "the bundled GPT-2"
    path = Path(model)
    if path.is_dir():
        path = path / TOKENIZER_FILE
    try:
        tok = from_pretrained(model)
    except TokenizerJsonError as err:
        if _not_a_tokenizer(err):
            raise ValueError(f"MODEL {model!r}: not a tokenizer.json ({err}); {MODEL_IS}") from None
        raise ValueError(f"MODEL {model!r}: {err}") from None
    return tok, str(path) if path.exists() else f"{model} (Hugging Face Hub)"


def model_files(model: str) -> list[str]:
    """The local files MODEL names (none for "bundled" or a Hub id): what an output must not
    overwrite."""
    path = Path(model)
    if model == "bundled" or not path.exists():
        return []
    if path.is_dir():
        return [str(path / f) for f in (TOKENIZER_FILE, SENTENCEPIECE_FILE, CONFIG_FILE) if (path / f).exists()]
    return [str(path)]


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
