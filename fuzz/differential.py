"""Differential fuzz harness: tagpipe against the oracle (tokenizers), one input at a time.

`check(data)` turns arbitrary bytes into a test case and raises on any difference:

* first byte even -- **text mode**: the rest is decoded (by `Reader`, below: no atheris
  needed, so pytest replays the corpus) into a text of Unicode scalar values, mixed scripts,
  whitespace runs, contractions, combining marks and the tokenizer's added-token strings
  spliced in, sometimes a lone surrogate.  tagpipe's `encode` (with and without special
  tokens) and `encode_batch_flat` (2 threads) must give the oracle's ids, and raise exactly
  when the oracle raises (fuzz/compare.py);
* first byte odd -- **bytes mode**: the rest goes as raw bytes (any, not only UTF-8) to the
  byte-level entry points: `tagpipe.classify` (every kernel == the scalar kernel, every
  alphabet), the native pre-tokenizer and the native encoder.  Invalid UTF-8 must not crash
  them; valid UTF-8 must match the oracle (`pre_tokenize_str`, `encode`).

Natively: tagpipe runs under `delegation_disabled`, and a per-call delegation must be one the
tests' rules justify for that text (tests/support/delegation.py), then compared on its own.

Which tokenizer an input runs on: a corpus file names it (fuzz/inputs.py); a raw input from
the fuzzer picks it by its second byte from `TOKENIZERS`.  Adding a tokenizer is one line
there (at the end: the fuzzer's own work directory holds raw inputs).
"""

from __future__ import annotations

from fuzz import compare, inputs

# The tokenizers the fuzzer drives (names of <TAGPIPE_TEST_DATA>/tokenizers/<name>/tokenizer.json).
# Add one line per tokenizer, at the end (a raw input's second byte indexes this list; the
# corpus names its tokenizers).
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


def check(data: bytes) -> None:
    """One fuzz input (named or raw, fuzz/inputs.py): raises AssertionError on a difference."""
    name, raw = inputs.split(data, TOKENIZERS)
    if len(raw) < 2:
        return
    t = compare.target(name if name is not None else TOKENIZERS[raw[1] % len(TOKENIZERS)])
    if raw[0] % 2 == 0:
        r = Reader(raw[2:])
        flags = r.byte()
        compare.check_text(t, make_text(r, t.added), flags)
    else:
        compare.check_bytes(t, raw[2:])
