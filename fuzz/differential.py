"""Differential fuzz harness: tagpipe against the oracle (tokenizers), one input at a time.

`check(data)` turns arbitrary bytes into a test case and raises on any difference:

* first byte even -- **text mode**: the rest is decoded (by `Reader`, below: no atheris
  needed, so pytest replays the corpus) into a text of Unicode scalar values, mixed scripts,
  whitespace runs, contractions, combining marks and the tokenizer's added-token strings
  spliced in, sometimes a lone surrogate.  tagpipe's `encode` (with and without special
  tokens) and `encode_batch_flat` (2 threads) must give the oracle's ids, and raise exactly
  when the oracle raises.
* first byte odd -- **bytes mode**: the rest goes as raw bytes (any, not only UTF-8) to the
  byte-level entry points: `tagpipe.classify` (every kernel == the scalar kernel, every
  alphabet), the native pre-tokenizer and the native encoder.  Invalid UTF-8 must not crash
  them; valid UTF-8 must match the oracle (`pre_tokenize_str`, `encode`).

Which tokenizer an input runs on is chosen by its second byte from `TOKENIZERS`; adding a
tokenizer (e.g. a WordPiece or Unigram one once it is native) is one line there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

# The tokenizers the fuzzer drives (names of <TAGPIPE_TEST_DATA>/tokenizers/<name>/tokenizer.json).
# Add one line per tokenizer; the order fixes which corpus inputs run on which tokenizer, so
# append new names at the end.
TOKENIZERS = [
    "gpt2",
    "llama2",
    "llama3",
    "gpt-4o",
    "qwen3",
    "deepseek-v3",
    "mistral-7b-v0.1",
    "gemma3",
    "all-minilm-l6-v2",
    "bert-wiki",
    "t5-small",
    "marian-ortx-nmt",
    "rwkv-midi-wordlevel",
]
MAX_CHARS = 4000  # longest fuzz text: long enough for runs, short enough for ~100 execs/s

# Fragments that reach the pre-tokenizers' and BPE's special cases (spliced in text mode).
FRAGMENTS = [
    " ",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    " \n ",
    "\u3000",
    "\xa0",
    "\u2009",
    "\x0b",
    "\x0c",
    "\x85",
    "▁",
    "▁▁",
    " ▁",
    "'s",
    "'S",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'d",
    "'ſ",
    "'LL",
    "''",
    "'",
    "\u0301",
    "\u0308\u0301",
    "\u200d",
    "\u200c",
    "\ufe0f",
    "\u20e3",
    "\U0001f44d",
    "\U0001f469\u200d\U0001f4bb",
    "東京",
    "日本語",
    "한국어",
    "ไทย",
    "١٢٣",
    "１２３",
    "12345",
    "3.14",
    "1,000",
    "½",
    "²",
    "Ⅻ",
    "ǅ",
    "İ",
    "ß",
    "ẞ",
    "ﬁ",
    "Σ",
    "ς",
    "ÆØÅ",
    "e\u0301",
    "Å",
    "\u212b",
    "한",
    "\u1100\u1161",
    "\ufeff",
    "\x00",
    "\x7f",
    "\ufffd",
    "\U0010ffff",
    "\U000e0001",
    "\ud7ff",
    "\ue000",
    "<s>",
    "</s>",
    "<unk>",
    "<|endoftext|>",
    "<|",
    "|>",
    "<",
    ">",
    "<<",
    "▁<s>",
    "http://a.b/c?d=e",
    "a-b_c",
    "x=1;y=2",
    "...",
    "!!",
    "?!",
    "—",
    "«»",
    '"',
    "#",
    "@",
    "$",
    "Hello",
    "hello",
    "HELLO",
    "the",
    "The",
    "world",
    "naïve",
    "Ünïcödé",
]
# Unicode blocks a single input byte indexes into (base code points).
BLOCKS = [
    0x20,
    0xA0,
    0x100,
    0x300,
    0x370,
    0x400,
    0x530,
    0x590,
    0x600,
    0x900,
    0xE00,
    0x1100,
    0x1E00,
    0x2000,
    0x2100,
    0x2460,
    0x3000,
    0x3040,
    0x4E00,
    0xAC00,
    0xFB00,
    0xFE00,
    0xFF00,
    0x1D400,
    0x1F300,
    0x1F600,
    0x20000,
    0xE0000,
    0x10FF00,
]


class Reader:
    """Consumes bytes from the front of the input; returns zeros once it is used up."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def left(self) -> int:
        return len(self.data) - self.pos

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def scalar(self) -> str:
        """One Unicode scalar value from 3 bytes (surrogates shifted out of the way)."""
        cp = ((self.byte() << 16) | (self.byte() << 8) | self.byte()) % 0x110000
        if 0xD800 <= cp <= 0xDFFF:
            cp += 0x800
        return chr(cp)


def make_text(r: Reader, added: list[str]) -> str:
    """A text built from the input: each step one op byte, then the op's arguments."""
    out: list[str] = []
    size = 0
    last = ""
    while r.left() > 0 and size < MAX_CHARS:
        op = r.byte() % 8
        if op == 0:  # printable ASCII bytes as they are
            n = r.byte() % 32
            chunk = "".join(chr(0x20 + r.byte() % 95) for _ in range(n))
        elif op == 1:  # arbitrary scalar values
            chunk = "".join(r.scalar() for _ in range(1 + r.byte() % 4))
        elif op == 2:  # an added token's content (special tokens, reserved tokens, ...)
            chunk = added[r.byte() % len(added)] if added else ""
        elif op == 3:
            chunk = FRAGMENTS[r.byte() % len(FRAGMENTS)]
        elif op == 4:  # repeat the last chunk: runs of spaces, ▁, marks, digits, ...
            chunk = last * (r.byte() % 64)
        elif op == 5:  # characters from one Unicode block
            base = BLOCKS[r.byte() % len(BLOCKS)]
            chunk = "".join(chr(min(base + r.byte(), 0x10FFFF)) for _ in range(1 + r.byte() % 8))
        elif op == 6:  # a combining mark piled on the last char
            chunk = chr(0x300 + r.byte() % 0x70) * (1 + r.byte() % 16)
        else:  # rarely: a lone surrogate (both sides must refuse the text)
            chunk = chr(0xD800 + r.byte() * 8) if r.byte() == 0xFF else ""
        out.append(chunk)
        size += len(chunk)
        last = chunk or last
    return "".join(out)[:MAX_CHARS]


class Target:
    """One tokenizer on both sides, loaded once."""

    def __init__(self, name: str, shared: Path):
        import tokenizers

        import tagpipe

        path = shared / "tokenizers" / name / "tokenizer.json"
        text = path.read_text(encoding="utf-8")
        self.name = name
        self.tok = tagpipe.Tokenizer.from_str(text)
        self.oracle = tokenizers.Tokenizer.from_str(text)
        self.added = [t["content"] for t in json.loads(text).get("added_tokens") or []]
        section = json.loads(text).get("pre_tokenizer")
        self.pre = None
        if section is not None:
            with tagpipe.delegation_disabled():
                try:
                    self.pre = tagpipe.PreTokenizer.from_json(section)
                except tagpipe.DelegationError:
                    self.pre = None
        assert self.tok.native, f"{name} is not native:\n{self.tok.explain()}"


_TARGETS: dict[str, Target] = {}


def shared_dir() -> Path:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"


def target(index: int) -> Target:
    name = TOKENIZERS[index % len(TOKENIZERS)]
    if name not in _TARGETS:
        _TARGETS[name] = Target(name, shared_dir())
    return _TARGETS[name]


def outcome(fn):
    """(True, value) or (False, exception class name): an exception is a result too."""
    try:
        return True, fn()
    except Exception as e:  # noqa: BLE001 - compared, not swallowed
        return False, type(e).__name__


def check_text(t: Target, text: str, flags: int) -> None:
    import numpy as np

    for add in (True, False):
        ok_o, want = outcome(lambda: t.oracle.encode(text, add_special_tokens=add).ids)
        ok_t, got = outcome(lambda: t.tok.encode(text, add_special_tokens=add))
        if ok_o != ok_t or (ok_o and got != want):
            raise AssertionError(
                f"{t.name} encode(add_special_tokens={add}) differs on {text!r}:\n  tagpipe {got}\n  oracle  {want}"
            )
    # encode_batch_flat on 2 threads: the text, its halves (a cut anywhere) and an empty text
    cut = (flags * 131) % (len(text) + 1)
    texts = [text[cut:], text, "", text[:cut]]
    add = bool(flags & 1)
    ok_o, want = outcome(lambda: [e.ids for e in t.oracle.encode_batch(texts, add_special_tokens=add)])
    ok_t, got = outcome(lambda: t.tok.encode_batch_flat(texts, add_special_tokens=add, num_threads=2))
    if ok_t:
        ids, offsets = got
        got = [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))]
        assert ids.dtype == np.uint32 and offsets[-1] == len(ids)
    if ok_o != ok_t or (ok_o and got != want):
        raise AssertionError(
            f"{t.name} encode_batch_flat(add_special_tokens={add}) differs on {texts!r}:\n"
            f"  tagpipe {got}\n  oracle  {want}"
        )


def check_bytes(t: Target, data: bytes) -> None:
    import tagpipe
    from tagpipe import _core

    # classify: every kernel == scalar, every alphabet; any bytes
    for alphabet in tagpipe.alphabets():
        ref = _core.classify(data, alphabet, "scalar")
        for kernel in tagpipe.kernels().available:
            tags, starts = _core.classify(data, alphabet, kernel)
            if tags.tobytes() != ref[0].tobytes() or starts.tobytes() != ref[1].tobytes():
                raise AssertionError(f"classify kernel {kernel} != scalar, alphabet {alphabet}, data {data!r}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    # the native pre-tokenizer and encoder take any bytes; valid UTF-8 must match the oracle
    if t.pre is not None and t.pre.native:
        t.pre._native.run(data)
        if text is not None:
            got = t.pre.pre_tokenize_str(text)
            want = t.oracle.pre_tokenizer.pre_tokenize_str(text)
            if got != want:
                raise AssertionError(
                    f"{t.name} pre_tokenize_str differs on {text!r}:\n  tagpipe {got}\n  oracle  {want}"
                )
    for add in (True, False):
        ids = t.tok._native.encode(data, add)
        post = t.tok._post  # (truncation and padding run on the native ids, in tagpipe.plan.post_processors)
        if text is not None and ids is not None and post.active:
            offsets = np.array([0, len(ids)], dtype=np.int64)
            ids = None if post.failing(np.diff(offsets), add)[0] else post.pad(*post.truncate(ids, offsets, add))[0]
        if text is not None and ids is not None:
            want = t.oracle.encode(text, add_special_tokens=add).ids
            if ids.tolist() != want:
                raise AssertionError(
                    f"{t.name} native encode of bytes differs on {text!r}:\n  tagpipe {ids.tolist()}\n  oracle  {want}"
                )


def check(data: bytes) -> None:
    """One fuzz input: raises AssertionError on a difference (see the module docs)."""
    if len(data) < 2:
        return
    t = target(data[1])
    if data[0] % 2 == 0:
        r = Reader(data[2:])
        flags = r.byte()
        check_text(t, make_text(r, t.added), flags)
    else:
        check_bytes(t, data[2:])
