"""`tagpipe encode`: every input kind and output format against the oracle, streaming splits
against a plain reference, invalid UTF-8, interruption, and the progress display."""

from __future__ import annotations

import json
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from tagpipe import cli
from tagpipe.cli import corpus, tokenfile

from support.data import CORPORA, SHARED, corpus_ids, needs_shared

GPT2 = cli.bundled_tokenizer_json()


@pytest.fixture(scope="module")
def oracle():
    return tokenizers.Tokenizer.from_str(GPT2)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tokenizer.json"
    path.write_text(GPT2, encoding="utf-8")
    return str(path)


def docs_of(out):
    ids, idx, meta = tokenfile.read(str(out))
    return [ids[idx[i] : idx[i + 1]].tolist() for i in range(len(idx) - 1)], meta


def run(*argv) -> int:
    return cli.main(["encode", *map(str, argv)])


# -- splitting: streamed in small chunks == the plain definition on the whole text ----------


def ref_split(text: str, split: str, sep: str = "") -> list[str]:
    if split == "lines":
        parts = text.split("\n")
        if parts[-1] == "":
            parts.pop()
        return [p[:-1] if p.endswith("\r") else p for p in parts]
    if split == "separator":
        parts = text.split(sep)
        if parts[-1] == "" and (len(parts) > 1 or not text):
            parts.pop()
        return parts
    parts = [p for p in re.split(r"\n(?:[ \t\r]*\n)+", text) if p.strip(" \t\r\n")]  # blank
    parts = [p[:-1] if p.endswith("\r") else p for p in parts]
    if parts:
        parts[-1] = parts[-1].rstrip("\r\n")
    return parts


PIECES = ["a", "bc", "\n", "\r\n", "\r", " ", "\t", "é", "東", "<|e|>", "<|", "|>"]


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(PIECES), max_size=40),
    chunk=st.sampled_from([1, 2, 3, 5, 64]),
    split=st.sampled_from(["lines", "blank", "separator"]),
)
def test_streamed_split_equals_the_definition(tmp_path_factory, pieces, chunk, split):
    text = "".join(pieces)
    path = tmp_path_factory.mktemp("s") / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    got, consumed = [], 0
    for docs, n in corpus.read_text(str(path), split=split, separator="<|e|>", chunk_bytes=chunk):
        got += docs
        consumed += n
    assert got == ref_split(text, split, "<|e|>")
    assert consumed == len(text.encode("utf-8"))  # every input byte is accounted for once


# -- each input kind, each output format, ids equal to the oracle's -----------------------

TEXT = "Hello world\r\nsecond  line \n\n\n  third: 東京 naïve\n \t\nlast 12345"


@pytest.mark.parametrize("fmt", ["bin", "npy"])
@pytest.mark.parametrize("split", ["file", "lines", "blank", "separator"])
def test_text_inputs_round_trip(tmp_path, model_path, oracle, fmt, split):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(TEXT.encode())
    b.write_bytes("x<|endoftext|>y<|endoftext|>".encode())
    flag = {
        "file": [],
        "lines": ["--lines"],
        "blank": ["--blank-lines"],
        "separator": ["--separator", "<|endoftext|>"],
    }[split]
    out = tmp_path / "out"
    assert run(model_path, a, b, "-o", out, "--format", fmt, *flag) == 0
    want_docs = ref_split(TEXT, split, "<|endoftext|>") if split != "file" else [TEXT]
    want_docs += (
        ref_split("x<|endoftext|>y<|endoftext|>", split, "<|endoftext|>")
        if split != "file"
        else ["x<|endoftext|>y<|endoftext|>"]
    )
    got, meta = docs_of(out)
    assert got == [oracle.encode(d).ids for d in want_docs]
    assert meta["dtype"] == "<u2" and meta["documents"] == len(want_docs)
    names = {"bin": ["out.bin", "out.idx", "out.json"], "npy": ["out.npy", "out.idx.npy", "out.json"]}[fmt]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == sorted(names)
    if fmt == "npy":  # plain numpy reads it
        assert np.load(tmp_path / "out.npy").dtype == np.uint16
        assert np.load(tmp_path / "out.idx.npy")[-1] == meta["tokens"]
    else:
        assert np.fromfile(tmp_path / "out.idx", dtype="<u8")[-1] == meta["tokens"]


def test_jsonl_input(tmp_path, model_path, oracle):
    rows = [
        {"text": "Hello there 😀", "id": 1},
        {"text": ""},
        {"text": "東京 😀 emoji", "x": [1]},
        {"text": "line\nbreaks\r\ninside"},
    ]
    path = tmp_path / "d.jsonl"
    path.write_text(
        "\n".join(json.dumps(r) for r in rows[:2])
        + "\n\n"
        + "\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows[2:])
        + "\n",
        encoding="utf-8",
    )
    assert run(model_path, path, "-o", tmp_path / "o", "--no-special") == 0
    got, meta = docs_of(tmp_path / "o")
    assert got == [oracle.encode(r["text"], add_special_tokens=False).ids for r in rows]
    assert meta["add_special_tokens"] is False
    other = tmp_path / "e.jsonl"
    other.write_text('{"body": "x"}\n', encoding="utf-8")
    assert run(model_path, other, "-o", tmp_path / "o2", "--field", "body") == 0
    assert docs_of(tmp_path / "o2")[0] == [oracle.encode("x").ids]


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"text": "ok"}\n{"text": 5}\n', "line 2: field 'text' is int"),
        ('{"text": "ok"}\n{"txt": "a"}\n', "line 2: no field 'text'"),
        ('{"text": "ok"}\n{"text": "a"\n', "line 2: not JSON"),
        ('{"text": "\\ud800"}\n', "line 1: field 'text' holds a lone surrogate"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path, model_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    assert run(model_path, path, "-o", tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err
    assert not list(tmp_path.glob("o*")) and not list(tmp_path.glob(".o*"))  # nothing left behind


def test_parquet_input(tmp_path, model_path, oracle):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    texts = [f"row {i}: " + "word " * (i % 7) + "東京" * (i % 3) for i in range(3000)]
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": list(range(len(texts))), "content": texts}), path, row_group_size=700)
    assert run(model_path, path, "-o", tmp_path / "o", "--column", "content") == 0
    got, _ = docs_of(tmp_path / "o")
    assert got == [e.ids for e in oracle.encode_batch(texts)]
    assert run(model_path, path, "-o", tmp_path / "o") == 2  # no column "text": named in the error


# -- invalid UTF-8 ------------------------------------------------------------------------


def test_invalid_utf8_strict_replace_skip(tmp_path, model_path, oracle, capsys):
    raw = b"good one\nbad \xff here\nalso good\ntruncated \xe6\x9d\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(raw)
    assert run(model_path, path, "--lines", "-o", tmp_path / "o") == 2
    err = capsys.readouterr().err
    at = raw.index(b"\xff")
    assert f"{path}: invalid UTF-8 at byte {at}" in err
    assert not list(tmp_path.glob("o*"))

    assert run(model_path, path, "--lines", "-o", tmp_path / "r", "--errors", "replace") == 0
    want = [line.decode("utf-8", errors="replace") for line in raw.split(b"\n")[:-1]]
    assert docs_of(tmp_path / "r")[0] == [oracle.encode(t).ids for t in want]

    assert run(model_path, path, "--lines", "-o", tmp_path / "s", "--errors", "skip") == 0
    assert docs_of(tmp_path / "s")[0] == [oracle.encode("good one").ids, oracle.encode("also good").ids]
    assert "skipped 2 documents" in capsys.readouterr().err


# Invalid UTF-8 everywhere a split can meet it: inside a document, right before a separator
# and right after one, a line end after a truncated sequence, a "\r\n" line end, a document
# that is one bad byte, a truncated sequence at the very end.
BAD_TEXT = (
    b"first doc\r\nbad \xff here\n\n  \n\xe6\x9d<|endoftext|>\xc3(after\n\nclean one<|endoftext|>"
    b"only clean<|endoftext|>\n\n\xff\r\n\nmid<|endoftext|>\n  ok \xe2\x82\xac\n\ntail \xf0\x9f\x98"
)
FIRST_BAD = BAD_TEXT.index(b"\xff")
SPLIT_FLAGS = {
    "file": [],
    "lines": ["--lines"],
    "blank": ["--blank-lines"],
    "separator": ["--separator", "<|endoftext|>"],
}


def bad_split(raw: bytes, split: str, errors: str) -> list[str]:
    """The documents of `raw` under `errors`, by the definition: split the text (each invalid
    byte held as a lone surrogate, so that it stays one character), then decode each document
    with U+FFFD (replace) or drop the ones holding an invalid byte (skip)."""
    text = raw.decode("utf-8", errors="surrogateescape")
    docs = [text] if split == "file" else ref_split(text, split, "<|endoftext|>")
    raws = [d.encode("utf-8", errors="surrogateescape") for d in docs]
    if errors == "replace":
        return [r.decode("utf-8", errors="replace") for r in raws]
    return [r.decode("utf-8") for r in raws if r.decode("utf-8", errors="replace") == r.decode("utf-8", "ignore")]


@pytest.mark.parametrize("split", list(SPLIT_FLAGS))
def test_invalid_utf8_in_every_split(tmp_path, model_path, oracle, capsys, split):
    """--errors strict / replace / skip with each split (the whole file, --lines,
    --blank-lines, --separator): ids of the decoded documents as the oracle encodes them, and
    the manifest's document count."""
    path = tmp_path / "bad.txt"
    path.write_bytes(BAD_TEXT)
    flag = SPLIT_FLAGS[split]
    assert run(model_path, path, *flag, "-o", tmp_path / "o") == 2
    assert f"{path}: invalid UTF-8 at byte {FIRST_BAD} " in capsys.readouterr().err
    assert not list(tmp_path.glob("o*"))
    every = len(bad_split(BAD_TEXT, split, "replace"))
    for errors in ("replace", "skip"):
        out = tmp_path / errors
        assert run(model_path, path, *flag, "-o", out, "--errors", errors) == 0
        want = bad_split(BAD_TEXT, split, errors)
        if errors == "skip":  # some documents go, and (but for the whole file) some stay
            assert len(want) < every and (want or split == "file")
        got, meta = docs_of(out)
        assert got == [oracle.encode(d).ids for d in want], errors
        assert meta["documents"] == len(want) and meta["errors"] == errors
        skipped = every - len(want)
        err = capsys.readouterr().err
        assert (f"skipped {skipped} documents" in err) == (errors == "skip"), err


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("split", ["lines", "blank", "separator"])
def test_invalid_utf8_streamed_in_small_chunks(tmp_path, chunk, split):
    """The streaming reader cut into tiny chunks (a bad sequence or a separator straddling two
    of them) gives the definition's documents, and counts the skipped ones."""
    path = tmp_path / "bad.txt"
    path.write_bytes(BAD_TEXT)
    for errors in ("replace", "skip"):
        stats, got = corpus.Stats(), []
        for docs, _ in corpus.read_text(
            str(path), split=split, separator="<|endoftext|>", errors=errors, chunk_bytes=chunk, stats=stats
        ):
            got += docs
        assert got == bad_split(BAD_TEXT, split, errors), errors
        assert stats.skipped == len(bad_split(BAD_TEXT, split, "replace")) - len(got)
    with pytest.raises(corpus.InputError, match=f"byte {FIRST_BAD} "):
        for _ in corpus.read_text(str(path), split=split, separator="<|endoftext|>", chunk_bytes=chunk):
            pass


JSONL_ROWS = [
    b'{"text": "good one"}',
    b'{"text": "bad \xff inside", "id": 2}',
    b"",
    b'{"id": 3, "text": "cut \xe6\x9d"}\r',
    b'{"text": "caf\xc3\xa9 fine"}',
    b'{"text": "lone \\ud800 escape"}',
    b'{"text": "\xf0\x9f\x98\x80 emoji and \xc3("}',
    b'{"text": ""}',
]


def test_jsonl_invalid_utf8_strict_replace_skip(tmp_path, model_path, oracle, capsys):
    """Invalid UTF-8 inside a JSON Lines record: strict stops naming the file and byte;
    replace decodes the line with U+FFFD (a "\\ud800" escape becomes U+FFFD too); skip drops
    the record, counted -- never a silent loss or a shifted document."""
    raw = b"\n".join(JSONL_ROWS) + b"\n"
    path = tmp_path / "bad.jsonl"
    path.write_bytes(raw)
    assert run(model_path, path, "-o", tmp_path / "o") == 2
    at = raw.index(b"\xff")
    assert f"{path}: invalid UTF-8 at byte {at} " in capsys.readouterr().err
    assert not list(tmp_path.glob("o*"))

    lines = [r for r in JSONL_ROWS if r.strip()]
    replaced = [json.loads(r.decode("utf-8", errors="replace"))["text"].replace("\ud800", "\ufffd") for r in lines]
    assert run(model_path, path, "-o", tmp_path / "r", "--errors", "replace") == 0
    got, meta = docs_of(tmp_path / "r")
    assert got == [oracle.encode(t).ids for t in replaced] and meta["documents"] == len(lines) == 7

    kept = ["good one", "café fine", ""]
    assert run(model_path, path, "-o", tmp_path / "s", "--errors", "skip") == 0
    got, meta = docs_of(tmp_path / "s")
    assert got == [oracle.encode(t).ids for t in kept] and meta["documents"] == 3
    assert "skipped 4 documents" in capsys.readouterr().err


def test_parquet_invalid_utf8_and_nulls(tmp_path, model_path, oracle, capsys):
    """A binary Parquet column (read as UTF-8) with invalid bytes and a null: strict names the
    row, replace decodes with U+FFFD (a null stays an error), skip drops both."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    values = [b"row zero", b"bad \xff row", None, "caf\u00e9".encode(), b"\xe6\x9d"]
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": pa.array(values, pa.binary())}), path)
    assert run(model_path, path, "-o", tmp_path / "o") == 2
    assert f"{path}: row 1: invalid UTF-8 at byte 4 " in capsys.readouterr().err
    assert run(model_path, path, "-o", tmp_path / "r", "--errors", "replace") == 2
    assert "row 2: 'text' is null; use --errors skip" in capsys.readouterr().err
    assert run(model_path, path, "-o", tmp_path / "s", "--errors", "skip") == 0
    got, meta = docs_of(tmp_path / "s")
    assert got == [oracle.encode(t).ids for t in ("row zero", "café")] and meta["documents"] == 2
    assert "skipped 3 documents" in capsys.readouterr().err
    pq.write_table(pa.table({"text": pa.array([v for v in values if v is not None], pa.binary())}), path)
    assert run(model_path, path, "-o", tmp_path / "r", "--errors", "replace") == 0
    want = [v.decode("utf-8", errors="replace") for v in values if v is not None]
    assert docs_of(tmp_path / "r")[0] == [oracle.encode(t).ids for t in want]


def test_invalid_utf8_offset_in_a_later_chunk(tmp_path):
    raw = ("é" * 5000 + "\n").encode() * 3 + b"x\xc3(" + b"\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(raw)
    at = raw.index(b"\xc3(")
    with pytest.raises(corpus.InputError, match=f"byte {at} "):
        for _ in corpus.read_text(str(path), split="lines", chunk_bytes=4096):
            pass


# -- the shared corpora, uint32 ids --------------------------------------------------------


@needs_shared
@pytest.mark.parametrize("path", CORPORA, ids=corpus_ids(CORPORA))
def test_corpus_blank_lines_llama3(tmp_path, path):
    model = SHARED / "tokenizers" / "llama3" / "tokenizer.json"
    ref = tokenizers.Tokenizer.from_file(str(model))
    assert (
        run(model, path, "--blank-lines", "-o", tmp_path / "o.npy", "--threads", "2", "--batch-megabytes", "0.5") == 0
    )
    got, meta = docs_of(tmp_path / "o")
    want = ref_split(path.read_bytes().decode("utf-8"), "blank")  # no newline translation
    assert meta["dtype"] == "<u4" and len(got) == len(want)
    sample = random.Random(7).sample(range(len(want)), min(300, len(want)))
    assert [got[i] for i in sample] == [e.ids for e in ref.encode_batch([want[i] for i in sample])]


# -- interruption and progress -------------------------------------------------------------


def _big_input(tmp_path, megabytes=40, unique=False):
    """`megabytes` of lines; with `unique`, every line holds numbers seen nowhere else, so the
    word cache keeps missing and the run takes seconds, not a fraction of one."""
    path = tmp_path / "big.txt"
    line = ("The quick brown fox jumps over the lazy dog, again and again; 0123456789.\n" * 50).encode()
    with open(path, "wb") as f:
        if unique:
            n = 0
            while f.tell() < megabytes * 1e6:
                f.write(
                    "".join(
                        f"row {i} holds {i * 7919 % 1000003} and {i * 104729} quick foxes\n"
                        for i in range(n, n + 20000)
                    ).encode()
                )
                n += 20000
        else:
            for _ in range(int(megabytes * 1e6 / len(line)) + 1):
                f.write(line)
    return path


def _cmd(*argv):
    return [
        sys.executable,
        "-c",
        "import sys; from tagpipe.cli import main; sys.exit(main())",
        "encode",
        *map(str, argv),
    ]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_interrupted_run_leaves_no_complete_output(tmp_path, model_path, sig):
    big = _big_input(tmp_path, 60, unique=True)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        _cmd(model_path, big, "--lines", "-o", out, "--threads", "1", "--batch-megabytes", "1"), cwd=tmp_path
    )
    deadline = time.time() + 60
    while not list(tmp_path.glob(".out.bin.partial-*")) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.01)
    time.sleep(0.2)  # inside the run: some batches written
    proc.send_signal(sig)
    code = proc.wait(timeout=60)
    if code == 0:
        pytest.fail("the run finished before the signal: make the input bigger")
    assert code == (-signal.SIGKILL if sig == signal.SIGKILL else 128 + signal.SIGTERM)
    finals = [p.name for p in tmp_path.iterdir() if p.name.startswith("out")]
    assert finals == []
    with pytest.raises(FileNotFoundError):
        tokenfile.read(str(out))
    if sig == signal.SIGTERM:  # unwound cleanly: the temporary files are gone too
        assert list(tmp_path.glob(".out*")) == []


def test_rerun_replaces_the_output(tmp_path, model_path, oracle):
    a = tmp_path / "a.txt"
    a.write_text("first", encoding="utf-8")
    assert run(model_path, a, "-o", tmp_path / "o") == 0
    a.write_text("second text", encoding="utf-8")
    assert run(model_path, a, "-o", tmp_path / "o") == 0
    assert docs_of(tmp_path / "o")[0] == [oracle.encode("second text").ids]


def test_progress_on_a_terminal_and_quiet_in_a_pipe(tmp_path, model_path):
    big = _big_input(tmp_path, 6)
    piped = subprocess.run(
        _cmd(model_path, big, "--lines", "-o", tmp_path / "p", "--batch-megabytes", "1"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == ""
    # stderr on a pseudo-terminal
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        _cmd(model_path, big, "--lines", "-o", tmp_path / "t", "--batch-megabytes", "1"),
        stdout=subprocess.DEVNULL,
        stderr=slave,
        close_fds=True,
        cwd=tmp_path,
    )
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    text = seen.decode()
    assert "\r" in text and "MB/s" in text and "documents" in text and "tokens" in text
    assert "[" + "#" * 24 + "] 100%" in text  # the bar, full at the end
    assert "wrote t.bin" in text
    forced = subprocess.run(
        _cmd(model_path, big, "--lines", "-o", tmp_path / "f", "--progress"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert "MB/s" in forced.stderr


def test_one_input_uses_the_bundled_tokenizer(tmp_path, oracle):
    a = tmp_path / "a.txt"
    a.write_text("Hello bundled world", encoding="utf-8")
    assert run(a, "-o", tmp_path / "o") == 0
    got, meta = docs_of(tmp_path / "o")
    assert got == [oracle.encode("Hello bundled world").ids] and meta["tokenizer"] == "the bundled GPT-2"


def test_errors_name_the_input(tmp_path, model_path, capsys):
    assert run(model_path, tmp_path / "missing.txt", "-o", tmp_path / "o") == 2
    assert "missing.txt: no such file" in capsys.readouterr().err
    a = tmp_path / "a.txt"
    a.write_text("x", encoding="utf-8")
    assert run(model_path, a, "-o", tmp_path / "nodir" / "o") == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: the splits exclude each other
        cli.main(["encode", model_path, "x", "-o", "o", "--lines", "--blank-lines"])
