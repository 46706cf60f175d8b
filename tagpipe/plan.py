"""From a tokenizer.json section to the native plan, or to delegation with a reason.

The plan is a list of stage dicts that ``tagpipe._core.PreTokenizer`` runs (see
cpp/bindings/module.cpp, stage_from).  Every stage either maps to a native state machine
whose output is checked against the oracle by the tests, or the whole section is handed
to ``tokenizers`` -- never approximated.

Regex patterns are recognised by exact spelling: a pattern that differs by one character
from a known one is delegated, not guessed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

# Split regex spellings with a native state machine (cpp/pretokenize/fsm/), as they appear in real
# tokenizer.json files.
KNOWN_PATTERNS: dict[str, str] = {
    # GPT-2 (ByteLevel's own regex)
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+":
        'gpt2',
    # llama-3 / cl100k
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+":
        'cl100k',
    # tiktoken's cl100k spelling: Oniguruma reads \p{N}{1,3}+ as (\p{N}{1,3})+
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+":
        'cl100k_digit_runs',
    # qwen2 / qwen3: single \p{N}
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+":
        'qwen2',
    # o200k (gpt-4o)
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+":
        'o200k',
    # deepseek-v3, first Split
    '\\p{N}{1,3}':
        'deepseek_numbers',
    # deepseek-v3, second Split
    '[一-龥\u3040-ゟ゠-ヿ]+':
        'deepseek_cjk',
    # deepseek-v3, third Split
    '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+':
        'deepseek_words',
    # falcon
    '[0-9][0-9][0-9]':
        'ascii_digit_triples',
}

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


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
    stages: list[dict[str, Any]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    @property
    def native(self) -> bool:
        return all(s.native for s in self.steps)

    def reasons(self) -> list[str]:
        return [str(s) for s in self.steps if not s.native]


class _Planner:
    def __init__(self, absent: Optional[str] = None) -> None:
        self.plan = Plan()
        self.mapped = False  # after ByteLevel, stages read ByteLevel characters
        self.absent = absent  # a character no text reaching the pre-tokenizer holds

    def native(self, path: str, what: str, how: str, stage: dict[str, Any]) -> None:
        self.plan.stages.append(stage)
        self.plan.steps.append(Step(path, what, True, how))

    def delegate(self, path: str, what: str, why: str) -> None:
        self.plan.steps.append(Step(path, what, False, why))

    def pre_tokenizer(self, node: Optional[dict[str, Any]], path: str) -> None:
        if node is None:
            return
        kind = node["type"]
        if kind == "Sequence":
            for i, child in enumerate(node["pretokenizers"]):
                self.pre_tokenizer(child, f"{path}.pretokenizers[{i}]")
            return
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            self.delegate(path, kind, f"no native {kind} yet")
        else:
            handler(node, path)

    # -- one method per "type" --------------------------------------------------------------

    def _ByteLevel(self, n: dict[str, Any], path: str) -> None:
        what = f"ByteLevel(add_prefix_space={n['add_prefix_space']}, use_regex={n['use_regex']})"
        if self.mapped:
            return self.delegate(path, what, "a second ByteLevel would map ByteLevel characters again")
        self.native(path, what, "GPT-2 state machine" if n["use_regex"] else "byte map only",
                    {"kind": "byte_level", "add_prefix_space": n["add_prefix_space"],
                     "use_regex": n["use_regex"]})
        self.mapped = True

    def _Split(self, n: dict[str, Any], path: str) -> None:
        pattern = n["pattern"]
        behavior, invert = n["behavior"], n["invert"]
        if "String" in pattern:
            literal = pattern["String"]
            what = f"Split(String {literal!r}, {behavior}, invert={invert})"
            if literal == "":
                return self.delegate(path, what, "an empty String pattern matches everywhere")
            if not invert and self.absent is not None and self.absent in literal:
                # A Split that matches nothing leaves the piece whole (not proved for an
                # inverted one): no stage (gemma-3: Replace(' ' -> '▁'), then Split(' ')).
                self.plan.steps.append(Step(path, what, True, "skipped: it never matches -- the normalizer's "
                                                              f"last step replaces every {self.absent!r}"))
                return None
            return self.native(path, what, "literal search",
                               {"kind": "literal", "literal": literal, "behavior": behavior, "invert": invert})
        regex = pattern["Regex"]
        family = KNOWN_PATTERNS.get(regex)
        what = f"Split(Regex {_short(regex)}, {behavior}, invert={invert})"
        if family is None:
            return self.delegate(path, what, "unrecognised regex (no native state machine for this spelling)")
        self.native(path, what, f"state machine '{family}'",
                    {"kind": "pattern", "name": family, "behavior": behavior, "invert": invert})

    def _runs(self, path: str, what: str, name: str, behavior: str) -> None:
        self.native(path, what, f"class runs '{name}'", {"kind": "runs", "name": name, "behavior": behavior})

    def _Whitespace(self, n: dict[str, Any], path: str) -> None:
        self._runs(path, "Whitespace", "whitespace", "Removed")

    def _WhitespaceSplit(self, n: dict[str, Any], path: str) -> None:
        self._runs(path, "WhitespaceSplit", "whitespace_split", "Removed")

    def _BertPreTokenizer(self, n: dict[str, Any], path: str) -> None:
        self._runs(path, "BertPreTokenizer", "bert", "Removed")

    def _Punctuation(self, n: dict[str, Any], path: str) -> None:
        self._runs(path, f"Punctuation({n['behavior']})", "punctuation", n["behavior"])

    def _Digits(self, n: dict[str, Any], path: str) -> None:
        individual = n["individual_digits"]
        self._runs(path, f"Digits(individual_digits={individual})", "digits",
                   "Isolated" if individual else "Contiguous")

    def _CharDelimiterSplit(self, n: dict[str, Any], path: str) -> None:
        d = n["delimiter"]
        self.native(path, f"CharDelimiterSplit({d!r})", "literal search",
                    {"kind": "literal", "literal": d, "behavior": "Removed", "invert": False})

    def _Metaspace(self, n: dict[str, Any], path: str) -> None:
        what = (f"Metaspace(replacement={n['replacement']!r}, prepend_scheme={n['prepend_scheme']}, "
                f"split={n['split']})")
        if self.mapped:
            return self.delegate(path, what, "Metaspace after ByteLevel")
        self.native(path, what, "rewrite + literal split",
                    {"kind": "metaspace", "literal": n["replacement"], "prepend": n["prepend_scheme"],
                     "split": n["split"]})

    def _FixedLength(self, n: dict[str, Any], path: str) -> None:
        length = n["length"]
        if length < 1:
            return self.delegate(path, f"FixedLength({length})", "length must be at least 1")
        self.native(path, f"FixedLength({length})", "character count", {"kind": "fixed_length", "length": length})

    def _UnicodeScripts(self, n: dict[str, Any], path: str) -> None:
        self.native(path, "UnicodeScripts", "script runs", {"kind": "scripts"})


def _short(regex: str, limit: int = 48) -> str:
    return repr(regex if len(regex) <= limit else regex[:limit] + "...")


def plan_pre_tokenizer(section: Optional[dict[str, Any]], path: str = "pre_tokenizer",
                       absent: Optional[str] = None) -> Plan:
    """The native plan for a validated, canonical pre_tokenizer section (see tagpipe.spec).
    `absent`: a character the normalizer leaves in no text (a literal Split holding it is
    skipped)."""
    p = _Planner(absent)
    p.pre_tokenizer(section, path)
    if section is None:
        p.plan.steps.append(Step(path, "none", True, "the whole text is one piece"))
    return p.plan
