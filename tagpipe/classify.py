"""The tag stream: one pass over UTF-8 that tags every byte with a small alphabet.

Every pre-tokenizer of tagpipe reads this stream instead of running a regex engine.  An
alphabet names the classes one family of pre-tokenizers tells apart; all of them come
from ``tables/gen_tables.py``, which probes the pinned ``tokenizers`` build over every
Unicode scalar value.

Ill-formed UTF-8 (possible only through ``bytes``) is defined, never an error: each byte
that is not part of a well-formed sequence is a one-byte character tagged like U+FFFD.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from tagpipe import _core

Text = Union[str, bytes, bytearray, memoryview]


@dataclass(frozen=True)
class Alphabet:
    name: str
    tags: tuple[str, ...]  # tags[0] is always "Cont"
    fffd_tag: int  # the tag of U+FFFD, given to every ill-formed byte

    def tag_of(self, char: str) -> str:
        """The tag name of one character."""
        if len(char) != 1:
            raise ValueError(f"tag_of expects one character, got {char!r}")
        return self.tags[_core.tag_of(self.name, ord(char))]


def alphabets() -> dict[str, Alphabet]:
    """Every tag alphabet, by name ("regex", "deepseek", "unicode", "scripts")."""
    return {name: Alphabet(name, tuple(tags), fffd) for name, (tags, fffd) in _core.alphabets().items()}


@dataclass(frozen=True)
class Classified:
    """The tag stream of one text.

    ``tags``: uint8[n], one per UTF-8 byte -- the tag of the character starting there, or
    0 (``Cont``) on a continuation byte.  ``starts``: uint64[ceil(n / 64)], bit i % 64 of
    word i // 64 set iff byte i starts a character (bits past n are 0).
    """

    alphabet: Alphabet
    tags: np.ndarray
    starts: np.ndarray

    def __len__(self) -> int:
        return len(self.tags)

    def char_starts(self) -> np.ndarray:
        """The start bitplane as bool[n]."""
        bits = np.unpackbits(self.starts.view(np.uint8), bitorder="little")
        return bits[: len(self.tags)].astype(bool)

    def char_tags(self) -> list[str]:
        """Tag names of the characters, in order (continuation bytes skipped)."""
        names = self.alphabet.tags
        return [names[t] for t in self.tags[self.char_starts()]]


def _utf8_error(text: str, e: UnicodeEncodeError) -> ValueError:
    ch = text[e.start]
    return ValueError(
        f"text contains a lone surrogate U+{ord(ch):04X} at index {e.start}; "
        "tagpipe needs valid Unicode (encode with errors='surrogatepass' and "
        "pass bytes to classify it as ill-formed UTF-8)"
    )


def classify(text: Text, alphabet: str = "regex", *, kernel: Optional[str] = None) -> Classified:
    """Tag every UTF-8 byte of `text` (a str, or bytes that may be ill-formed UTF-8).

    `alphabet` is one of :func:`alphabets`; `kernel` forces one of
    ``tagpipe.kernels().available`` (default: the active kernel).  The GIL is released
    while the kernel runs.

    >>> c = classify("Hi 中!")
    >>> c.char_tags()
    ['Upper', 'Lower', 'Space', 'LetterOther', 'Other']
    """
    table = alphabets().get(alphabet)
    if table is None:
        raise ValueError(f"unknown alphabet {alphabet!r}; choose one of {sorted(alphabets())}")
    if kernel is not None and kernel not in _core.kernels_available():
        raise ValueError(f"kernel {kernel!r} is not available here; available: {', '.join(_core.kernels_available())}")
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"classify expects str or bytes, got {type(text).__name__}")
    try:
        tags, starts = _core.classify(text, alphabet, kernel)
    except UnicodeEncodeError as e:
        raise _utf8_error(text, e) from None  # type: ignore[arg-type]
    return Classified(table, tags, starts)
