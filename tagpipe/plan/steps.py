"""The explain() lines: one `Step` per stage of the file, native or delegated and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


def short_pattern(pattern: str, limit: int = 48) -> str:
    """A pattern as an explain() line quotes it: repr, cut after `limit` characters."""
    return repr(pattern if len(pattern) <= limit else pattern[:limit] + "...")


@dataclass
class Step:
    """One line of explain(): a JSON path, what it is, and how it runs."""

    path: str
    what: str
    native: bool
    how: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what} -> {'native' if self.native else 'DELEGATED'}: {self.how}"


@dataclass
class Plan:
    """The lines of a plan, in pipeline order; native when every line is."""

    steps: list[Step] = field(default_factory=list)
    # (JSON path, why) when the oracle loads the file but panics on every encode that adds the
    # post-processor's special tokens (a template naming a token missing from special_tokens)
    special_tokens_error: Optional[tuple[str, str]] = None

    @property
    def native(self) -> bool:
        return all(s.native for s in self.steps)

    def reasons(self) -> list[str]:
        """The delegated lines."""
        return [str(s) for s in self.steps if not s.native]

    def add(self, path: str, what: str, native: bool, how: str) -> None:
        self.steps.append(Step(path, what, native, how))
