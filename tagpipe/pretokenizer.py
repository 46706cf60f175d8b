"""Pre-tokenizers: a tokenizer.json "pre_tokenizer" section, run natively.

    >>> pt = tagpipe.PreTokenizer.from_json({"type": "Whitespace"})
    >>> pt.pre_tokenize_str("Hello, world!")
    [('Hello', (0, 5)), (',', (5, 6)), ('world', (7, 12)), ('!', (12, 13))]

`pre_tokenize_str` returns exactly what `tokenizers` returns: the pieces (after ByteLevel
mapping or Metaspace replacement) with character offsets into the text.  `pre_tokenize`
is the native form the encoder and the benchmarks use: byte ranges as numpy arrays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

from tagpipe import _core
from tagpipe._delegate import DelegationError, delegation_allowed, oracle
from tagpipe.plan import PreTokenizerPlan, plan_pre_tokenizer
from tagpipe.spec import PreTokenizer as PreTokenizerSection
from tagpipe.spec import parse_pre_tokenizer

# ByteLevel: the character each byte stands for (GPT-2's bytes_to_unicode).
_PRINTABLE = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b]
BYTE_CHARS = [""] * 256
for _n, _b in enumerate([b for b in range(256) if b not in _PRINTABLE]):
    BYTE_CHARS[_b] = chr(0x100 + _n)
for _b in _PRINTABLE:
    BYTE_CHARS[_b] = chr(_b)


@dataclass(frozen=True)
class PreTokenized:
    """The native result for one text.

    ``content``: the bytes the pieces index -- the text's UTF-8 unless a stage rewrote it
    (Metaspace, ByteLevel's prefix space); ``byte_mapped``: the pieces are ByteLevel
    pieces (each byte one character); ``pieces``: uint32[n, 2] byte ranges of ``content``;
    ``offsets``: uint32[n, 2] byte ranges of the text's UTF-8 each piece came from.
    """

    content: bytes
    byte_mapped: bool
    pieces: np.ndarray
    offsets: np.ndarray

    def strings(self) -> list[str]:
        c = self.content
        if self.byte_mapped:
            return ["".join([BYTE_CHARS[x] for x in c[b:e]]) for b, e in self.pieces.tolist()]
        return [c[b:e].decode("utf-8") for b, e in self.pieces.tolist()]


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"text contains a lone surrogate U+{ord(text[e.start]):04X} at index {e.start}; tagpipe needs valid Unicode"
        ) from None


def _oracle_pre_tokenizer(section: dict[str, Any]):
    tk = oracle()
    wrapper = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": section,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
    }
    return tk.Tokenizer.from_str(json.dumps(wrapper)).pre_tokenizer


class PreTokenizer:
    """A pre_tokenizer section, native where every stage is, else delegated whole."""

    def __init__(self, section: Optional[PreTokenizerSection], path: str = "pre_tokenizer"):
        """From a parsed section (tagpipe.spec; None: there is none)."""
        self.section = section
        self.plan: PreTokenizerPlan = plan_pre_tokenizer(section, path)
        self.path = path
        self._native = _core.PreTokenizer(self.plan.stages) if self.plan.native else None
        self._oracle = None
        if not self.plan.native:
            if not delegation_allowed():
                raise DelegationError(f"{path} would be delegated to tokenizers: " + "; ".join(self.plan.reasons()))
            self._oracle = _oracle_pre_tokenizer(None if section is None else section.to_json())

    @classmethod
    def from_json(cls, section: Union[str, dict[str, Any], None], path: str = "pre_tokenizer") -> "PreTokenizer":
        """From a tokenizer.json "pre_tokenizer" section (a dict, JSON text, or None)."""
        if isinstance(section, str):
            section = json.loads(section)
        return cls(parse_pre_tokenizer(section, path), path)

    @property
    def native(self) -> bool:
        return self._native is not None

    def explain(self) -> str:
        """One line per stage: native or delegated, and why."""
        head = f"{self.path}: " + ("native" if self.native else "DELEGATED to tokenizers (whole section)")
        return "\n".join([head] + ["  " + str(s) for s in self.plan.steps])

    def pre_tokenize(self, text: str) -> PreTokenized:
        """The native form: byte ranges (numpy) of the pieces and of where they came from."""
        if self._native is None:
            raise DelegationError(
                f"{self.path} is delegated; only pre_tokenize_str is available: " + "; ".join(self.plan.reasons())
            )
        data = _utf8(text)
        content, mapped, pieces, offsets = self._native.run(data)
        return PreTokenized(data if content is None else content, mapped, pieces, offsets)

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Exactly what tokenizers' ``pre_tokenize_str`` returns: (piece, (char start, char end))."""
        if self._native is None:
            return self._oracle.pre_tokenize_str(text)
        out = self.pre_tokenize(text)
        data = _utf8(text)
        # char index of every byte (+ one past the end), as the oracle's offset converter
        starts = (np.frombuffer(data, np.uint8) & 0xC0) != 0x80
        char_of = np.append(np.cumsum(starts) - 1, len(text)).astype(np.int64)
        char_offsets = char_of[out.offsets].tolist() if len(out.offsets) else []
        return [(s, (a, b)) for s, (a, b) in zip(out.strings(), char_offsets)]
