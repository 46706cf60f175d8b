# Stubs for tagpipe._core.testing (cpp/bindings/testing.cpp): the hooks only tests and
# benchmarks use -- one kernel alone, and timed loops that count only the native calls.
from typing import Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from tagpipe._core import NormalizerStep, PreTokenizerStage

_Bytes = Union[str, bytes, bytearray, memoryview]

def replace_byte(data: _Bytes, from_byte: int, to: bytes, kernel: Optional[str] = None) -> bytes: ...
def mark_masks(
    data: _Bytes, mark: bytes, after: Optional[bytes] = None, kernel: Optional[str] = None
) -> list[tuple[int, int, int]]:
    """(runs, pairs, after) of each 64-byte block, as cpp/kernels/marks/marks.h defines them."""

def find_bytes(data: _Bytes, set: bytes, kernel: Optional[str] = None) -> list[int]:
    """The mask of the bytes in `set` of each 64-byte block."""

def transcode(text: str, kernel: Optional[str] = None) -> bytes:
    """The str's UTF-8, by one transcode kernel."""

def time_classify(data: _Bytes, offsets: npt.NDArray[np.int64], alphabet: str, kernel: Optional[str] = None) -> int:
    """Nanoseconds inside the classify calls over data[offsets[i]:offsets[i + 1]]."""

def time_transcode(texts: list[str], kernel: Optional[str] = None) -> int:
    """Nanoseconds inside the transcode calls."""

def normalize_timed(steps: Sequence[NormalizerStep], texts: list[str]) -> tuple[list[Optional[str]], int]:
    """(each text normalized or None, nanoseconds inside the runs)."""

def time_pre_tokenizer(
    stages: Sequence[PreTokenizerStage], data: _Bytes, offsets: npt.NDArray[np.int64]
) -> tuple[int, int]:
    """(nanoseconds inside the pre-tokenizer calls, pieces) over data[offsets[i]:offsets[i + 1]]."""
