"""The ``pre_tokenizer`` section -> native stages (``_core.PreTokenizerStage``), or the
section delegated whole with the reason.

Every stage either maps to a native state machine whose output the tests check against the
oracle, or the whole section is handed to ``tokenizers`` -- never approximated.  A Split regex
with a hand-written state machine is recognised by its exact spelling; any other is compiled
(tagpipe/plan/regex/) when it lies in the supported subset, else delegated with the construct
named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from tagpipe import _core, spec
from tagpipe.plan.regex import Unsupported, compile_regex
from tagpipe.plan.steps import Plan, short_pattern

Stage = _core.PreTokenizerStage
Kind = _core.PreTokenizerStage.Kind

# Split regex spellings with a native state machine (cpp/pretokenize/fsm/), as they appear in real
# tokenizer.json files.
KNOWN_PATTERNS: dict[str, str] = {
    # GPT-2 (ByteLevel's own regex)
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+": "gpt2",
    # llama-3 / cl100k
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "cl100k",
    # tiktoken's cl100k spelling: Oniguruma reads \p{N}{1,3}+ as (\p{N}{1,3})+
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "cl100k_digit_runs",
    # qwen2 / qwen3: single \p{N}
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "qwen2",
    # o200k (gpt-4o)
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "o200k",
    # deepseek-v3, first Split
    "\\p{N}{1,3}": "deepseek_numbers",
    # deepseek-v3, second Split
    "[一-龥\u3040-ゟ゠-ヿ]+": "deepseek_cjk",
    # deepseek-v3, third Split
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+": "deepseek_words",
    # falcon
    "[0-9][0-9][0-9]": "ascii_digit_triples",
}

_PREPEND = {"always": Stage.Prepend.Always, "first": Stage.Prepend.First, "never": Stage.Prepend.Never}


def _behavior(name: str) -> _core.Behavior:
    return _core.Behavior.__members__[name]


@dataclass
class PreTokenizerPlan(Plan):
    """The explain() lines and, where every line is native, the stages to run."""

    stages: list[_core.PreTokenizerStage] = field(default_factory=list)


class _Planner:
    def __init__(self, absent: Optional[str]) -> None:
        self.plan = PreTokenizerPlan()
        self.mapped = False  # after ByteLevel, stages read ByteLevel characters
        self.absent = absent  # a character no text reaching the pre-tokenizer holds

    def native(self, path: str, what: str, how: str, stage: _core.PreTokenizerStage) -> None:
        self.plan.stages.append(stage)
        self.plan.add(path, what, True, how)

    def delegate(self, path: str, what: str, why: str) -> None:
        self.plan.add(path, what, False, why)

    def visit(self, node: spec.PreTokenizer, path: str) -> None:
        if isinstance(node, spec.PreTokenizerSequence):
            for i, child in enumerate(node.pretokenizers):
                self.visit(child, f"{path}.pretokenizers[{i}]")
            return
        handler = _HANDLERS.get(type(node))
        if handler is None:
            self.delegate(path, node.type, f"no native {node.type} yet")
        else:
            handler(self, node, path)


# -- one function per pre-tokenizer ----------------------------------------------------------


def _byte_level(p: _Planner, n: spec.ByteLevelPreTokenizer, path: str) -> None:
    what = f"ByteLevel(add_prefix_space={n.add_prefix_space}, use_regex={n.use_regex})"
    if p.mapped:
        return p.delegate(path, what, "a second ByteLevel would map ByteLevel characters again")
    p.native(
        path,
        what,
        "GPT-2 state machine" if n.use_regex else "byte map only",
        Stage(kind=Kind.ByteLevel, add_prefix_space=n.add_prefix_space, use_regex=n.use_regex),
    )
    p.mapped = True


def _split(p: _Planner, n: spec.Split, path: str) -> None:
    behavior, invert = n.behavior, n.invert
    if n.pattern.kind == "String":
        literal = n.pattern.value
        what = f"Split(String {literal!r}, {behavior}, invert={invert})"
        if literal == "":  # onig compiles it as the empty regex, which matches everywhere
            return _compiled(p, n, path, what)
        if not invert and p.absent is not None and p.absent in literal:
            # A Split that matches nothing leaves the piece whole (not proved for an inverted
            # one): no stage (gemma-3: Replace(' ' -> '▁'), then Split(' ')).
            p.plan.add(
                path, what, True, f"skipped: it never matches -- the normalizer's last step replaces every {p.absent!r}"
            )
            return None
        return p.native(
            path,
            what,
            "literal search",
            Stage(kind=Kind.Literal, literal=literal, behavior=_behavior(behavior), invert=invert),
        )
    regex = n.pattern.value
    family = KNOWN_PATTERNS.get(regex)
    what = f"Split(Regex {short_pattern(regex)}, {behavior}, invert={invert})"
    if family is None:
        return _compiled(p, n, path, what)
    p.native(
        path,
        what,
        f"state machine '{family}'",
        Stage(kind=Kind.Pattern, name=family, behavior=_behavior(behavior), invert=invert),
    )


def _compiled(p: _Planner, n: spec.Split, path: str, what: str) -> None:
    try:
        program = compile_regex(n.pattern.value)
    except Unsupported as e:
        return p.delegate(path, what, f"regex {e} (no native state machine for this spelling)")
    p.native(path, what, "compiled regex", regex_stage(program, n.behavior, n.invert))


def regex_stage(program: list[int], behavior: str, invert: bool) -> _core.PreTokenizerStage:
    """The stage running a compiled regex program (tagpipe.plan.regex.compile_regex)."""
    return Stage(kind=Kind.Regex, program=program, behavior=_behavior(behavior), invert=invert)


def _runs(p: _Planner, path: str, what: str, name: str, behavior: str) -> None:
    p.native(path, what, f"class runs '{name}'", Stage(kind=Kind.Runs, name=name, behavior=_behavior(behavior)))


def _whitespace(p: _Planner, n: spec.Whitespace, path: str) -> None:
    _runs(p, path, "Whitespace", "whitespace", "Removed")


def _whitespace_split(p: _Planner, n: spec.WhitespaceSplit, path: str) -> None:
    _runs(p, path, "WhitespaceSplit", "whitespace_split", "Removed")


def _bert(p: _Planner, n: spec.BertPreTokenizer, path: str) -> None:
    _runs(p, path, "BertPreTokenizer", "bert", "Removed")


def _punctuation(p: _Planner, n: spec.Punctuation, path: str) -> None:
    _runs(p, path, f"Punctuation({n.behavior})", "punctuation", n.behavior)


def _digits(p: _Planner, n: spec.Digits, path: str) -> None:
    _runs(
        p,
        path,
        f"Digits(individual_digits={n.individual_digits})",
        "digits",
        "Isolated" if n.individual_digits else "Contiguous",
    )


def _char_delimiter_split(p: _Planner, n: spec.CharDelimiterSplit, path: str) -> None:
    p.native(
        path,
        f"CharDelimiterSplit({n.delimiter!r})",
        "literal search",
        Stage(kind=Kind.Literal, literal=n.delimiter, behavior=_core.Behavior.Removed, invert=False),
    )


def _metaspace(p: _Planner, n: spec.Metaspace, path: str) -> None:
    what = f"Metaspace(replacement={n.replacement!r}, prepend_scheme={n.prepend_scheme}, split={n.split})"
    if p.mapped:
        return p.delegate(path, what, "Metaspace after ByteLevel")
    p.native(
        path,
        what,
        "rewrite + literal split",
        Stage(kind=Kind.Metaspace, literal=n.replacement, prepend=_PREPEND[n.prepend_scheme], split=n.split),
    )


def _fixed_length(p: _Planner, n: spec.FixedLength, path: str) -> None:
    if n.length < 1:
        return p.delegate(path, f"FixedLength({n.length})", "length must be at least 1")
    p.native(path, f"FixedLength({n.length})", "character count", Stage(kind=Kind.FixedLength, length=n.length))


def _unicode_scripts(p: _Planner, n: spec.UnicodeScripts, path: str) -> None:
    p.native(path, "UnicodeScripts", "script runs", Stage(kind=Kind.Scripts))


_HANDLERS: dict[type, Callable] = {
    spec.ByteLevelPreTokenizer: _byte_level,
    spec.Split: _split,
    spec.Whitespace: _whitespace,
    spec.WhitespaceSplit: _whitespace_split,
    spec.BertPreTokenizer: _bert,
    spec.Punctuation: _punctuation,
    spec.Digits: _digits,
    spec.CharDelimiterSplit: _char_delimiter_split,
    spec.Metaspace: _metaspace,
    spec.FixedLength: _fixed_length,
    spec.UnicodeScripts: _unicode_scripts,
}


def plan_pre_tokenizer(
    section: Optional[spec.PreTokenizer], path: str = "pre_tokenizer", absent: Optional[str] = None
) -> PreTokenizerPlan:
    """The native plan of a parsed ``pre_tokenizer`` section (None: there is none).  `absent`:
    a character the normalizer leaves in no text (a literal Split holding it is skipped)."""
    p = _Planner(absent)
    if section is None:
        p.plan.add(path, "none", True, "the whole text is one piece")
    else:
        p.visit(section, path)
    return p.plan


def byte_level(stages: list[_core.PreTokenizerStage]) -> bool:
    """Whether these stages hand the model ByteLevel pieces."""
    return any(s.kind == Kind.ByteLevel for s in stages)
