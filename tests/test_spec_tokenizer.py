"""tagpipe.spec's whole-file loader (``parse_tokenizer`` / ``load_tokenizer_json``) against the
oracle.

The authority is ``tokenizers.Tokenizer.from_str`` (``from_buffer`` for bytes): a document must be
accepted exactly when it accepts it, ``to_json()`` must equal what it writes back (as parsed
JSON), and everything else must be a ``TokenizerJsonError`` with the path we expect.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tagpipe import spec  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
REJECTED = "<rejected>"


def _shared_tokenizers():
    env = os.environ.get("TAGPIPE_TEST_DATA")
    root = Path(env) if env else REPO.parent / "shared"
    return sorted((root / "tokenizers").glob("*/tokenizer.json"))


TOKENIZER_FILES = _shared_tokenizers()


def _text(doc):
    return doc if isinstance(doc, (str, bytes)) else json.dumps(doc)


def oracle(doc):
    """The oracle's own serialization of the document (parsed), or REJECTED."""
    text = _text(doc)
    if _oracle_would_abort(doc):
        return _oracle_in_subprocess(text)
    try:
        if isinstance(text, bytes):
            tok = tokenizers.Tokenizer.from_buffer(text)
        else:
            tok = tokenizers.Tokenizer.from_str(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # a panic in the oracle is pyo3's PanicException, a BaseException
        return REJECTED
    return json.loads(tok.to_str())


def ours(doc):
    """(canonical JSON or REJECTED, error or None) from tagpipe.spec."""
    try:
        loaded = spec.load_tokenizer_json(_text(doc))
    except spec.TokenizerJsonError as exc:
        return REJECTED, exc
    return loaded.to_json(), None


def _by_ids(out, doc):
    """``out`` with model tokens replaced by their ids in the input ``doc``: the oracle writes one
    token per id, chosen at random per load, when a vocab repeats ids."""
    vocab = doc["model"]["vocab"]
    out = copy.deepcopy(out)
    model = out["model"]
    model["vocab"] = sorted(model["vocab"].values())
    if "merges" in model:
        model["merges"] = [[vocab[a], vocab[b]] for a, b in model["merges"]]
    return out


def _repeats_ids(doc):
    model = doc.get("model") if isinstance(doc, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if not isinstance(vocab, dict):
        return False
    ids = [i for i in vocab.values() if isinstance(i, int) and not isinstance(i, bool)]
    return len(set(ids)) != len(ids)


def _oracle_would_abort(doc):
    """Whether a BPE merge has parts in the vocab and cutting continuing_subword_prefix's length
    from its second part splits a character: the oracle then builds invalid UTF-8 for its error
    message and aborts the whole process (see test_oracle_aborts_where_we_report)."""
    try:
        obj = json.loads(doc) if isinstance(doc, (str, bytes)) else doc
        section = obj["model"]
        prefix, vocab = section["continuing_subword_prefix"], section["vocab"]
        merges = list(section["merges"])
    except Exception:
        return False
    if not isinstance(prefix, str) or not prefix or not isinstance(vocab, dict):
        return False
    cut = len(prefix.encode("utf-8", "surrogatepass"))
    longest = max((len(t.encode("utf-8", "surrogatepass")) for t in vocab), default=0)
    for merge in merges:
        pair = merge.split(" ") if isinstance(merge, str) else merge
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)):
            continue
        a, b = pair
        raw = b.encode("utf-8", "surrogatepass")
        size = len(a.encode("utf-8", "surrogatepass")) + len(raw) - cut
        if a in vocab and b in vocab and len(raw) >= cut and size <= longest:
            try:
                raw[cut:].decode("utf-8")
            except UnicodeDecodeError:
                return True
    return False


def _oracle_in_subprocess(text):
    """The oracle in a child process, for documents that may abort it."""
    code = (
        "import sys, tokenizers\n"
        "data = sys.stdin.buffer.read()\n"
        "tok = (tokenizers.Tokenizer.from_buffer(data) if sys.argv[1] == 'bytes' else\n"
        "       tokenizers.Tokenizer.from_str(data.decode('utf-8', 'surrogatepass')))\n"
        "sys.stdout.write(tok.to_str())\n"
    )
    kind = "bytes" if isinstance(text, bytes) else "str"
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    result = subprocess.run(
        [sys.executable, "-c", code, kind],
        input=data,
        capture_output=True,
        timeout=60,
        cwd=tempfile.gettempdir(),
        env={**os.environ, "RUST_BACKTRACE": "0"},
    )
    return json.loads(result.stdout) if result.returncode == 0 else REJECTED


def check_same(doc):
    """Both accept with the same output, or both reject; returns our error (or None)."""
    expected = oracle(doc)
    got, error = ours(doc)
    if expected is REJECTED:
        assert got is REJECTED, f"oracle rejects, spec accepts: {_text(doc)[:300]!r}"
    else:
        assert got is not REJECTED, f"oracle accepts, spec rejects: {_text(doc)[:300]!r}: {error}"
        parsed = doc if isinstance(doc, dict) else json.loads(doc)
        if _repeats_ids(parsed) and got != expected:
            assert _by_ids(got, parsed) == _by_ids(expected, parsed)
        else:
            assert got == expected
    if error is not None:
        assert isinstance(error, ValueError)
        assert str(error) == (f"{error.path}: {error.message}" if error.path else error.message)
    return error


# ---------------------------------------------------------------------------- real files


@functools.lru_cache(maxsize=1)
def _text_of(path):
    return Path(path).read_text(encoding="utf-8")


@pytest.mark.skipif(not TOKENIZER_FILES, reason="no TAGPIPE_TEST_DATA / ../shared/tokenizers")
@pytest.mark.parametrize("path", TOKENIZER_FILES, ids=[p.parent.name for p in TOKENIZER_FILES])
def test_real_files_match_oracle(path):
    text = _text_of(path)
    loaded = spec.load_tokenizer_json(text)
    canonical = loaded.to_json()
    assert canonical == json.loads(tokenizers.Tokenizer.from_str(text).to_str())
    assert isinstance(loaded, spec.TokenizerSpec)
    if len(text) < 3_000_000:  # the canonical form loads to the same thing
        again = spec.parse_tokenizer(json.loads(json.dumps(canonical)))
        assert again.to_json() == canonical


# ---------------------------------------------------------------------------- the table

WL = {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "<unk>": 2}, "unk_token": "<unk>"}
VOCAB = {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}
BPE = {"type": "BPE", "vocab": VOCAB, "merges": ["a b", "ab c"]}
WP = {
    "type": "WordPiece",
    "vocab": {"[UNK]": 0, "a": 1, "##b": 2},
    "unk_token": "[UNK]",
    "continuing_subword_prefix": "##",
    "max_input_chars_per_word": 100,
}
UG = {"type": "Unigram", "vocab": [["<unk>", 0.0], ["a", -1.5], ["b", -2]], "unk_id": 0}
TOKEN = {
    "id": 0,
    "content": "<s>",
    "single_word": False,
    "lstrip": False,
    "rstrip": False,
    "normalized": False,
    "special": True,
}
CLS = {"SpecialToken": {"id": "[CLS]", "type_id": 0}}
SEQ_A = {"Sequence": {"id": "A", "type_id": 0}}
SEQ_B = {"Sequence": {"id": "B", "type_id": 1}}
TEMPLATE = {
    "type": "TemplateProcessing",
    "single": [CLS, SEQ_A],
    "pair": [CLS, SEQ_A, SEQ_B],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}},
}
BERT_PP = {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]}
ROBERTA = {
    "type": "RobertaProcessing",
    "sep": ["</s>", 2],
    "cls": ["<s>", 0],
    "trim_offsets": True,
    "add_prefix_space": True,
}
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
TRUNC = {"direction": "Right", "max_length": 512, "strategy": "LongestFirst", "stride": 0}
PAD = {
    "strategy": "BatchLongest",
    "direction": "Right",
    "pad_to_multiple_of": None,
    "pad_id": 0,
    "pad_type_id": 0,
    "pad_token": "[PAD]",
}
_DROP = object()


def _with(base, **changes):
    """``base`` with keys set; a key set to _DROP is removed."""
    out = dict(base, **changes)
    return {k: v for k, v in out.items() if v is not _DROP}


def doc(**sections):
    """A minimal tokenizer.json with ``sections`` set (a section set to _DROP is left out)."""
    return _with(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "model": WL,
        },
        **sections,
    )


def model(base=BPE, **changes):
    return doc(model=_with(base, **changes))


def added(*tokens, **sections):
    return doc(added_tokens=list(tokens), **sections)


def tok(**changes):
    return _with(TOKEN, **changes)


def nest(depth, leaf="0"):
    return "[" * depth + leaf + "]" * depth


GOOD = json.dumps(doc(model={"type": "WordLevel", "vocab": {"a": 0, "é": 1}, "unk_token": "a"}), ensure_ascii=False)
GOOD_BYTES = GOOD.encode("utf-8")
M = '"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}'
AT = (
    '"id": 0, "content": "x", "single_word": false, "lstrip": false, "rstrip": false,'
    ' "normalized": false, "special": false'
)

CASES = [
    # (id, document (dict, str or bytes), expected error path, or None when both accept)
    # --- JSON text
    ("truncated", GOOD[: GOOD.index("é")], "model.vocab"),
    ("truncated-after-key", GOOD[: GOOD.index('"unk_token"') + 12], "model.unk_token"),
    ("truncated-in-top-key", GOOD[:120], ""),
    ("truncated-bytes", GOOD_BYTES[:100], ""),
    ("empty", "", ""),
    ("whitespace", " \n", ""),
    ("null", "null", ""),
    ("array", "[]", ""),
    ("string", '"x"', ""),
    ("trailing-data", GOOD + " x", ""),
    ("trailing-ws", GOOD + " \n\t", None),
    ("trailing-comma", GOOD[:-1] + ",}", ""),
    ("comment", "// x\n" + GOOD, ""),
    ("bom-str", "\ufeff" + GOOD, ""),
    ("bom-bytes", b"\xef\xbb\xbf" + GOOD_BYTES, ""),
    ("single-quotes", GOOD.replace('"a"', "'a'"), "model.vocab"),
    ("leading-zero", GOOD.replace('"a": 0', '"a": 00'), "model.vocab.a"),
    ("raw-control-char", GOOD.replace("é", "\x01"), "model.vocab"),
    ("raw-del", GOOD.replace("é", "\x7f"), None),
    ("escaped-nul", GOOD.replace("é", "\\u0000"), None),
    ("nan", GOOD.replace('"a": 0', '"a": NaN'), "model.vocab.a"),
    ("infinity-score", json.dumps(model(UG, vocab=[["a", 0.5]])).replace("0.5", "-Infinity"), "model.vocab[0][1]"),
    ("negative-zero-id", GOOD.replace('"a": 0', '"a": -0'), "model.vocab.a"),
    ("float-id", GOOD.replace('"a": 0', '"a": 1e2'), "model.vocab.a"),
    ("1.0-id", GOOD.replace('"a": 0', '"a": 1.0'), "model.vocab.a"),
    ("huge-int", GOOD.replace('"a": 0', '"a": 1' + "0" * 400), "model.vocab.a"),
    ("over-digit-limit", GOOD.replace('"a": 0', '"a": 1' + "0" * 5000), "model.vocab.a"),
    ("score-out-of-range", json.dumps(model(UG, vocab=[["a", 0.5]])).replace("0.5", "1e400"), "model.vocab[0][1]"),
    ("score-long-int", json.dumps(model(UG, vocab=[["a", 0.5]])).replace("0.5", "1" + "0" * 30), None),
    ("score-not-nearest", json.dumps(model(UG, vocab=[["a", 0.5]])).replace("0.5", "-2.0122928619384766"), None),
    ("bytes", GOOD_BYTES, None),
    ("invalid-utf8-in-string", GOOD_BYTES.replace("é".encode(), b"\xff"), "model.vocab"),
    ("truncated-utf8", GOOD_BYTES.replace("é".encode(), b"\xc3"), "model.vocab"),
    ("cesu-surrogate", GOOD_BYTES.replace("é".encode(), "\ud800".encode("utf-8", "surrogatepass")), "model.vocab"),
    ("invalid-utf8-outside", GOOD_BYTES + b"\xff", ""),
    ("lone-surrogate-escape", GOOD.replace("é", "\\ud800"), "model.vocab"),
    ("lone-low-surrogate-escape", GOOD.replace("é", "\\udc00"), "model.vocab"),
    ("surrogate-pair-escape", GOOD.replace("é", "\\ud83d\\ude00"), None),
    ("raw-lone-surrogate", GOOD.replace("é", "\ud800"), "model.vocab"),
    ("lone-surrogate-value", json.dumps(model(WL, unk_token="\udfff")), "model.unk_token"),
    ("nested-100000-model", '{"model": ' + nest(100_000) + "}", "model" + "[0]" * 126),
    ("nested-100000-objects", '{"model": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}", "model" + ".a" * 126),
    ("nested-100000-top", nest(100_000), ""),
    ("nested-300", '{"model": ' + nest(300) + "}", "model" + "[0]" * 126),
    ("nested-just-ok", json.dumps(model(WL, x=json.loads(nest(125)))), None),
    ("nested-one-too-deep", json.dumps(model(WL, x=json.loads(nest(126)))), "model.x" + "[0]" * 125),
    ("nested-added-token", json.dumps(added(tok(x=json.loads(nest(125))))), "added_tokens[0].x" + "[0]" * 124),
    # --- the document
    ("unknown-top-key", doc(extra=1), "extra"),
    ("unknown-top-key-odd", doc(**{"a b": None}), "['a b']"),
    ("no-model", doc(model=_DROP), "model"),
    ("model-only", {"model": WL}, None),
    ("model-null", doc(model=None), "model"),
    ("model-list", doc(model=[]), "model"),
    ("version-2", doc(version="2.0"), "version"),
    ("version-null", doc(version=None), "version"),
    ("version-number", doc(version=1), "version"),
    ("no-version", doc(version=_DROP), None),
    ("repeated-top-key", '{"model": 5, %s}' % M, "model"),
    ("repeated-top-key-ok", "{%s, %s}" % (M.replace('"a": 0', '"b": 0'), M), None),
    ("repeated-version", '{"version": "2.0", "version": "1.0", %s}' % M, "version"),
    # --- BPE
    ("bpe", model(), None),
    ("bpe-untagged", model(type=_DROP), None),
    ("bpe-type-as-map", model(type={"BPE": None}), None),
    ("bpe-type-map-empty", model(type={"BPE": {}}), "model.type"),
    ("bpe-type-null", model(type=None), "model.type"),
    ("unknown-model-type", model(type="Foo"), "model.type"),
    ("bpe-type-lowercase", model(type="bpe"), "model.type"),
    ("bpe-no-merges", model(merges=_DROP), "model.merges"),
    ("bpe-no-vocab", model(vocab=_DROP), "model.vocab"),
    ("bpe-merges-null", model(merges=None), "model.merges"),
    ("bpe-merges-map", model(merges={"a": "b"}), "model.merges"),
    ("bpe-pairs", model(merges=[["a", "b"], ["ab", "c"]]), None),
    ("bpe-mixed-merges", model(merges=["a b", ["ab", "c"]]), "model.merges[1]"),
    ("bpe-mixed-merges-2", model(merges=[["a", "b"], "ab c"]), "model.merges[1]"),
    ("bpe-pair-of-3", model(merges=[["a", "b", "c"]]), "model.merges[0]"),
    ("bpe-pair-non-string", model(merges=[["a", 1]]), "model.merges[0][1]"),
    ("merge-0-spaces", model(merges=["a b", "abc"]), "model.merges[1]"),
    ("merge-2-spaces", model(merges=["a  b"]), "model.merges[0]"),
    ("merge-3-parts", model(merges=["a b c"]), "model.merges[0]"),
    ("merge-empty", model(merges=[""]), "model.merges[0]"),
    ("merge-space-only", model(merges=[" "]), "model.merges[0]"),
    ("merge-space-only-empty-token", model(vocab={"": 0, "a": 1}, merges=[" "]), None),
    ("merge-empty-pair", model(vocab={"": 0, "a": 1}, merges=[["", "a"]]), None),
    ("merge-space-token-as-pair", model(vocab={"a b": 0, "c": 1, "a bc": 2}, merges=[["a b", "c"]]), None),
    ("merge-space-token-as-string", model(vocab={"a b": 0, "c": 1, "a bc": 2}, merges=["a b c"]), "model.merges[0]"),
    ("merge-version-line", model(merges=["#version: 0.2", "a b", "ab c"]), None),
    ("merge-version-prefix", model(merges=["a b", "#versionX y z", "ab c"]), None),
    ("merge-after-version-missing", model(merges=["#version", "a b", "x y"]), "model.merges[2]"),
    ("merge-part-missing", model(merges=["a b", "a x"]), "model.merges[1]"),
    ("merge-first-missing", model(merges=["x a"]), "model.merges[0]"),
    ("merge-result-missing", model(merges=["a b", "b c"]), "model.merges[1]"),
    ("merge-result-longer-than-any", model(vocab={"a": 0, "b": 1}, merges=["a b"]), "model.merges[0]"),
    ("merges-repeated", model(merges=["a b", "ab c", "a b"]), None),
    ("merges-repeated-pairs", model(merges=[["a", "b"], ["a", "b"]]), None),
    ("prefix", model(vocab={"a": 0, "##b": 1, "ab": 2}, merges=["a ##b"], continuing_subword_prefix="##"), None),
    (
        "prefix-cut-from-unprefixed",
        model(vocab={"a": 0, "bc": 1}, merges=["a bc"], continuing_subword_prefix="##"),
        None,
    ),
    (
        "prefix-longer-than-b",
        model(vocab={"a": 0, "b": 1, "ab": 2}, merges=["a b"], continuing_subword_prefix="##"),
        "model.merges[0]",
    ),
    ("prefix-empty", model(vocab={"a": 0, "b": 1, "ab": 2}, merges=["a b"], continuing_subword_prefix=""), None),
    ("dropout-0", model(dropout=0), None),
    ("dropout-1", model(dropout=1), None),
    ("dropout-0.1", model(dropout=0.1), None),
    ("dropout-f32-rounds-to-1", model(dropout=1.00000001), None),
    ("dropout-above-1", model(dropout=1.0001), "model.dropout"),
    ("dropout-negative", model(dropout=-1e-5), "model.dropout"),
    ("dropout-negative-underflows", model(dropout=-1e-50), None),
    ("dropout-huge", model(dropout=1e39), "model.dropout"),
    ("dropout-string", model(dropout="0.1"), "model.dropout"),
    ("dropout-bool", model(dropout=True), "model.dropout"),
    (
        "bpe-nulls-mean-default",
        model(
            dropout=None,
            unk_token=None,
            continuing_subword_prefix=None,
            end_of_word_suffix=None,
            fuse_unk=None,
            byte_fallback=None,
            ignore_merges=None,
        ),
        None,
    ),
    (
        "bpe-all-options",
        model(unk_token="a", end_of_word_suffix="</w>", fuse_unk=True, byte_fallback=True, ignore_merges=True),
        None,
    ),
    ("bpe-fuse-unk-int", model(fuse_unk=1), "model.fuse_unk"),
    ("bpe-unk-not-in-vocab", model(unk_token="zzz"), None),
    ("bpe-unk-number", model(unk_token=5), "model.unk_token"),
    ("bpe-extra-key", model(extra=[1, {"x": None}]), None),
    ("id-u32-max", model(vocab={"a": 0, "b": 1, "ab": 2**32 - 1}, merges=["a b"]), None),
    ("id-out-of-range", model(vocab={"a": 0, "b": 1, "ab": 2**32}, merges=["a b"]), "model.vocab.ab"),
    ("id-negative", model(vocab={"a": 0, "b": -1}, merges=[]), "model.vocab.b"),
    ("id-float", model(vocab={"a": 0, "b": 1.0}, merges=[]), "model.vocab.b"),
    ("id-string", model(vocab={"a": 0, "b": "1"}, merges=[]), "model.vocab.b"),
    ("id-bool", model(vocab={"a": 0, "b": True}, merges=[]), "model.vocab.b"),
    ("id-null-odd-token", model(vocab={"a": 0, "Ġ b": None}, merges=[]), "model.vocab['Ġ b']"),
    ("vocab-holes", model(vocab={"a": 0, "b": 7, "ab": 3}, merges=["a b"]), None),
    ("duplicate-ids", model(vocab={"a": 0, "b": 1, "ab": 2, "x": 0, "xb": 2}, merges=["a b"]), None),
    ("vocab-as-list", model(vocab=[["a", 0]], merges=[]), "model.vocab"),
    ("vocab-repeated-key", '{"model": {"type": "WordLevel", "vocab": {"a": 0, "a": 1}, "unk_token": "a"}}', None),
    ("bpe-untagged-bad-merge", doc(model={"vocab": {"a": 0}, "merges": ["a b"]}), "model.merges[0]"),
    ("untagged-bpe-wins", doc(model=_with(WP, type=_DROP, merges=[])), None),
    (
        "untagged-bpe-error-falls-through",
        doc(model={"vocab": {"a": 0, "aa": 1}, "merges": [["a", "x"]], "unk_token": "a"}),
        None,
    ),  # BPE fails with an error: WordLevel is next
    (
        "untagged-bpe-panic-ends-it",
        doc(model={"vocab": {"a": 0}, "merges": [["a", "a"]], "unk_token": "a"}),
        "model.merges[0]",
    ),
    (
        "untagged-bpe-short-b-panics",
        doc(model={"vocab": {"a": 0, "b": 1}, "merges": ["a b"], "continuing_subword_prefix": "##", "unk_token": "a"}),
        "model.merges[0]",
    ),
    # --- WordPiece, WordLevel, Unigram
    ("wordpiece", model(WP), None),
    ("wordpiece-untagged", model(WP, type=_DROP), None),
    ("wordpiece-no-max", model(WP, max_input_chars_per_word=_DROP), "model.max_input_chars_per_word"),
    ("wordpiece-no-prefix", model(WP, continuing_subword_prefix=_DROP), "model.continuing_subword_prefix"),
    ("wordpiece-no-unk", model(WP, unk_token=_DROP), "model.unk_token"),
    ("wordpiece-unk-null", model(WP, unk_token=None), "model.unk_token"),
    ("wordpiece-unk-not-in-vocab", model(WP, unk_token="zz"), None),
    ("wordpiece-max-negative", model(WP, max_input_chars_per_word=-1), "model.max_input_chars_per_word"),
    ("wordpiece-max-u64", model(WP, max_input_chars_per_word=2**64 - 1), None),
    ("wordpiece-max-over-u64", model(WP, max_input_chars_per_word=2**64), "model.max_input_chars_per_word"),
    ("wordpiece-duplicate-ids", model(WP, vocab={"[UNK]": 1, "a": 1}), None),
    ("wordlevel", model(WL), None),
    ("wordlevel-untagged", model(WL, type=_DROP), None),
    ("wordlevel-no-unk", model(WL, unk_token=_DROP), "model.unk_token"),
    ("wordlevel-unk-not-in-vocab", model(WL, unk_token="zz"), None),
    ("wordlevel-no-vocab", model(WL, vocab=_DROP), "model.vocab"),
    ("wordlevel-empty-vocab", model(WL, vocab={}), None),
    ("wordlevel-tagged-wordpiece", model(WL, type="WordPiece"), "model.continuing_subword_prefix"),
    ("untagged-nothing-fits", doc(model={"foo": 1}), "model"),
    ("untagged-vocab-only", doc(model={"vocab": {}}), "model.unk_token"),
    ("unigram", model(UG), None),
    ("unigram-untagged", model(UG, type=_DROP), None),
    ("unigram-untagged-vocab-only", doc(model={"vocab": []}), None),
    ("unigram-unk-id-null", model(UG, unk_id=None), None),
    ("unigram-no-unk-id", model(UG, unk_id=_DROP), None),
    ("unigram-unk-id-out-of-range", model(UG, unk_id=3), "model.unk_id"),
    ("unigram-unk-id-negative", model(UG, unk_id=-1), "model.unk_id"),
    ("unigram-empty-vocab", model(UG, vocab=[], unk_id=_DROP), None),
    ("unigram-empty-vocab-with-unk", model(UG, vocab=[]), "model.unk_id"),
    ("unigram-byte-fallback-null", model(UG, byte_fallback=None), "model.byte_fallback"),
    ("unigram-byte-fallback", model(UG, byte_fallback=True), None),
    ("unigram-repeated-piece", model(UG, vocab=[["a", 0], ["a", -1]]), None),
    ("unigram-triple", model(UG, vocab=[["a", 0, 1]]), "model.vocab[0]"),
    ("unigram-single", model(UG, vocab=[["a"]]), "model.vocab[0]"),
    ("unigram-score-string", model(UG, vocab=[["a", "0"]]), "model.vocab[0][1]"),
    ("unigram-score-bool", model(UG, vocab=[["a", True]]), "model.vocab[0][1]"),
    ("unigram-piece-number", model(UG, vocab=[[1, 0.0]]), "model.vocab[0][0]"),
    ("unigram-vocab-map", model(UG, vocab={"a": 0}), "model.vocab"),
    ("unigram-no-vocab", model(UG, vocab=_DROP), "model.vocab"),
    ("unigram-big-scores", model(UG, vocab=[["a", 10**20], ["b", 1e300]], unk_id=0), None),
    # --- added_tokens
    ("added", added(tok()), None),
    ("added-ids-reassigned", added(tok(content="<x>", id=77), tok(content="<y>", id=1)), None),
    ("added-existing-vocab-token", added(tok(content="b", id=9)), None),
    ("added-empty-content-dropped", added(tok(content="", id=3), tok(content="<x>")), None),
    ("added-repeated-same", added(tok(content="<x>"), tok(content="<x>")), None),
    ("added-repeated-different", added(tok(content="<x>"), tok(content="<y>"), tok(content="<x>", lstrip=True)), None),
    (
        "added-next-id-after-holes",
        added(tok(content="<x>"), model={"type": "WordLevel", "vocab": {"a": 0, "b": 7}, "unk_token": "a"}),
        None,
    ),
    (
        "added-id-collides-with-vocab",
        added(tok(content="<x>"), tok(content="<y>"), model=_with(WL, vocab={"a": 0, "b": 3})),
        None,
    ),
    (
        "added-unigram-repeated-piece",
        added(tok(content="a"), tok(content="<x>"), model=_with(UG, vocab=[["a", 0], ["a", -1], ["b", 0]])),
        None,
    ),
    ("added-normalized", added(tok(content="ABC", normalized=True), normalizer={"type": "Lowercase"}), None),
    *[(f"added-no-{field}", added(tok(**{field: _DROP})), f"added_tokens[0].{field}") for field in TOKEN],
    ("added-id-null", added(tok(id=None)), "added_tokens[0].id"),
    ("added-id-negative", added(tok(id=-1)), "added_tokens[0].id"),
    ("added-id-over-u32", added(tok(), tok(id=2**32)), "added_tokens[1].id"),
    ("added-special-int", added(tok(special=1)), "added_tokens[0].special"),
    ("added-content-null", added(tok(), tok(), tok(content=None)), "added_tokens[2].content"),
    ("added-extra-key", added(tok(foo=1)), None),
    ("added-as-array", added(["<s>", False, False, False, False, True]), "added_tokens[0]"),
    ("added-null", doc(added_tokens=None), "added_tokens"),
    ("added-map", doc(added_tokens={}), "added_tokens"),
    ("added-missing", doc(added_tokens=_DROP), None),
    ("added-repeated-field", '{"added_tokens": [{"id": 1, %s}], %s}' % (AT, M), "added_tokens[0].id"),
    ("added-repeated-unknown", '{"added_tokens": [{"x": 1, "x": 2, %s}], %s}' % (AT, M), None),
    # --- post_processor
    ("template", doc(post_processor=TEMPLATE), None),
    ("template-untagged", doc(post_processor=_with(TEMPLATE, type=_DROP)), None),
    ("template-type-ignored", doc(post_processor=_with(TEMPLATE, type="Foo")), None),
    ("template-string", doc(post_processor=_with(TEMPLATE, single="[CLS] $A")), "post_processor.single"),
    ("template-string-items", doc(post_processor=_with(TEMPLATE, single=["[CLS]", "$A"])), "post_processor.single[0]"),
    ("template-no-pair", doc(post_processor=_with(TEMPLATE, pair=_DROP)), "post_processor.pair"),
    (
        "template-no-special-tokens",
        doc(post_processor=_with(TEMPLATE, special_tokens=_DROP)),
        "post_processor.special_tokens",
    ),
    (
        "template-special-tokens-list",
        doc(post_processor=_with(TEMPLATE, special_tokens=[{"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}])),
        "post_processor.special_tokens",
    ),
    (
        "template-undefined-special",
        doc(post_processor=_with(TEMPLATE, single=[{"SpecialToken": {"id": "[XX]", "type_id": 0}}])),
        None,
    ),
    ("template-pair-without-b", doc(post_processor=_with(TEMPLATE, pair=[SEQ_A])), None),
    (
        "template-ids-tokens-differ",
        doc(post_processor=_with(TEMPLATE, special_tokens={"[CLS]": {"id": "x", "ids": [1, 2], "tokens": []}})),
        None,
    ),
    (
        "template-special-order",
        doc(
            post_processor=_with(
                TEMPLATE, special_tokens={k: {"id": k, "ids": [], "tokens": []} for k in ("b", "é", "a", "Z")}
            )
        ),
        None,
    ),
    (
        "template-array-forms",
        doc(
            post_processor=_with(
                TEMPLATE,
                single=[{"SpecialToken": ["[CLS]", 0]}, {"Sequence": [{"A": None}, 0]}],
                special_tokens={"[CLS]": ["[CLS]", [1], ["[CLS]"]]},
            )
        ),
        None,
    ),
    ("template-whole-array", doc(post_processor=[[SEQ_A], [SEQ_A, SEQ_B], {}]), None),
    (
        "template-sequence-c",
        doc(post_processor=_with(TEMPLATE, single=[{"Sequence": {"id": "C", "type_id": 0}}])),
        "post_processor.single[0].Sequence.id",
    ),
    (
        "template-sequence-a-lowercase",
        doc(post_processor=_with(TEMPLATE, single=[{"Sequence": {"id": "a", "type_id": 0}}])),
        "post_processor.single[0].Sequence.id",
    ),
    (
        "template-no-type-id",
        doc(post_processor=_with(TEMPLATE, pair=[SEQ_A, {"Sequence": {"id": "B"}}])),
        "post_processor.pair[1].Sequence.type_id",
    ),
    (
        "template-type-id-over-u32",
        doc(post_processor=_with(TEMPLATE, single=[{"Sequence": {"id": "A", "type_id": 2**32}}])),
        "post_processor.single[0].Sequence.type_id",
    ),
    (
        "template-piece-two-keys",
        doc(post_processor=_with(TEMPLATE, single=[{**SEQ_A, **CLS}])),
        "post_processor.single[0]",
    ),
    (
        "template-piece-array-of-3",
        doc(post_processor=_with(TEMPLATE, single=[{"Sequence": ["A", 0, 1]}])),
        "post_processor.single[0].Sequence",
    ),
    (
        "template-special-no-tokens",
        doc(post_processor=_with(TEMPLATE, special_tokens={"[CLS]": {"id": "[CLS]", "ids": [1]}})),
        "post_processor.special_tokens['[CLS]'].tokens",
    ),
    (
        "template-special-negative-id",
        doc(post_processor=_with(TEMPLATE, special_tokens={"[CLS]": {"id": "[CLS]", "ids": [-1], "tokens": ["x"]}})),
        "post_processor.special_tokens['[CLS]'].ids[0]",
    ),
    ("bert", doc(post_processor=BERT_PP), None),
    ("bert-untagged", doc(post_processor=_with(BERT_PP, type=_DROP)), None),
    ("bert-array", doc(post_processor=[["[SEP]", 102], ["[CLS]", 101]]), None),
    ("bert-tagged-roberta", doc(post_processor=_with(BERT_PP, type="RobertaProcessing")), None),
    ("bert-id-first", doc(post_processor=_with(BERT_PP, sep=[102, "[SEP]"])), "post_processor.sep[0]"),
    ("bert-pair-of-3", doc(post_processor=_with(BERT_PP, sep=["[SEP]", 102, 1])), "post_processor.sep"),
    ("bert-no-cls", doc(post_processor=_with(BERT_PP, cls=_DROP)), "post_processor.cls"),
    ("roberta", doc(post_processor=ROBERTA), None),
    ("roberta-array", doc(post_processor=[["</s>", 2], ["<s>", 0], True, True]), None),
    ("roberta-tagged-bert", doc(post_processor=_with(ROBERTA, type="BertProcessing")), None),
    ("roberta-missing-bool-is-bert", doc(post_processor=_with(ROBERTA, add_prefix_space=_DROP)), None),
    ("roberta-null-bool", doc(post_processor=_with(ROBERTA, add_prefix_space=None, sep=_DROP)), "post_processor.sep"),
    ("byte-level-processor", doc(post_processor=BYTE_LEVEL), None),
    (
        "byte-level-processor-untagged",
        doc(post_processor=_with(BYTE_LEVEL, type=_DROP)),
        "post_processor.sep",
    ),  # the likeliest struct: a RobertaProcessing
    (
        "byte-level-processor-no-trim",
        doc(post_processor=_with(BYTE_LEVEL, trim_offsets=_DROP)),
        "post_processor.trim_offsets",
    ),
    ("processor-sequence", doc(post_processor={"type": "Sequence", "processors": [BYTE_LEVEL, TEMPLATE]}), None),
    ("processor-sequence-untagged", doc(post_processor={"processors": []}), "post_processor"),
    (
        "processor-sequence-null-item",
        doc(post_processor={"type": "Sequence", "processors": [BYTE_LEVEL, None]}),
        "post_processor.processors[1]",
    ),
    (
        "processor-sequence-bad-nested",
        doc(
            post_processor={
                "type": "Sequence",
                "processors": [{"type": "Sequence", "processors": [{"type": "BertProcessing", "sep": ["x", 1]}]}],
            }
        ),
        "post_processor.processors[0].processors[0].cls",
    ),
    ("processor-empty-object", doc(post_processor={}), "post_processor"),
    ("processor-unknown-type", doc(post_processor={"type": "Foo"}), "post_processor.type"),
    ("processor-string", doc(post_processor="BertProcessing"), "post_processor"),
    (
        "processor-repeated-field",
        '{"post_processor": {"type": "BertProcessing", "sep": ["a", 1], "sep": ["a", 1], "cls": ["b", 2]}, %s}' % M,
        "post_processor.sep",
    ),
    (
        "processor-repeated-roberta-field-is-bert",
        '{"post_processor": {"sep": ["a", 1], "cls":'
        ' ["b", 2], "trim_offsets": true, "trim_offsets": true, "add_prefix_space": true}, %s}' % M,
        None,
    ),
    (
        "processor-repeated-special-token-key",
        '{"post_processor": {"single": [], "pair": [],'
        ' "special_tokens": {"a": {"id": "a", "ids": [], "tokens": []}, "a": {"id": "b", "ids": [],'
        ' "tokens": []}}}, %s}' % M,
        None,
    ),
    (
        "processor-repeated-piece",
        '{"post_processor": {"single": [{"Sequence": {"id": "A",'
        ' "type_id": 0}, "Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {}},'
        " %s}" % M,
        "post_processor.single[0]",
    ),
    # --- decoder
    *[
        (f"decoder-{name}", doc(decoder=section), path)
        for name, section, path in [
            ("bpe", {"type": "BPEDecoder", "suffix": "</w>"}, None),
            ("bpe-no-suffix", {"type": "BPEDecoder"}, "decoder.suffix"),
            ("bpe-untagged", {"suffix": "</w>"}, None),
            ("bpe-array", ["</w>"], None),
            ("bpe-unknown-type", {"type": "BPE", "suffix": "</w>"}, None),
            ("byte-level", BYTE_LEVEL, None),
            ("byte-level-bare", {"type": "ByteLevel"}, "decoder.add_prefix_space"),
            ("byte-level-untagged", _with(BYTE_LEVEL, type=_DROP), "decoder"),
            ("wordpiece", {"type": "WordPiece", "prefix": "##", "cleanup": True}, None),
            ("wordpiece-no-cleanup", {"type": "WordPiece", "prefix": "##"}, "decoder.cleanup"),
            ("wordpiece-array", ["##", True], None),
            ("metaspace", {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}, None),
            ("metaspace-untagged", {"replacement": "▁"}, "decoder"),
            ("metaspace-array", ["Metaspace", "▁", None, "first", True, None], None),
            (
                "metaspace-add-prefix-false",
                {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},
                "decoder.add_prefix_space",
            ),
            ("ctc", {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}, None),
            ("ctc-array", ["<pad>", "|", True], None),
            ("ctc-missing", {"type": "CTC", "pad_token": "<pad>"}, "decoder.word_delimiter_token"),
            ("sequence", {"type": "Sequence", "decoders": [{"type": "Fuse"}, ["##", True]]}, None),
            ("sequence-untagged", {"decoders": []}, "decoder"),
            (
                "sequence-bad-item",
                {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Foo"}]},
                "decoder.decoders[1].type",
            ),
            ("replace", {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, None),
            (
                "replace-bad-regex",
                {"type": "Replace", "pattern": {"Regex": "("}, "content": " "},
                "decoder.pattern.Regex",
            ),
            ("replace-array", [{"String": "▁"}, " "], None),
            ("fuse", {"type": "Fuse"}, None),
            ("fuse-as-map", {"type": {"Fuse": None}}, None),
            ("fuse-array-is-bpe", ["Fuse"], None),
            ("strip", {"type": "Strip", "content": " ", "start": 1, "stop": 0}, None),
            ("strip-array", [" ", 1, 0], None),
            ("strip-two-chars", {"type": "Strip", "content": "ab", "start": 1, "stop": 0}, "decoder.content"),
            ("strip-negative", {"type": "Strip", "content": " ", "start": -1, "stop": 0}, "decoder.start"),
            ("byte-fallback", {"type": "ByteFallback", "x": 1}, None),
            ("empty-object", {}, "decoder"),
            ("string", "Fuse", "decoder"),
            ("empty-array", [], "decoder"),
            ("type-null", {"type": None}, "decoder.type"),
            ("unknown-type", {"type": "Foo"}, "decoder.type"),
        ]
    ],
    (
        "decoder-repeated-type-untagged",
        '{"decoder": {"type": "x", "type": "CTC", "suffix": "s",'
        ' "pad_token": "p", "word_delimiter_token": "w", "cleanup": true}, %s}' % M,
        None,
    ),
    ("decoder-repeated-field", '{"decoder": {"type": "BPEDecoder", "suffix": "a", "suffix": "b"}, %s}' % M, None),
    ("normalizer-repeated-type", '{"normalizer": {"type": "NFC", "type": "NFC"}, %s}' % M, None),
    (
        "pre-tokenizer-repeated-type",
        '{"pre_tokenizer": {"type": "Delimiter", "type": "CharDelimiterSplit", "delimiter": "x"}, %s}' % M,
        None,
    ),
    (
        "model-repeated-type",
        '{"model": {"type": "WordLevel", "type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}',
        "model.type",
    ),
    (
        "model-repeated-field",
        '{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "x", "unk_token": "a"}}',
        None,
    ),
    # --- truncation, padding
    ("truncation", doc(truncation=TRUNC), None),
    ("truncation-default-direction", doc(truncation=_with(TRUNC, direction=_DROP)), None),
    ("truncation-direction-null", doc(truncation=_with(TRUNC, direction=None)), "truncation.direction"),
    ("truncation-direction-lowercase", doc(truncation=_with(TRUNC, direction="left")), "truncation.direction"),
    ("truncation-direction-as-map", doc(truncation=_with(TRUNC, direction={"Left": None})), None),
    ("truncation-direction-map-empty", doc(truncation=_with(TRUNC, direction={"Left": {}})), "truncation.direction"),
    ("truncation-no-stride", doc(truncation=_with(TRUNC, stride=_DROP)), "truncation.stride"),
    ("truncation-no-strategy", doc(truncation=_with(TRUNC, strategy=_DROP)), "truncation.strategy"),
    ("truncation-stride-over-max", doc(truncation=_with(TRUNC, stride=1000, max_length=1)), None),
    ("truncation-array", doc(truncation=["Left", 5, "OnlyFirst", 1]), None),
    ("truncation-array-short", doc(truncation=["Left", 5, "OnlyFirst"]), "truncation"),
    ("truncation-array-long", doc(truncation=["Left", 5, "OnlyFirst", 1, 2]), "truncation"),
    ("truncation-empty", doc(truncation={}), "truncation.max_length"),
    ("truncation-bool", doc(truncation=True), "truncation"),
    (
        "truncation-repeated-field",
        '{"truncation": {"max_length": 1, "max_length": 2, "strategy": "OnlyFirst", "stride": 0}, %s}' % M,
        "truncation.max_length",
    ),
    ("padding", doc(padding=PAD), None),
    ("padding-fixed", doc(padding=_with(PAD, strategy={"Fixed": 8}, pad_to_multiple_of=8)), None),
    ("padding-fixed-bare", doc(padding=_with(PAD, strategy="Fixed")), "padding.strategy"),
    ("padding-fixed-negative", doc(padding=_with(PAD, strategy={"Fixed": -1})), "padding.strategy.Fixed"),
    ("padding-batch-longest-as-map", doc(padding=_with(PAD, strategy={"BatchLongest": None})), None),
    ("padding-batch-longest-map-empty", doc(padding=_with(PAD, strategy={"BatchLongest": {}})), "padding.strategy"),
    (
        "padding-strategy-two-keys",
        doc(padding=_with(PAD, strategy={"Fixed": 1, "BatchLongest": None})),
        "padding.strategy",
    ),
    ("padding-no-multiple", doc(padding=_with(PAD, pad_to_multiple_of=_DROP)), None),
    *[
        (f"padding-no-{field}", doc(padding=_with(PAD, **{field: _DROP})), f"padding.{field}")
        for field in PAD
        if field != "pad_to_multiple_of"
    ],
    ("padding-pad-id-over-u32", doc(padding=_with(PAD, pad_id=2**32)), "padding.pad_id"),
    ("padding-array", doc(padding=["BatchLongest", "Left", None, 1, 2, "x"]), None),
    ("padding-array-short", doc(padding=["BatchLongest", "Left", None, 1, 2]), "padding"),
    (
        "padding-repeated-fixed",
        '{"padding": {"strategy": {"Fixed": 1, "Fixed": 2}, "direction":'
        ' "Left", "pad_id": 0, "pad_type_id": 0, "pad_token": "x"}, %s}' % M,
        "padding.strategy",
    ),
]


@pytest.mark.parametrize("document, path", [pytest.param(d, p, id=i) for i, d, p in CASES])
def test_table_matches_oracle(document, path):
    error = check_same(document)
    if path is None:
        assert error is None
        assert oracle(document) is not REJECTED
    else:
        assert error is not None, "expected a rejection"
        assert error.path == path, str(error)


def test_case_ids_are_unique():
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------- messages, models


def test_merge_errors_name_the_merge():
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "long": 4}
    merges = ["a b"] * 1234 + ["ab c"]
    with pytest.raises(spec.TokenizerJsonError) as info:
        spec.parse_tokenizer(model(vocab=vocab, merges=merges))
    assert str(info.value) == "model.merges[1234]: 'ab' + 'c' -> 'abc' is not in model.vocab"
    with pytest.raises(spec.TokenizerJsonError) as info:  # old untagged files say the same
        spec.parse_tokenizer(doc(model={"vocab": vocab, "merges": [["a", "x"]]}))
    assert str(info.value) == "model.merges[0]: 'a' + 'x': 'x' is not in model.vocab"
    with pytest.raises(spec.TokenizerJsonError, match=r"^model\.merges\[3\]: 'a  b' must be two"):
        spec.parse_tokenizer(model(merges=["#version: 0.2", "a b", "ab c", "a  b"]))
    with pytest.raises(spec.TokenizerJsonError, match=r"^model\.merges\[1\]: .*oracle panics"):
        spec.parse_tokenizer(model(vocab={"a": 0, "b": 1}, merges=["#version", "a b"]))


def test_error_paths_of_entry_points():
    with pytest.raises(spec.TokenizerJsonError, match=r"^m\.vocab\.a: "):
        spec.parse_model({"type": "WordLevel", "vocab": {"a": -1}, "unk_token": "a"}, path="m")
    with pytest.raises(spec.TokenizerJsonError, match=r"^x\.sep: missing"):
        spec.parse_post_processor({"type": "BertProcessing", "cls": ["a", 1]}, path="x")
    with pytest.raises(spec.TokenizerJsonError, match=r"^decoder\.suffix: "):
        spec.parse_decoder({"type": "BPEDecoder", "suffix": 5})
    assert spec.parse_decoder(None) is None and spec.parse_post_processor(None) is None
    with pytest.raises(spec.TokenizerJsonError) as info:
        spec.load_tokenizer_json('{"model": {"type": "WordLevel", "vocab": {"a": 0,}}}')
    assert info.value.path == "model.vocab"
    assert re.search(r"^invalid JSON at line 1 column \d+: ", info.value.message)
    with pytest.raises(TypeError):
        spec.load_tokenizer_json(None)


def test_deep_nesting_is_a_clear_error():
    text = '{"model": {"type": "BPE", "vocab": ' + nest(100_000) + "}}"
    with pytest.raises(spec.TokenizerJsonError) as info:
        spec.load_tokenizer_json(text)
    assert info.value.path == "model.vocab" + "[0]" * 125
    assert "more than 127 levels" in info.value.message and "line 1 column" in info.value.message
    with pytest.raises(spec.TokenizerJsonError):  # also from an already parsed object
        spec.parse_tokenizer({"model": json.loads(nest(500))})
    from tagpipe.spec._json_text import _scan  # a RecursionError not due to the text is re-raised

    assert _scan('{"model": ' + nest(126) + "}", max_depth=spec.MAX_DEPTH) == (None, "")
    assert _scan('{"model": ' + nest(127) + "}", max_depth=spec.MAX_DEPTH)[1] == ("model" + "[0]" * 126)


def test_models_hold_explicit_fields():
    loaded = spec.parse_tokenizer(
        doc(
            model=_with(BPE, type=_DROP, dropout=0.1, merges=["#version: 0.2", "a b", "ab c", "a b"]),
            added_tokens=[tok(content="<x>", id=50), tok(content="b", id=51), tok(content="")],
            truncation=_with(TRUNC, direction=_DROP),
            padding=_with(PAD, strategy={"Fixed": 8}, pad_to_multiple_of=_DROP),
            post_processor=_with(TEMPLATE, type=_DROP),
            decoder=["##", True],
        )
    )
    bpe = loaded.model
    assert isinstance(bpe, spec.BPE) and bpe.type == "BPE"
    assert bpe.merges == (("ab", "c"), ("a", "b"))  # "#version" dropped, a repeat at its last rank
    assert bpe.dropout == pytest.approx(0.1, rel=1e-7) and bpe.dropout != 0.1  # an f32
    assert bpe.to_json()["dropout"] == 0.1
    assert (bpe.fuse_unk, bpe.byte_fallback, bpe.ignore_merges, bpe.unk_token) == (False, False, False, None)
    assert [(t.id, t.content) for t in loaded.added_tokens] == [(1, "b"), (5, "<x>")]
    assert loaded.truncation.direction == "Right"
    assert loaded.padding.strategy == spec.FixedPadding(length=8)
    assert loaded.padding.pad_to_multiple_of is None
    template = loaded.post_processor
    assert isinstance(template, spec.TemplateProcessing)
    assert template.pair[2] == spec.Piece.model_validate(SEQ_B)
    assert (template.pair[2].kind, template.pair[2].id, template.pair[2].type_id) == ("Sequence", "B", 1)
    assert isinstance(loaded.decoder, spec.WordPieceDecoder) and loaded.decoder.prefix == "##"
    unigram = spec.parse_model(_with(UG, vocab=[["a", 0], ["b", -1], ["a", -2]], unk_id=None))
    assert unigram.vocab == (("a", 0.0), ("b", -1.0), ("a", -2.0))
    assert unigram.token_to_id("a") == 2 and unigram.vocab_size() == 3
    assert loaded.version == "1.0" and loaded.normalizer is None


def test_vocab_with_u32_max_is_written_empty():
    out = spec.parse_tokenizer(model(vocab={"a": 0, "b": 1, "ab": 2**32 - 1}, merges=["a b"]))
    assert out.to_json()["model"]["vocab"] == {}  # as the oracle: its 0..max+1 wraps
    assert out.model.vocab["ab"] == 2**32 - 1


def test_duplicate_ids_keep_the_first_token():
    loaded = spec.parse_tokenizer(model(vocab={"a": 0, "b": 1, "ab": 2, "x": 0, "xb": 2}, merges=["x b", "a b"]))
    assert loaded.model.merges == (("a", "b"),)  # same pair of ids: one merge, last rank
    assert loaded.to_json()["model"]["vocab"] == {"a": 0, "b": 1, "ab": 2}
    assert loaded.to_json()["model"]["merges"] == [["a", "b"]]


def test_merge_ids_are_the_ids_the_oracle_merges_by():
    """BPE.merge_ids (what the native model is built from): (left, right, result) per merge in
    rank order, a repeat at its last rank, the result's prefix cut, duplicate ids as in the file."""
    section = _with(
        BPE,
        vocab={"a": 0, "b": 1, "ab": 2, "x": 0, "xb": 3, "abab": 4},
        merges=["#version: 0.2", "a b", "ab ab", "x b"],
    )
    bpe = spec.parse_model(section)
    assert bpe.merges == (("ab", "ab"), ("x", "b"))  # "x b" is "a b" again (ids 0, 1)
    assert bpe.merge_ids.tolist() == [[2, 2, 4], [0, 1, 3]]  # (the oracle: "ab" encodes as 3)
    assert bpe.to_json()["merges"] == [["ab", "ab"], ["a", "b"]]
    assert bpe.merge_ids.dtype.name == "uint32" and not bpe.merge_ids.flags.writeable
    cut = spec.parse_model(
        _with(BPE, vocab={"a": 0, "##b": 1, "ab": 2}, merges=[["a", "##b"]], continuing_subword_prefix="##")
    )
    assert cut.merge_ids.tolist() == [[0, 1, 2]]
    empty = spec.parse_model(_with(BPE, vocab={"a": 0}, merges=[]))
    assert empty.merge_ids.shape == (0, 3)
    assert bpe == spec.parse_model(copy.deepcopy(section)) != cut  # (the ids do not break ==)


def test_vocab_is_not_the_callers_object():
    """parse_* keep a copy of a vocabulary they are handed; only load_tokenizer_json, which
    parsed the text itself, keeps its own object."""
    section = _with(BPE, vocab={"a": 0, "b": 1, "ab": 2}, merges=["a b"])
    bpe = spec.parse_model(section)
    section["vocab"]["zz"] = 9
    assert "zz" not in bpe.vocab and bpe.vocab == {"a": 0, "b": 1, "ab": 2}


def test_oracle_aborts_where_we_report(tmp_path):
    """Cutting continuing_subword_prefix inside a character: the oracle builds invalid UTF-8 for
    its error message and pyo3 aborts the whole process; we give an error."""
    section = _with(BPE, vocab={"a": 0, "é": 1}, merges=["a é"], continuing_subword_prefix="#")
    with pytest.raises(spec.TokenizerJsonError) as info:
        spec.parse_tokenizer(doc(model=section))
    assert info.value.path == "model.merges[0]" and "splits a character" in info.value.message
    code = textwrap.dedent(f"""
        import tokenizers
        try:
            tokenizers.Tokenizer.from_str({json.dumps(json.dumps(doc(model=section)))})
        except BaseException:
            raise SystemExit(3)
        raise SystemExit(0)
    """)
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "RUST_BACKTRACE": "0"},
    )
    assert result.returncode != 0  # rejected, one way or another (today: an abort)
    assert _oracle_would_abort(doc(model=section))
    assert oracle(doc(model=section)) is REJECTED


def test_either_import_order(tmp_path):
    code = (
        "import tagpipe.spec.document as m, tagpipe.spec as s; "
        "assert s.parse_tokenizer is m.parse_tokenizer and 'TokenizerSpec' in s.__all__"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=tmp_path)


# ---------------------------------------------------------------------------- hypothesis

SEEDS = [
    doc(
        model=BPE,
        added_tokens=[tok(), tok(content="ab", special=False)],
        post_processor=TEMPLATE,
        decoder=BYTE_LEVEL,
        truncation=TRUNC,
        padding=PAD,
    ),
    doc(
        model=WP,
        added_tokens=[tok(content="[CLS]", id=101)],
        post_processor=BERT_PP,
        decoder={"type": "WordPiece", "prefix": "##", "cleanup": True},
    ),
    doc(
        model=UG,
        post_processor=ROBERTA,
        padding=_with(PAD, strategy={"Fixed": 4}),
        decoder={
            "type": "Sequence",
            "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "Fuse"}],
        },
    ),
    doc(
        model=_with(
            BPE,
            type=_DROP,
            continuing_subword_prefix="##",
            vocab={"a": 0, "##b": 1, "ab": 2, "b": 3},
            merges=[["a", "##b"]],
        ),
        truncation=["Left", 3, "OnlySecond", 1],
        post_processor={"type": "Sequence", "processors": [BYTE_LEVEL, BERT_PP]},
    ),
    doc(model=WL, added_tokens=[tok(content="<unk>", id=9), tok(content="", id=3)]),
] + [document for _, document, path in CASES if path is None and isinstance(document, dict)]
WORDS = [
    "",
    "a",
    "b",
    "ab",
    "c",
    "abc",
    "a b",
    "ab c",
    "##b",
    "##",
    "#version",
    "é",
    "<s>",
    "BPE",
    "WordPiece",
    "WordLevel",
    "Unigram",
    "BPEDecoder",
    "TemplateProcessing",
    "BertProcessing",
    "RobertaProcessing",
    "ByteLevel",
    "Sequence",
    "Fuse",
    "Strip",
    "SpecialToken",
    "A",
    "B",
    "C",
    "Left",
    "Right",
    "Fixed",
    "BatchLongest",
    "LongestFirst",
    "OnlyFirst",
    "1.0",
    "type",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(WORDS),
    st.sampled_from([0, 1, 2, 3, 5, 101, -1, 2**32 - 1, 2**32, 2**64, 0.5, 1.0, -0.0, 1.5, 1e-50]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(WORDS + ["id", "ids", "tokens", "vocab", "merges"]), inner, max_size=2),
    ),
    max_leaves=4,
)


def _slots(node, out):
    """Every (container, key) pair under ``node``."""
    if isinstance(node, dict):
        for key in list(node):
            out.append((node, key))
            _slots(node[key], out)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            out.append((node, i))
            _slots(item, out)
    return out


@st.composite
def mutated(draw):
    """A known-good document with a few values set, dropped, copied or added: near the edge."""
    document = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(document, [])
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["set", "set", "drop", "copy", "add"]))
        if action == "set":
            container[key] = draw(values)
        elif action == "drop":
            del container[key]
        elif action == "copy" and isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
        elif action == "copy":  # another key of this object gets the same value
            other = draw(st.sampled_from(list(container)))
            container[other] = copy.deepcopy(container[key])
        elif isinstance(container, dict):
            container[draw(st.sampled_from(WORDS))] = draw(values)
        else:
            container.append(draw(values))
    return document


FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@FUZZ
@given(document=mutated())
def test_mutated_documents_match_oracle(document):
    check_same(document)


@FUZZ
@given(data=st.data())
def test_mutated_text_matches_oracle(data):
    """Broken and odd JSON text: truncations, stray characters, repeated keys, bad UTF-8."""
    text = json.dumps(data.draw(st.sampled_from(SEEDS)), ensure_ascii=False)
    for _ in range(data.draw(st.integers(1, 2))):
        at = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["cut", "insert", "delete", "repeat-key"]))
        if action == "cut":
            text = text[:at]
        elif action == "insert":
            text = (
                text[:at]
                + data.draw(
                    st.sampled_from(
                        [
                            '"',
                            ",",
                            ":",
                            "{",
                            "}",
                            "[",
                            "]",
                            " ",
                            "\\",
                            "-0",
                            "1e999",
                            "\ud800",
                            "\\ud800",
                            "\x00",
                            "é",
                            '"type": "BPE", ',
                            '"x": 1, ',
                        ]
                    )
                )
                + text[at:]
            )
        elif action == "delete":
            text = text[:at] + text[at + 1 :]
        else:  # repeat one "key": value pair right after itself
            start = text.find('"', at)
            colon = text.find('": ', start)
            end = text.find(", ", colon)
            if start >= 0 and 0 <= colon and end > colon and text.count('"', start, colon) == 1:
                text = text[:end] + ", " + text[start:end] + text[end:]
    if "\ud800" in text or data.draw(st.booleans()):
        check_same(text)  # a str with a lone surrogate cannot even reach the oracle's from_str
    else:
        raw = text.encode("utf-8")
        at = data.draw(st.integers(0, len(raw)))
        check_same(raw[:at] + data.draw(st.sampled_from([b"", b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:])


PIECES = ["a", "b", "c", "é", "ab", "bc", "abc", "aé", "##", "##b", "##é", "#", "", " ", "a b"]


@st.composite
def bpe_documents(draw):
    """Small BPE models whose merges mostly refer to their vocab: parts, results, prefixes."""
    tokens = draw(st.lists(st.sampled_from(PIECES), unique=True, max_size=8))
    ids = draw(st.lists(st.integers(0, 9), min_size=len(tokens), max_size=len(tokens)))
    vocab = dict(zip(tokens, ids))
    pick = st.sampled_from(tokens + ["x"]) if tokens else st.just("x")
    pairs = draw(st.lists(st.tuples(pick, pick), max_size=5))
    as_strings = draw(st.booleans())
    merges = [f"{a} {b}" if as_strings else [a, b] for a, b in pairs]
    if draw(st.booleans()):
        merges.insert(draw(st.integers(0, len(merges))), "#version: 0.2")
    section = {"type": "BPE", "vocab": vocab, "merges": merges}
    for key, options in [
        ("continuing_subword_prefix", [None, "", "#", "##", "é"]),
        ("dropout", [None, 0, 0.25, 1, 1.5]),
        ("unk_token", [None, "a", "zz"]),
    ]:
        if draw(st.booleans()):
            section[key] = draw(st.sampled_from(options))
    if draw(st.booleans()):
        del section["type"]
    return doc(model=section)


@FUZZ
@given(document=bpe_documents())
def test_random_bpe_models_match_oracle(document):
    check_same(document)


@st.composite
def added_token_documents(draw):
    """Added tokens over a small vocab: ids come from earlier tokens, the vocab, then counting."""
    contents = ["a", "b", "<s>", "</s>", "", "<unk>"]
    tokens = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.integers(0, 12),
                    "content": st.sampled_from(contents),
                    "single_word": st.booleans(),
                    "lstrip": st.booleans(),
                    "rstrip": st.booleans(),
                    "normalized": st.booleans(),
                    "special": st.booleans(),
                }
            ),
            max_size=6,
        )
    )
    vocab = draw(st.dictionaries(st.sampled_from(contents[:4] + ["c"]), st.integers(0, 8), max_size=4))
    if draw(st.booleans()):
        section = {
            "type": "Unigram",
            "vocab": [[t, 0.0] for t in draw(st.lists(st.sampled_from(contents[:4] + ["c"]), max_size=5))],
        }
    else:
        section = {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}
    return doc(model=section, added_tokens=tokens, normalizer=draw(st.sampled_from([None, {"type": "Lowercase"}])))


@FUZZ
@given(document=added_token_documents())
def test_random_added_tokens_match_oracle(document):
    check_same(document)


SECTION_KEYS = [
    "type",
    "sep",
    "cls",
    "trim_offsets",
    "add_prefix_space",
    "use_regex",
    "single",
    "pair",
    "special_tokens",
    "processors",
    "suffix",
    "prefix",
    "cleanup",
    "replacement",
    "prepend_scheme",
    "split",
    "pad_token",
    "word_delimiter_token",
    "decoders",
    "pattern",
    "content",
    "start",
    "stop",
]
SECTION_TYPES = [
    "TemplateProcessing",
    "BertProcessing",
    "RobertaProcessing",
    "ByteLevel",
    "Sequence",
    "BPEDecoder",
    "WordPiece",
    "Metaspace",
    "CTC",
    "Replace",
    "Fuse",
    "Strip",
    "ByteFallback",
    "BPE",
    "Foo",
]
section_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, 102, -1, 2**32, 1.5]),
    st.sampled_from(["", "▁", "##", "</w>", "[CLS]", "A", "B", "first", "always", " ", "ab"]),
    st.sampled_from(SECTION_TYPES),
)
section_parts = st.one_of(
    section_scalars,
    st.builds(
        lambda t, i, n: {t: {"id": i, "type_id": n}},
        st.sampled_from(["Sequence", "SpecialToken", "Seq"]),
        st.sampled_from(["A", "B", "C", "[CLS]", {"A": None}]),
        st.sampled_from([0, 1, -1]),
    ),
    st.builds(lambda t, i: [t, i], st.sampled_from(["[CLS]", "</s>", 5]), st.sampled_from([0, 101, "x"])),
    st.builds(
        lambda k, ids, toks: {k: {"id": k, "ids": ids, "tokens": toks}},
        st.sampled_from(["[CLS]", "[SEP]"]),
        st.lists(st.sampled_from([1, 2, -1]), max_size=2),
        st.lists(st.sampled_from(["[CLS]", 3]), max_size=2),
    ),
    st.builds(
        lambda k, v: {k: v},
        st.sampled_from(["String", "Regex", "first", "Fixed"]),
        st.sampled_from([None, " ", "(", 1]),
    ),
)


def random_section(children):
    values = st.one_of(section_parts, st.lists(st.one_of(section_parts, children), max_size=3))
    body = st.dictionaries(st.sampled_from(SECTION_KEYS), values, max_size=5)
    typed = st.builds(lambda t, d: {"type": t, **d}, st.sampled_from(SECTION_TYPES), body)
    return st.one_of(typed, typed, body, st.lists(values, max_size=6))


random_sections = st.recursive(random_section(section_scalars), random_section, max_leaves=8)


@FUZZ
@given(section=random_sections, which=st.sampled_from(["post_processor", "decoder"]))
def test_random_sections_match_oracle(section, which):
    check_same(doc(**{which: section}))
