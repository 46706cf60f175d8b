"""The Replace normalizer with a compiled regex (normalize::Step::Kind::RegexReplace): every
match onig's ``find_iter`` gives -- empty ones too, where the content is inserted -- replaced,
as the oracle's ``NormalizedString::replace`` does.  Against the oracle's ``normalize_str``
(hand cases, generated patterns, corpora, hypothesis text, every scalar value between letters
with ``--run-slow``), and through whole tokenizers for the origins Metaspace's
``prepend_scheme: "first"`` reads: the content takes the origin of the match's last character
(for an empty match, of the character before it; at the start, offset 0).
"""

from __future__ import annotations

import json
import random

import pytest
import tokenizers
from hypothesis import assume, given
from hypothesis import strategies as st

import tagpipe
from tagpipe import _core
from tagpipe.plan import Plan, plan_normalizer
from tagpipe.plan.regex import Unsupported, compile_regex
from tagpipe.spec import parse_normalizer

from support import strategies as S
from support.data import needs_shared
from support.parity import bpe_json
from support.regex import HYPOTHESIS, SCALARS, corpus_texts
from support.strategies import minimal_tokenizer_json

PATTERNS = [
    r"\s+",
    r"[aeiou]+|\d",
    r"\p{Han}",
    r"\p{P}+",
    r"(?i:ab)",
    r" ?\p{L}+",
    r"\s+(?!\S)",
    "x*",
    "",
    r"(?=(\d{3})+(?!\d))",
    r"\b",
    "$",
    "^",
    "a|(?=c)",
    "a*(?=b)|b",
]
CONTENTS = ["", "-", "▁", "<sp>", "é中"]


def replace(pattern: str, content: str, kind: str = "Regex") -> dict:
    return {"type": "Replace", "pattern": {kind: pattern}, "content": content}


def steps(node: dict) -> list:
    plan = Plan()
    out = plan_normalizer(parse_normalizer(node), "normalizer", plan)
    assert plan.native, plan.reasons()
    return out


def oracle(node: dict):
    return tokenizers.Tokenizer.from_str(minimal_tokenizer_json(node, "normalizer")).normalizer


def check(node: dict, texts: list[str]) -> None:
    ours, theirs = steps(node), oracle(node)
    for text in texts:
        got, want = _core.normalize(ours, text), theirs.normalize_str(text)
        assert got == want, f"{json.dumps(node, ensure_ascii=False)} on {text[:200]!r}: {got!r} != {want!r}"


def _texts(seed: int, n: int = 120) -> list[str]:
    rng = random.Random(seed)
    hand = ["", "a", "abc", "a  b", "1234567", "é中 x\n", "  lead  ", "ab\n\n", "中文字 ab", "'s 'T"]
    return hand + ["".join(rng.choice("ab x1\n2é3c中'.") for _ in range(rng.randint(0, 16))) for _ in range(n)]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_regex_replace_equals_the_oracle(pattern):
    texts = _texts(53)
    for content in CONTENTS:
        check(replace(pattern, content), texts)


def test_an_empty_string_pattern_inserts_everywhere():
    node = replace("", "-", "String")
    plan = Plan()
    plan_normalizer(parse_normalizer(node), "normalizer", plan)
    assert plan.steps[0].how == "compiled regex"
    check(node, _texts(59, 30))


def test_in_a_sequence():
    node = {
        "type": "Sequence",
        "normalizers": [{"type": "NFKD"}, replace(r"\p{Mn}+", ""), replace(r"\s+", " "), {"type": "Lowercase"}],
    }
    check(node, _texts(61) + ["Ｃafé  Naïve\tÅNGSTRÖM", "ﬁ ｶ ①"])


def test_unsupported_regex_is_delegated_with_the_construct():
    pt = tagpipe.Tokenizer.from_str(_metaspace_first_file(replace(r"(?<=a)b", "x")))
    assert not pt.native
    assert "not supported: group '(?<=' at offset 0" in pt.explain()


@needs_shared
@pytest.mark.parametrize("pattern", [r"\s+", r"\p{P}+", r"(?=(\d{3})+(?!\d))", r"\b"])
def test_regex_replace_on_corpora(pattern):
    check(replace(pattern, "▁"), corpus_texts(30, seed=67))


@pytest.mark.parametrize("pattern", [r"\s+", "x*", r"\b\w"])
@HYPOTHESIS
@given(text=S.text())
def test_regex_replace_hypothesis_text(pattern, text):
    check(replace(pattern, "<>"), [text])


_LEAVES = ["a", "b", " ", "\\d", "\\s", "\\w", "[ab]", ".", "é", "\\p{Han}", "(?=a)", "(?!\\s)", "\\b", "$"]
_QUANT = ["", "", "?", "*", "+", "*?", "+?", "{2}", "{1,2}", "++"]


@HYPOTHESIS
@given(
    pattern=st.lists(
        st.lists(st.builds(lambda a, q: a + q, st.sampled_from(_LEAVES), st.sampled_from(_QUANT)), max_size=3).map(
            "".join
        ),
        min_size=1,
        max_size=3,
    ).map("|".join),
    content=st.sampled_from(CONTENTS),
)
def test_generated_patterns(pattern, content):
    try:
        compile_regex(pattern)
    except Unsupported:
        assume(False)
    check(replace(pattern, content), _texts(71, 30))


def test_every_scalar_between_letters():
    texts = ["".join("a" + chr(c) + "b " for c in SCALARS[i : i + 8192]) for i in range(0, len(SCALARS), 8192)]
    for pattern in (r"\s+|\p{Han}", r"[^\p{L}\s]+|\b"):
        check(replace(pattern, "▁"), texts)


# -- the origins Metaspace(prepend_scheme="first") reads -------------------------------------------


def _metaspace_first_file(normalizer: dict) -> str:
    chars = sorted(set("▁abcdxy-é中 ") | {"<unk>"})
    merges = [("▁", "a"), ("▁", "b"), ("▁", "x"), ("▁", "-"), ("▁", "c")]
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}
    return bpe_json(chars + [a + b for a, b in merges], merges, unk="<unk>", normalizer=normalizer, pre=metaspace)


FIRST_NORMALIZERS = [replace(p, c) for p, c in [("ab", "x"), ("a", "x"), ("x*", "-"), ("^", "-"), (r"\b", "-")]]
FIRST_NORMALIZERS += [replace(p, c) for p, c in [("(?=b)", "c"), (r"\s+", ""), ("a|(?=c)", "-")]]
# an empty match at the start of a text whose first characters were removed: offset 0, not the
# origin of the character after it
FIRST_NORMALIZERS += [{"type": "Sequence", "normalizers": [replace("a", "", "String"), replace("^|(?=d)", "-")]}]


@pytest.mark.parametrize("node", FIRST_NORMALIZERS, ids=lambda n: json.dumps(n, ensure_ascii=False))
def test_metaspace_first_origins(node):
    doc = _metaspace_first_file(node)
    oracle_tok = tokenizers.Tokenizer.from_str(doc)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(doc)
    for text in ["abd", "ab d", "a b", "bd", "b", "cab", " ab", "  a", "d ab", "é中a", "a\u0301b", "aad", "ad"]:
        assert tok.encode(text, add_special_tokens=False) == oracle_tok.encode(text, add_special_tokens=False).ids, text
