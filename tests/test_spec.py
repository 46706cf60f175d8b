"""tagpipe.spec against the oracle.

The authority is ``tokenizers.Tokenizer.from_str`` on a minimal tokenizer.json around the
section: ``parse_*`` must accept exactly what it accepts, and ``to_json()`` must equal what it
writes back.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


from tagpipe import spec  # noqa: E402
from tagpipe.spec._base import _regex_error  # noqa: E402

PARSE = {"pre_tokenizer": spec.parse_pre_tokenizer, "normalizer": spec.parse_normalizer}
REJECTED = object()


def _shared_tokenizers():
    env = os.environ.get("TAGPIPE_TEST_DATA")
    root = Path(env) if env else REPO.parent / "shared"
    return sorted((root / "tokenizers").glob("*/tokenizer.json"))


TOKENIZER_FILES = _shared_tokenizers()


def oracle(which, section):
    """The oracle's own serialization of ``section``, or REJECTED."""
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
    }
    doc[which] = section
    try:
        tok = tokenizers.Tokenizer.from_str(json.dumps(doc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # a bad Precompiled panics: pyo3's PanicException is a BaseException
        return REJECTED
    return json.loads(tok.to_str())[which]


def ours(which, section):
    """(canonical JSON or REJECTED, error or None) from tagpipe.spec."""
    try:
        model = PARSE[which](section)
    except spec.TokenizerJsonError as exc:
        return REJECTED, exc
    return (None if model is None else model.to_json()), None


def check_same(which, section):
    expected = oracle(which, section)
    got, error = ours(which, section)
    if expected is REJECTED:
        assert got is REJECTED, f"oracle rejects, spec accepts: {section!r} -> {got!r}"
    else:
        assert got is not REJECTED, f"oracle accepts, spec rejects: {section!r}: {error}"
        assert got == expected
    return error


# ---------------------------------------------------------------------------- real files


@functools.lru_cache(maxsize=None)
def _sections(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return doc.get("normalizer"), doc.get("pre_tokenizer")


REAL = [
    pytest.param(path, which, id=f"{path.parent.name}-{which}")
    for path in TOKENIZER_FILES
    for which in ("normalizer", "pre_tokenizer")
]


@pytest.mark.skipif(not TOKENIZER_FILES, reason="no TAGPIPE_TEST_DATA / ../shared/tokenizers")
@pytest.mark.parametrize("path, which", REAL)
def test_real_sections_round_trip(path, which):
    section = _sections(path)[0 if which == "normalizer" else 1]
    model = PARSE[which](section)
    expected = oracle(which, section)
    if section is None:
        assert model is None and expected is None
        return
    canonical = model.to_json()
    assert canonical == expected
    assert oracle(which, canonical) == expected
    assert PARSE[which](canonical) == model


# ---------------------------------------------------------------------------- variant table

BL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
MS = {"type": "Metaspace", "replacement": "▁"}
SP = {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": False}
BERT = {
    "type": "BertNormalizer",
    "clean_text": True,
    "handle_chinese_chars": True,
    "strip_accents": None,
    "lowercase": True,
}
REPL = {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
SEQ_P = {"type": "Sequence", "pretokenizers": []}
SEQ_N = {"type": "Sequence", "normalizers": []}


def _with(base, **changes):
    """``base`` with keys set; a key set to _DROP is removed."""
    out = dict(base, **changes)
    return {k: v for k, v in out.items() if v is not _DROP}


_DROP = object()


def _nest(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


def _nest_sequence(depth):
    """Sequences inside Sequences: each level costs serde_json two levels (object and array)."""
    value = {"type": "Whitespace"}
    for _ in range(depth):
        value = {"type": "Sequence", "pretokenizers": [value]}
    return value


PRE_VARIANTS = [
    # (section, expected error path or None when accepted / not asserted)
    ({"type": "BertPreTokenizer"}, None),
    ({"type": "BertPreTokenizer", "x": 1}, None),
    (["BertPreTokenizer"], None),
    (["Whitespace"], None),
    ([{"Whitespace": None}], None),
    (["Whitespace", 1], "pre_tokenizer"),
    ([{"Whitespace": {}}], "pre_tokenizer"),
    (["UnicodeScripts"], None),
    (["WhitespaceSplit"], None),
    (["Punctuation"], "pre_tokenizer"),
    (["Digits", True], "pre_tokenizer"),
    (["FixedLength"], "pre_tokenizer"),
    (["ByteLevel", True, False], "pre_tokenizer"),
    (["Sequence", []], "pre_tokenizer"),
    ({"type": "ByteLevel"}, "pre_tokenizer.add_prefix_space"),
    ({"type": "ByteLevel", "add_prefix_space": True}, "pre_tokenizer.trim_offsets"),
    (BL, None),
    (_with(BL, use_regex=False), None),
    (_with(BL, extra=[1, 2]), None),
    (_with(BL, add_prefix_space=1), "pre_tokenizer.add_prefix_space"),
    (_with(BL, use_regex=None), "pre_tokenizer.use_regex"),
    (_with(BL, trim_offsets="true"), "pre_tokenizer.trim_offsets"),
    ({"add_prefix_space": True, "trim_offsets": False}, "pre_tokenizer"),
    ({"type": "Delimiter", "delimiter": "x"}, "pre_tokenizer.type"),
    ({"type": "CharDelimiterSplit", "delimiter": "x"}, None),
    ({"type": {"CharDelimiterSplit": None}, "delimiter": "x"}, None),
    ({"type": {"CharDelimiterSplit": {}}, "delimiter": "x"}, "pre_tokenizer.type"),
    ({"type": "CharDelimiterSplit", "delimiter": "xy"}, "pre_tokenizer.delimiter"),
    ({"type": "CharDelimiterSplit", "delimiter": ""}, "pre_tokenizer.delimiter"),
    ({"type": "CharDelimiterSplit", "delimiter": "😀"}, None),
    ({"type": "CharDelimiterSplit"}, "pre_tokenizer.delimiter"),
    (["CharDelimiterSplit", "x"], "pre_tokenizer"),
    (MS, None),
    ({"type": "Metaspace"}, "pre_tokenizer.replacement"),
    (_with(MS, replacement="ab"), "pre_tokenizer.replacement"),
    (_with(MS, replacement=""), "pre_tokenizer.replacement"),
    (_with(MS, replacement=None), "pre_tokenizer.replacement"),
    (_with(MS, add_prefix_space=True), None),
    (_with(MS, add_prefix_space=None), None),
    (_with(MS, add_prefix_space=False), "pre_tokenizer.add_prefix_space"),
    (_with(MS, add_prefix_space=False, prepend_scheme="never"), None),
    (_with(MS, add_prefix_space=False, prepend_scheme="first"), "pre_tokenizer.add_prefix_space"),
    (_with(MS, add_prefix_space=False, prepend_scheme={"never": None}), None),
    (_with(MS, add_prefix_space=True, prepend_scheme="never"), None),
    (_with(MS, add_prefix_space=1), "pre_tokenizer.add_prefix_space"),
    (_with(MS, add_prefix_space=False, prepend_scheme="Never"), "pre_tokenizer.prepend_scheme"),
    (_with(MS, prepend_scheme="First"), "pre_tokenizer.prepend_scheme"),
    (_with(MS, prepend_scheme=None), "pre_tokenizer.prepend_scheme"),
    (_with(MS, prepend_scheme={"first": None}), None),
    (_with(MS, prepend_scheme={"first": {}}), "pre_tokenizer.prepend_scheme"),
    (_with(MS, split=None), None),
    (_with(MS, split=False), None),
    (_with(MS, split=1), "pre_tokenizer.split"),
    (_with(MS, str_rep="▁"), None),
    (_with(MS, str_rep="abc"), None),
    (_with(MS, str_rep=None), None),
    (_with(MS, str_rep=5), "pre_tokenizer.str_rep"),
    ({"type": {"Metaspace": None}, "replacement": "▁"}, None),
    ({"type": {"Metaspace": {}}, "replacement": "▁"}, "pre_tokenizer.type"),
    (["Metaspace", "▁", None, "first", True, None], None),
    (["Metaspace", "▁", True, "first", None, "x"], None),
    (["Metaspace", "▁", False, "first", None, "x"], "pre_tokenizer.add_prefix_space"),
    (["Metaspace", "▁", None, "first", True], "pre_tokenizer"),
    (["Metaspace", "▁", None, "first", True, None, 1], "pre_tokenizer"),
    (["Metaspace", "▁"], "pre_tokenizer"),
    (["Metaspace", "▁", 1, "first", None, None], None),
    (["Metaspace", "▁", None, {"first": {}}, True, None], None),
    (SP, None),
    (_with(SP, pattern={"Regex": r"\s+"}), None),
    (_with(SP, pattern={"Regex": "("}), "pre_tokenizer.pattern.Regex"),
    (_with(SP, pattern={"Regex": "[a-"}), "pre_tokenizer.pattern.Regex"),
    (_with(SP, pattern={"Regex": r"(?<n>a)\k<n>\p{L}"}), None),
    (_with(SP, pattern={"Regex": ""}), None),
    (_with(SP, pattern={"String": ""}), None),
    (_with(SP, pattern={"String": "("}), None),
    (_with(SP, pattern={"String": "\x00"}), None),
    (_with(SP, pattern=" "), "pre_tokenizer.pattern"),
    (_with(SP, pattern="String"), "pre_tokenizer.pattern"),
    (_with(SP, pattern={"string": " "}), "pre_tokenizer.pattern"),
    (_with(SP, pattern={"String": " ", "Regex": "x"}), "pre_tokenizer.pattern"),
    (_with(SP, pattern={}), "pre_tokenizer.pattern"),
    (_with(SP, pattern={"String": None}), "pre_tokenizer.pattern.String"),
    (_with(SP, pattern=["String", " "]), "pre_tokenizer.pattern"),
    (_with(SP, behavior="isolated"), "pre_tokenizer.behavior"),
    (_with(SP, behavior="Isolate"), "pre_tokenizer.behavior"),
    (_with(SP, behavior={"Isolated": None}), None),
    (_with(SP, behavior={"Isolated": {}}), "pre_tokenizer.behavior"),
    (_with(SP, behavior={"Isolated": None, "Removed": None}), "pre_tokenizer.behavior"),
    *[(_with(SP, behavior=b), None) for b in spec.BEHAVIORS],
    (_with(SP, behavior=_DROP), "pre_tokenizer.behavior"),
    (_with(SP, invert=_DROP), "pre_tokenizer.invert"),
    (_with(SP, invert=None), "pre_tokenizer.invert"),
    (_with(SP, pattern=_DROP), "pre_tokenizer.pattern"),
    (["Split", {"String": " "}, "Isolated", False], None),
    (["Split", {"String": " "}, {"Isolated": None}, False], None),
    (["Split", {"String": " "}, {"Isolated": {}}, False], "pre_tokenizer.behavior"),
    (["Split", {"String": " "}, "Isolated", False, 1], "pre_tokenizer"),
    ({"type": "Punctuation"}, None),
    ({"type": "Punctuation", "behavior": "Contiguous"}, None),
    ({"type": "Punctuation", "behavior": None}, "pre_tokenizer.behavior"),
    ({"type": "Punctuation", "behavior": {"Isolated": {}}}, None),
    ({"type": "Punctuation", "behavior": {"Removed": None}}, None),
    ({"type": "Punctuation", "behavior": {"Isolated": []}}, "pre_tokenizer.behavior"),
    ({"type": "Punctuation", "behavior": "removed"}, "pre_tokenizer.behavior"),
    ({"type": "Digits"}, "pre_tokenizer.individual_digits"),
    ({"type": "Digits", "individual_digits": True}, None),
    ({"type": "Digits", "individual_digits": 0}, "pre_tokenizer.individual_digits"),
    ({"type": "FixedLength"}, None),
    ({"type": "FixedLength", "length": 0}, None),
    ({"type": "FixedLength", "length": 2**64 - 1}, None),
    ({"type": "FixedLength", "length": 2**64}, "pre_tokenizer.length"),
    ({"type": "FixedLength", "length": -1}, "pre_tokenizer.length"),
    ({"type": "FixedLength", "length": 3.0}, "pre_tokenizer.length"),
    ({"type": "FixedLength", "length": True}, "pre_tokenizer.length"),
    ({"type": "FixedLength", "length": None}, "pre_tokenizer.length"),
    ({"type": "FixedLength", "length": "5"}, "pre_tokenizer.length"),
    ({"type": "UnicodeScripts"}, None),
    ({"type": "WhitespaceSplit"}, None),
    ({"type": "Whitespace"}, None),
    ({"type": "whitespace"}, "pre_tokenizer.type"),
    (SEQ_P, None),
    ({"type": "Sequence"}, "pre_tokenizer.pretokenizers"),
    ({"type": "Sequence", "pretokenizers": None}, "pre_tokenizer.pretokenizers"),
    ({"type": "Sequence", "pretokenizers": {}}, "pre_tokenizer.pretokenizers"),
    ({"type": "Sequence", "pretokenizers": [None]}, "pre_tokenizer.pretokenizers[0]"),
    ({"type": "Sequence", "pretokenizers": [{}]}, "pre_tokenizer.pretokenizers[0]"),
    ({"type": "Sequence", "pretokenizers": [SEQ_P]}, None),
    ({"type": "Sequence", "pretokenizers": [["Whitespace"]]}, None),
    ({"type": "Sequence", "pretokenizers": [{"type": "Digits"}]}, "pre_tokenizer.pretokenizers[0].individual_digits"),
    (
        {"type": "Sequence", "pretokenizers": [BL, _with(SP, behavior="Isolate")]},
        "pre_tokenizer.pretokenizers[1].behavior",
    ),
    (
        {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Sequence",
                    "pretokenizers": [{"type": "Punctuation", "behavior": {"Isolated": {}}}, _with(SP, invert=1)],
                }
            ],
        },
        "pre_tokenizer.pretokenizers[0].pretokenizers[1].invert",
    ),
    (
        {"type": "Sequence", "pretokenizers": [_with(MS, add_prefix_space=False)]},
        "pre_tokenizer.pretokenizers[0].add_prefix_space",
    ),
    ({"type": "Sequence", "pretokenizers": [{"type": "CharDelimiterSplit", "delimiter": "-"}]}, None),
    ({"type": "Foo"}, "pre_tokenizer.type"),
    ({"type": 5}, "pre_tokenizer.type"),
    ({"type": None}, "pre_tokenizer.type"),
    ({}, "pre_tokenizer"),
    ([], "pre_tokenizer"),
    ("Whitespace", "pre_tokenizer"),
    (5, "pre_tokenizer"),
    (True, "pre_tokenizer"),
    (None, None),
    (_with(MS, replacement="\ud800"), "pre_tokenizer.replacement"),
    (_with(BL, extra=float("nan")), "pre_tokenizer.extra"),
    (_with(BL, extra=10**400), "pre_tokenizer.extra"),
    (_with(BL, extra=-(10**308)), None),
    (_with(BL, extra=_nest(125)), None),
    (_with(BL, extra=_nest(126)), "pre_tokenizer.extra" + "[0]" * 125),
    (_nest_sequence(62), None),
    (_nest_sequence(63), "pre_tokenizer" + ".pretokenizers[0]" * 63),
]

NORM_VARIANTS = [
    (BERT, None),
    (_with(BERT, type="Bert"), None),
    (_with(BERT, type=_DROP), None),
    (_with(BERT, strip_accents=_DROP), None),
    (_with(BERT, strip_accents=False), None),
    (_with(BERT, type="Bert", strip_accents=1), "normalizer.strip_accents"),
    (_with(BERT, type="Bert", strip_accents={}), "normalizer.strip_accents"),
    (_with(BERT, strip_accents={}), "normalizer.strip_accents"),
    (_with(BERT, lowercase=_DROP), "normalizer.lowercase"),
    (_with(BERT, type="Bert", lowercase=_DROP), "normalizer.lowercase"),
    ({"type": "Bert"}, "normalizer.clean_text"),
    ({"type": "BertNormalizer"}, "normalizer.clean_text"),
    ({"type": {"Bert": None}, "clean_text": True, "handle_chinese_chars": True, "lowercase": True}, None),
    ({"type": "BertNormalizer", "prepend": "x"}, None),
    ([True, True, None, True], None),
    ([True, True, True], "normalizer"),
    ({"type": "Strip", "strip_left": True, "strip_right": False}, None),
    ({"type": "Strip", "strip_left": True}, "normalizer.strip_right"),
    ({"type": "Strip"}, "normalizer.strip_left"),
    ({"strip_left": True, "strip_right": False}, None),
    ({"type": "Foo", "strip_left": True, "strip_right": False}, None),
    ({"type": 5, "strip_left": True, "strip_right": False}, None),
    ({"type": "Foo", "strip_left": True}, "normalizer.strip_right"),
    ([True, False], None),
    ([True, False, 1], "normalizer"),
    ([True, 1], "normalizer"),
    *[({"type": t}, None) for t in ("StripAccents", "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Nmt", "ByteLevel")],
    ({"type": "NFC", "x": {"y": [1, 2]}}, None),
    ({"type": "ByteLevel", "add_prefix_space": True}, None),
    ({"type": {"NFC": None}}, None),
    ({"type": {"NFC": {}}}, "normalizer.type"),
    (["StripAccents"], None),
    (["NFC"], None),
    (["Lowercase"], None),
    (["Nmt"], None),
    (["ByteLevel"], None),
    ([{"ByteLevel": None}], None),
    ([{"NFC": None}], None),
    ([{"NFC": {}}], "normalizer"),
    ([{"ByteLevel": {}}], "normalizer"),
    (["x"], None),
    ({"type": "nfc"}, "normalizer.type"),
    (SEQ_N, None),
    ({"type": "Sequence"}, "normalizer.normalizers"),
    ({"normalizers": []}, None),
    ({"type": "Sequence", "normalizers": [{}]}, "normalizer.normalizers[0]"),
    ({"type": "Sequence", "normalizers": [None]}, "normalizer.normalizers[0]"),
    ({"type": "Sequence", "normalizers": [{"type": "NFC"}, SEQ_N]}, None),
    ({"type": "Sequence", "normalizers": [["NFC"]]}, None),
    ({"type": "Sequence", "normalizers": [["x"]]}, None),
    (
        {"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": True}]},
        "normalizer.normalizers[0].strip_right",
    ),
    (
        {"type": "Sequence", "normalizers": [REPL, _with(REPL, pattern={"Regex": "(a"})]},
        "normalizer.normalizers[1].pattern.Regex",
    ),
    ([[]], None),
    ([[{"type": "NFC"}]], None),
    ([[1]], "normalizer"),
    ([[], 1], "normalizer"),
    ({"normalizers": [], "prepend": "x"}, None),
    ({"normalizers": [1], "prepend": "x"}, None),
    (REPL, None),
    (_with(REPL, pattern={"Regex": " {2,}"}), None),
    (_with(REPL, pattern={"Regex": "("}), "normalizer.pattern.Regex"),
    (_with(REPL, pattern=" "), "normalizer.pattern"),
    (_with(REPL, content=_DROP), "normalizer.content"),
    (_with(REPL, content=None), "normalizer.content"),
    (_with(REPL, content=""), None),
    (_with(REPL, type=_DROP), None),
    (_with(REPL, type="Foo"), None),
    (_with(REPL, type="Foo", pattern={"Regex": "("}), "normalizer.pattern.Regex"),
    (_with(REPL, prepend="y"), None),
    ([{"String": " "}, "x"], None),
    ([{"Regex": "("}, "x"], "normalizer"),
    ({"pattern": {"Regex": "("}, "content": "x", "prepend": "y"}, None),
    ({"type": "Prepend", "prepend": "▁"}, None),
    ({"type": "Prepend", "prepend": ""}, None),
    ({"type": "Prepend"}, "normalizer.prepend"),
    ({"type": "Prepend", "prepend": 1}, "normalizer.prepend"),
    ({"prepend": "x"}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAA=="}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAA="}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAA"}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAAA"}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "BAAAAAAAAAA="}, None),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAGFiYw=="}, None),
    *[
        ({"type": "Precompiled", "precompiled_charsmap": s}, "normalizer.precompiled_charsmap")
        for s in (
            "",
            "AAAA",
            "AAAAAB==",
            "AAAAAAB=",
            "AAAAAA===",
            "AAAA AA==",
            "AAAAAA==\n",
            "AAAA====",
            "AAAAA",
            "AAAA-_==",
            "AA==AAAA",
            "BAAAAA==",
            "AAAAAP8=",
            "AAAA/+8=",
        )
    ],
    ({"type": "Precompiled", "precompiled_charsmap": None}, "normalizer.precompiled_charsmap"),
    ({"type": "Precompiled"}, "normalizer.precompiled_charsmap"),
    ({"type": "Precompiled", "precompiled_charsmap": "AAAAAA==", "extra": 5}, None),
    ({"precompiled_charsmap": "AAAAAA=="}, "normalizer"),
    (["AAAAAA=="], None),
    ({"type": "Sequence", "normalizers": [{"type": "Precompiled", "precompiled_charsmap": "AAAAAA=="}]}, None),
    (
        {"type": "Sequence", "normalizers": [{"type": "Precompiled", "precompiled_charsmap": "A"}]},
        "normalizer.normalizers[0].precompiled_charsmap",
    ),
    ({}, "normalizer"),
    ([], "normalizer"),
    ("NFC", "normalizer"),
    (None, None),
    ({"type": "Prepend", "prepend": "a\udc00"}, "normalizer.prepend"),
]

VARIANTS = [pytest.param("pre_tokenizer", s, p, id=f"pre{i}") for i, (s, p) in enumerate(PRE_VARIANTS)] + [
    pytest.param("normalizer", s, p, id=f"norm{i}") for i, (s, p) in enumerate(NORM_VARIANTS)
]


@pytest.mark.parametrize("which, section, path", VARIANTS)
def test_variant_matches_oracle(which, section, path):
    error = check_same(which, section)
    if path is not None:
        assert error is not None, "expected a rejection"
        assert error.path == path, str(error)
        assert str(error).startswith(f"{path}: ")
    if error is not None:
        assert isinstance(error, ValueError)


def test_error_message_names_path_and_value():
    section = {"type": "Sequence", "pretokenizers": [_with(SP, behavior="Isolate")]}
    with pytest.raises(spec.TokenizerJsonError) as info:
        spec.parse_pre_tokenizer(section)
    assert str(info.value) == (
        "pre_tokenizer.pretokenizers[0].behavior: 'Isolate' is not one of 'Removed', 'Isolated', "
        "'MergedWithPrevious', 'MergedWithNext', 'Contiguous'"
    )
    assert info.value.path == "pre_tokenizer.pretokenizers[0].behavior"
    with pytest.raises(spec.TokenizerJsonError, match=r"^model\.normalizer\.length: "):
        spec.parse_pre_tokenizer({"type": "FixedLength", "length": -3}, path="model.normalizer")


def test_models_hold_explicit_modern_fields():
    ms = spec.parse_pre_tokenizer(["Metaspace", "▁", True, {"first": None}, None, "▁"])
    assert isinstance(ms, spec.Metaspace)
    assert (ms.replacement, ms.prepend_scheme, ms.split) == ("▁", "first", True)
    bl = spec.parse_pre_tokenizer(BL)
    assert bl.use_regex is True and isinstance(bl, spec.ByteLevelPreTokenizer)
    assert spec.parse_pre_tokenizer({"type": "Punctuation"}).behavior == "Isolated"
    assert spec.parse_pre_tokenizer({"type": "FixedLength"}).length == 5
    split = spec.parse_pre_tokenizer(_with(SP, behavior={"Removed": None}))
    assert (split.pattern.kind, split.pattern.value, split.behavior) == ("String", " ", "Removed")
    bert = spec.parse_normalizer({"type": "Bert", "clean_text": True, "handle_chinese_chars": False, "lowercase": True})
    assert isinstance(bert, spec.BertNormalizer) and bert.strip_accents is None
    pre = spec.parse_normalizer({"type": "Precompiled", "precompiled_charsmap": "AAAAAGFiYw"})
    assert pre.precompiled_charsmap == b"\0\0\0\0abc"
    assert pre.to_json() == {"type": "Precompiled", "precompiled_charsmap": "AAAAAGFiYw=="}
    assert isinstance(spec.parse_normalizer(["ByteLevel"]), spec.Prepend)


def test_without_the_oracle_regexes_are_left_to_the_native_side(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # makes `import tokenizers` fail
    _regex_error.cache_clear()
    try:
        split = spec.parse_pre_tokenizer(_with(SP, pattern={"Regex": "(no oracle"}))
    finally:
        _regex_error.cache_clear()
    assert split.pattern.to_json() == {"Regex": "(no oracle"}


# ---------------------------------------------------------------------------- random sections

TYPE_NAMES = [
    "BertPreTokenizer",
    "ByteLevel",
    "Delimiter",
    "CharDelimiterSplit",
    "Metaspace",
    "Whitespace",
    "Sequence",
    "Split",
    "Punctuation",
    "WhitespaceSplit",
    "Digits",
    "UnicodeScripts",
    "FixedLength",
    "Bert",
    "BertNormalizer",
    "Strip",
    "StripAccents",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Lowercase",
    "Nmt",
    "Precompiled",
    "Replace",
    "Prepend",
    "Foo",
    "split",
]
KEYS = [
    "type",
    "add_prefix_space",
    "trim_offsets",
    "use_regex",
    "delimiter",
    "replacement",
    "prepend_scheme",
    "split",
    "str_rep",
    "pretokenizers",
    "pattern",
    "behavior",
    "invert",
    "individual_digits",
    "length",
    "clean_text",
    "handle_chinese_chars",
    "strip_accents",
    "lowercase",
    "strip_left",
    "strip_right",
    "normalizers",
    "precompiled_charsmap",
    "content",
    "prepend",
]
WORDS = (
    list(spec.BEHAVIORS)
    + list(spec.PREPEND_SCHEMES)
    + [
        "Isolate",
        "First",
        "never ",
        "",
        "▁",
        "_",
        "ab",
        " ",
        "😀",
        "AAAAAA==",
        "AAAAAA=",
        "AAAA",
        "AAAAAGFiYw",
        "AAAAAB==",
        "BAAAAAAAAAA=",
        "String",
        "Regex",
    ]
)
REGEXES = [r"\s+", "(", "[a-", r"\p{N}{1,3}", "", "a{2,}", r"(?i:'s|'t)", ")"]

scalars = st.one_of(
    st.none(), st.booleans(), st.sampled_from([0, 1, 5, -1, 3.0, 2**64, 2**64 - 1]), st.sampled_from(WORDS + TYPE_NAMES)
)
patterns = st.one_of(
    st.builds(lambda s: {"String": s}, st.sampled_from(WORDS)),
    st.builds(lambda r: {"Regex": r}, st.sampled_from(REGEXES)),
    st.dictionaries(st.sampled_from(["String", "Regex", "string"]), st.sampled_from([None, " ", 1, r"\d"]), max_size=2),
)
variants = st.builds(
    lambda name, inner: {name: inner},
    st.sampled_from([*spec.BEHAVIORS, *spec.PREPEND_SCHEMES, *TYPE_NAMES]),
    st.sampled_from([None, {}, 1]),
)


def sections(children):
    values = st.one_of(scalars, patterns, variants, st.lists(children, max_size=3))
    as_dict = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)
    type_values = st.sampled_from(TYPE_NAMES) | variants
    typed = st.builds(lambda t, d: {"type": t, **d}, type_values, as_dict)
    as_list = st.lists(values, max_size=6)
    typed_list = st.builds(lambda t, rest: [t, *rest], st.sampled_from(TYPE_NAMES), as_list)
    return st.one_of(typed, typed, typed, as_dict, as_list, typed_list)


random_sections = st.recursive(sections(scalars), sections, max_leaves=8)

SEEDS = {
    "pre_tokenizer": [s for s, path in PRE_VARIANTS if path is None and s is not None],
    "normalizer": [s for s, path in NORM_VARIANTS if path is None and s is not None],
}


@st.composite
def mutated(draw, which):
    """A known section with a few keys set, dropped or wrapped: mostly near the accept edge."""
    section = json.loads(json.dumps(draw(st.sampled_from(SEEDS[which]))))
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["set", "set", "drop", "wrap", "item"]))
        if action == "wrap":
            key = "pretokenizers" if which == "pre_tokenizer" else "normalizers"
            section = {"type": "Sequence", key: [section, *draw(st.lists(st.sampled_from(SEEDS[which]), max_size=2))]}
        elif isinstance(section, dict) and action == "drop" and section:
            del section[draw(st.sampled_from(sorted(section)))]
        elif isinstance(section, dict):
            section[draw(st.sampled_from(KEYS))] = draw(st.one_of(scalars, patterns, variants))
        elif isinstance(section, list) and section:
            section[draw(st.integers(0, len(section) - 1))] = draw(st.one_of(scalars, variants))
    return section


FUZZ = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@FUZZ
@given(section=random_sections, which=st.sampled_from(["pre_tokenizer", "normalizer"]))
def test_random_sections_match_oracle(section, which):
    check_same(which, section)


@FUZZ
@given(data=st.data(), which=st.sampled_from(["pre_tokenizer", "normalizer"]))
def test_mutated_sections_match_oracle(data, which):
    check_same(which, data.draw(mutated(which)))


@FUZZ
@given(
    head=st.sampled_from(["", "AAAA", "AAAAAA", "AAAAAAAA", "BAAAAAAAAAA"]),
    tail=st.text(alphabet="AB/+=a0w ", max_size=12),
)
def test_random_charsmaps_match_oracle(head, tail):
    check_same("normalizer", {"type": "Precompiled", "precompiled_charsmap": head + tail})
