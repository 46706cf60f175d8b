"""The fuzz inputs' file format: which tokenizer an input runs on is written in it.

The fuzzer (fuzz/fuzz.py) makes *raw* inputs: byte 0 chooses the mode, byte 1 the tokenizer,
by its index in `differential.TOKENIZERS` -- an index that means another tokenizer as soon as
the list grows.  So an input kept in fuzz/corpus is *named*: a first line
``tokenizer=<name>`` and then the raw input unchanged (its byte 1 is then ignored):

    python -m fuzz.inputs name RAW_DIR CORPUS_DIR   # name the fuzzer's finds (run.sh --merge)

Named files are called by the SHA-1 of their content, as libFuzzer calls its inputs, so a
merge cannot add the same input twice.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Optional

HEADER = b"tokenizer="


def split(data: bytes, known) -> tuple[Optional[str], bytes]:
    """(the tokenizer a named input names, the raw input after its first line), or (None, data)
    for a raw input -- or a named one whose name is not in `known` (a mutation of the header)."""
    if not data.startswith(HEADER):
        return None, data
    line, newline, raw = data.partition(b"\n")
    name = line[len(HEADER) :].decode("ascii", "replace")
    if not newline or name not in known:
        return None, data
    return name, raw


def name(raw: bytes, tokenizer: str) -> bytes:
    """A raw input, named with the tokenizer it runs on."""
    return HEADER + tokenizer.encode("ascii") + b"\n" + raw


def file_name(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def name_dir(raw_dir: Path, corpus: Path) -> int:
    """Every raw input of `raw_dir` written into `corpus`, named with the tokenizer the fuzzer
    ran it on (inputs already named keep their name); returns how many were new."""
    from fuzz.differential import TOKENIZERS

    added = 0
    for path in sorted(raw_dir.iterdir()):
        data = path.read_bytes()
        tokenizer, raw = split(data, TOKENIZERS)
        if tokenizer is None:
            if len(raw) < 2:
                continue  # (no test case: the harness needs a mode and a tokenizer byte)
            data = name(raw, TOKENIZERS[raw[1] % len(TOKENIZERS)])
        out = corpus / file_name(data)
        if not out.exists():
            out.write_bytes(data)
            added += 1
    return added


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "name":
        sys.exit("usage: python -m fuzz.inputs name RAW_DIR CORPUS_DIR")
    n = name_dir(Path(sys.argv[2]), Path(sys.argv[3]))
    print(f"{sys.argv[3]}: {n} new inputs")
