"""The regex compiler: an Oniguruma pattern (the oracle's engine) in the supported subset ->
a program for the native backtracking matcher (cpp/pretokenize/regex/), or Unsupported
naming the construct.  Design and proof sketch: docs/design/regex.md."""

from __future__ import annotations

from tagpipe.plan.regex.compile import compile_program
from tagpipe.plan.regex.parse import Unsupported, parse

__all__ = ["Unsupported", "compile_regex", "parse"]


def compile_regex(pattern: str) -> list[int]:
    """The matcher's program for `pattern`; raises Unsupported outside the subset."""
    return compile_program(parse(pattern))
