"""A SentencePiece tokenizer.model converted to the pipeline transformers builds from it:
the real Llama 2 model against the Hub's tokenizer.json, sentencepiece's own encode and the
oracle on every corpus; small models written here against sentencepiece; and every setting
the conversion does not cover refused by name."""

from __future__ import annotations

import json
import struct

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import tagpipe
from tagpipe import sentencepiece as tsp

from support.data import CORPORA, SHARED, corpus_ids, needs_shared

spm = pytest.importorskip("sentencepiece")


# -- a tiny protobuf writer, to make models ------------------------------------------------


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(number: int, value) -> bytes:
    if isinstance(value, bool) or isinstance(value, int):
        return _varint(number << 3) + _varint(int(value))
    if isinstance(value, float):
        return _varint(number << 3 | 5) + struct.pack("<f", value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def model_bytes(pieces, *, model_type=tsp.BPE, byte_fallback=False, normalizer=None, trainer=None) -> bytes:
    """A ModelProto: pieces as (text, score, type), the trainer and normalizer specs."""
    out = b""
    for text, score, kind in pieces:
        out += _field(1, _field(1, text) + _field(2, float(score)) + _field(3, kind))
    spec = {
        3: model_type,
        4: len(pieces),
        35: byte_fallback,
        40: 0,
        41: 1,
        42: 2,
        43: -1,
        45: "<unk>",
        46: "<s>",
        47: "</s>",
        **(trainer or {}),
    }
    out += _field(2, b"".join(_field(k, v) for k, v in spec.items()))
    norm = {1: "identity", 3: True, 4: False, 5: True, **(normalizer or {})}
    out += _field(3, b"".join(_field(k, v) for k, v in norm.items()))
    return out


SPECIALS = [("<unk>", 0.0, tsp.UNKNOWN), ("<s>", 0.0, tsp.CONTROL), ("</s>", 0.0, tsp.CONTROL)]
LETTERS = "abc▁"
# every piece of up to three letters, scored so that longer pieces and earlier ones merge first
SMALL = (
    SPECIALS
    + [(c, -100.0 - i, tsp.NORMAL) for i, c in enumerate(LETTERS)]
    + [(a + b, -float(i), tsp.NORMAL) for i, (a, b) in enumerate((a, b) for a in LETTERS for b in LETTERS)]
    + [("▁ab", -3.5, tsp.NORMAL), ("abc", -3.5, tsp.NORMAL), ("▁▁▁", -50.0, tsp.NORMAL)]
)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    data = model_bytes(SMALL)
    return tagpipe.Tokenizer.from_str(tsp.to_tokenizer_json(data)), spm.SentencePieceProcessor(model_proto=data)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abc ", max_size=30))
def test_small_model_equals_sentencepiece(small, text):
    tok, sp = small
    assert tok.encode(text, add_special_tokens=False) == sp.encode(text)


def test_small_model_with_byte_fallback(tmp_path):
    pieces = SPECIALS + [(f"<0x{b:02X}>", 0.0, tsp.BYTE) for b in range(256)] + SMALL[3:]
    data = model_bytes(pieces, byte_fallback=True)
    tok, sp = tagpipe.Tokenizer.from_str(tsp.to_tokenizer_json(data)), spm.SentencePieceProcessor(model_proto=data)
    for text in ["abc", "a é b", "東京 abc", "x\ny", "  ab  "]:
        assert tok.encode(text, add_special_tokens=False) == sp.encode(text), text
    assert tok.encode("ab")[0] == 1  # <s> first, as the template adds it


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(model_type=tsp.UNIGRAM), "model_type is Unigram"),
        (dict(normalizer={1: "nmt_nfkc", 2: b"\x00\x01"}), "normalizer_spec.name is 'nmt_nfkc'"),
        (dict(normalizer={4: True}), "remove_extra_whitespaces is on"),
        (dict(normalizer={5: False}), "escape_whitespaces is off"),
        (dict(trainer={24: True}), "treat_whitespace_as_suffix is on"),
        (dict(trainer={40: 99}), "unk_id 99 is not a piece"),
    ],
)
def test_settings_the_conversion_does_not_cover(change, message):
    with pytest.raises(tsp.SentencePieceError, match=message):
        tsp.to_tokenizer_json(model_bytes(SMALL, **change))


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "no pieces"),
        (model_bytes(SMALL)[:-3], "truncated"),
        (b"\x0a\x05\x0a\x01a", "truncated"),
        (b"\x0f", "wire type"),
        (model_bytes(SMALL + [("ab", -1.0, tsp.NORMAL)]), "piece 'ab' appears twice"),
    ],
)
def test_malformed_models_are_named(data, message):
    with pytest.raises(tsp.SentencePieceError, match=message):
        tsp.to_tokenizer_json(data)


# -- the real Llama 2 model ----------------------------------------------------------------


@needs_shared
def test_llama2_model_converts_to_the_hub_tokenizer_json():
    got = json.loads(tsp.to_tokenizer_json((SHARED / "tokenizers" / "llama2" / "tokenizer.model").read_bytes()))
    want = json.loads((SHARED / "tokenizers" / "llama2" / "tokenizer.json").read_text(encoding="utf-8"))
    want["model"]["merges"] = [m.split(" ") if isinstance(m, str) else m for m in want["model"]["merges"]]
    assert got == want  # every section, every merge in order


@pytest.fixture(scope="module")
def llama2(tmp_path_factory):
    if SHARED is None:
        pytest.skip("TAGPIPE_TEST_DATA / ../shared not found")
    model = SHARED / "tokenizers" / "llama2" / "tokenizer.model"
    repo = tmp_path_factory.mktemp("llama2-sp-only")
    (repo / "tokenizer.model").symlink_to(model)  # a directory holding only the SentencePiece model
    tok = tagpipe.from_pretrained(repo)
    return (
        tok,
        spm.SentencePieceProcessor(model_file=str(model)),
        tokenizers.Tokenizer.from_file(str(SHARED / "tokenizers" / "llama2" / "tokenizer.json")),
    )


@needs_shared
@pytest.mark.parametrize("path", CORPORA, ids=corpus_ids(CORPORA))
def test_llama2_model_ids_equal_sentencepiece_and_tokenizers(llama2, path):
    tok, sp, oracle = llama2
    assert tok.native and tok.metaspace_runs
    text = path.read_bytes().decode("utf-8")
    docs = [text[i : i + 10_000] for i in range(0, len(text), 10_000)]
    with tagpipe.delegation_disabled():
        got = tok.encode_batch(docs, add_special_tokens=False)
    assert got == sp.encode(docs)
    assert got == [e.ids for e in oracle.encode_batch(docs, add_special_tokens=False)]
    assert tok.encode(docs[0]) == oracle.encode(docs[0]).ids  # with <s>


@needs_shared
def test_tokenizer_config_options(tmp_path, llama2):
    _, sp, _ = llama2
    model = SHARED / "tokenizers" / "llama2" / "tokenizer.model"
    text = CORPORA[0].read_bytes().decode("utf-8")[:20_000]
    docs = [text[i : i + 2_000] for i in range(0, len(text), 2_000)] + ["Hello", " x", "  y", ""]
    # legacy=False: no normalizer, a Metaspace pre-tokenizer (prepend to the first section)
    doc = json.loads(tsp.to_tokenizer_json(model.read_bytes(), legacy=False))
    assert doc["normalizer"] is None and doc["pre_tokenizer"]["prepend_scheme"] == "first"
    tok = tagpipe.Tokenizer.from_str(json.dumps(doc))
    oracle = tokenizers.Tokenizer.from_str(json.dumps(doc))
    assert tok.native
    assert tok.encode_batch(docs) == [e.ids for e in oracle.encode_batch(docs)]
    # sentencepiece always adds its dummy "▁"; Metaspace does not before a leading space
    plain = [d for d in docs if not d.startswith(" ")]
    assert tok.encode_batch(plain, add_special_tokens=False) == sp.encode(plain)
    # add_bos_token / add_eos_token, read from tokenizer_config.json beside the model
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "tokenizer.model").symlink_to(model)
    for config, first, last in [
        ({"add_eos_token": True}, 1, 2),
        ({"add_bos_token": False}, 15043, 15043),
        ({"add_bos_token": False, "add_eos_token": True, "legacy": None}, 15043, 2),
    ]:
        (repo / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
        ids = tagpipe.from_pretrained(repo).encode("Hello")
        assert (ids[0], ids[-1]) == (first, last), config
    (repo / "tokenizer_config.json").write_text('{"add_eos_token": "yes"}', encoding="utf-8")
    with pytest.raises(OSError, match="add_eos_token is 'yes', not true or false"):
        tagpipe.from_pretrained(repo)
