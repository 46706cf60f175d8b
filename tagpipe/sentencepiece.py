"""A SentencePiece ``tokenizer.model`` as the ``tokenizer.json`` Hugging Face builds from it.

Some repos ship only the SentencePiece model (``meta-llama/Llama-2-7b``).  transformers turns
a llama-style BPE model into a ``tokenizers`` pipeline (its ``LlamaConverter``); this module
builds the same pipeline, so it runs natively like any ``tokenizer.json``:

  model           BPE over the pieces (id = position in the file), byte_fallback from the
                  trainer spec, fuse_unk, unk_token = the unk piece; merges: every split of a
                  piece into two pieces, ranked by the score of the piece they make
                  (highest first; equal scores keep piece order, then the left part's id,
                  then the right's)
  added_tokens    the UNKNOWN and CONTROL pieces (<unk>, <s>, </s>), special, not normalized
  normalizer      Prepend("▁") when add_dummy_prefix, then Replace(" ", "▁") (``legacy``, the
                  default); with ``legacy=False`` none, and a Metaspace pre-tokenizer that
                  marks spaces and prepends "▁" to the first section only
  post_processor  "<s> $A" and "<s> $A <s> $B" by default; ``add_bos_token`` and
                  ``add_eos_token`` (from tokenizer_config.json) choose which of <s> / </s>
  decoder         Replace("▁", " "), ByteFallback, Fuse, Strip(1 leading space)

Only what that conversion covers is accepted: a BPE model with the identity normalizer,
whitespace escaped, no extra-whitespace removal and whitespace as a prefix.  Anything else
(Unigram models such as T5's, a precompiled normalization map, ...) raises
:class:`SentencePieceError` naming the setting -- never a guessed pipeline.

The model file is a protocol buffer (sentencepiece_model.proto); the few fields needed are
read here directly, so no protobuf package is required.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any, Iterator, Union

# sentencepiece_model.proto field numbers
_MODEL_PIECES, _MODEL_TRAINER, _MODEL_NORMALIZER = 1, 2, 3
_PIECE_TEXT, _PIECE_SCORE, _PIECE_TYPE = 1, 2, 3
_TRAINER = {
    3: "model_type",
    24: "treat_whitespace_as_suffix",
    35: "byte_fallback",
    40: "unk_id",
    41: "bos_id",
    42: "eos_id",
    43: "pad_id",
    45: "unk_piece",
    46: "bos_piece",
    47: "eos_piece",
}
_NORMALIZER = {
    1: "name",
    2: "precompiled_charsmap",
    3: "add_dummy_prefix",
    4: "remove_extra_whitespaces",
    5: "escape_whitespaces",
}
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE = 1, 2
SPACE = "\u2581"


class SentencePieceError(ValueError):
    """A tokenizer.model that is malformed, or that tagpipe does not convert (the message says which)."""


@dataclass
class Piece:
    text: str
    score: float = 0.0
    type: int = NORMAL


@dataclass
class Model:
    pieces: list[Piece]
    trainer: dict[str, Any] = field(default_factory=dict)
    normalizer: dict[str, Any] = field(default_factory=dict)


def _varint(b: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        if i >= len(b):
            raise SentencePieceError("truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i
        if shift > 63:
            raise SentencePieceError("varint longer than 64 bits")


def _fields(b: bytes) -> Iterator[tuple[int, Union[int, float, bytes]]]:
    """(field number, value) of one message; varints as int, 32-bit as float, bytes as bytes."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(b, i)
        elif wire == 1:
            value, i = b[i : i + 8], i + 8
        elif wire == 5:
            if i + 4 > len(b):
                raise SentencePieceError("truncated 32-bit field")
            value, i = struct.unpack_from("<f", b, i)[0], i + 4
        elif wire == 2:
            n, i = _varint(b, i)
            if i + n > len(b):
                raise SentencePieceError("truncated length-delimited field")
            value, i = b[i : i + n], i + n
        else:
            raise SentencePieceError(f"unsupported protobuf wire type {wire}")
        yield number, value


def _signed(v: int) -> int:  # an int32 stored as a 64-bit varint
    return v - (1 << 64) if v >= 1 << 63 else v


def parse(data: bytes) -> Model:
    """The pieces, trainer spec and normalizer spec of a serialized ModelProto."""
    pieces: list[Piece] = []
    trainer: dict[str, Any] = {}
    normalizer: dict[str, Any] = {}
    for number, value in _fields(data):
        if number == _MODEL_PIECES and isinstance(value, bytes):
            p = Piece("")
            for n, v in _fields(value):
                if n == _PIECE_TEXT and isinstance(v, bytes):
                    p.text = v.decode("utf-8")
                elif n == _PIECE_SCORE and isinstance(v, float):
                    p.score = v
                elif n == _PIECE_TYPE and isinstance(v, int):
                    p.type = v
            pieces.append(p)
        elif number in (_MODEL_TRAINER, _MODEL_NORMALIZER) and isinstance(value, bytes):
            names, into = (_TRAINER, trainer) if number == _MODEL_TRAINER else (_NORMALIZER, normalizer)
            for n, v in _fields(value):
                if n in names:
                    text = isinstance(v, bytes) and names[n] != "precompiled_charsmap"
                    into[names[n]] = v.decode("utf-8", "replace") if text else v
    if not pieces:
        raise SentencePieceError("no pieces (not a SentencePiece model?)")
    for key in ("unk_id", "bos_id", "eos_id", "pad_id"):
        if key in trainer:
            trainer[key] = _signed(trainer[key])
    return Model(pieces, trainer, normalizer)


def _check(m: Model) -> None:
    t, n = m.trainer, m.normalizer
    problems = []
    if t.get("model_type", UNIGRAM) != BPE:
        kind = {UNIGRAM: "Unigram", 3: "word", 4: "char"}.get(t.get("model_type", UNIGRAM), "unknown")
        problems.append(
            f"trainer_spec.model_type is {kind} (only BPE models convert: use the model's "
            "tokenizer.json, which runs natively)"
        )
    if n.get("name", "identity") != "identity" or n.get("precompiled_charsmap"):
        problems.append(f"normalizer_spec.name is {n.get('name')!r} (a precompiled normalization map)")
    if n.get("remove_extra_whitespaces", 1):
        problems.append("normalizer_spec.remove_extra_whitespaces is on")
    if not n.get("escape_whitespaces", 1):
        problems.append("normalizer_spec.escape_whitespaces is off")
    if t.get("treat_whitespace_as_suffix", 0):
        problems.append("trainer_spec.treat_whitespace_as_suffix is on")
    if problems:
        raise SentencePieceError("this tokenizer.model does not convert: " + "; ".join(problems))


def merges(pieces: list[Piece]) -> list[tuple[str, str]]:
    """Every (left, right) whose concatenation is a piece, ranked by that piece's score
    (highest first; Python's stable sort keeps ties in piece order, then by the ids of left
    and right) -- the order transformers' SentencePieceExtractor produces."""
    vocab = {p.text: i for i, p in enumerate(pieces)}
    found = []
    for p in pieces:
        local = [(p.text[:k], p.text[k:]) for k in range(1, len(p.text)) if p.text[:k] in vocab and p.text[k:] in vocab]
        local.sort(key=lambda lr: (vocab[lr[0]], vocab[lr[1]]))
        found += [(lr, p.score) for lr in local]
    found.sort(key=lambda e: e[1], reverse=True)
    return [lr for lr, _ in found]


def _template(bos: "tuple[str, int] | None", eos: "tuple[str, int] | None") -> "dict | None":
    """transformers' template for add_bos_token / add_eos_token: single "<s> $A </s>", pair
    "<s> $A </s> <s> $B </s>" (the second sequence's tokens with type id 1), each special
    token present only when asked for."""
    if bos is None and eos is None:
        return None

    def seq(name, type_id):
        out = [{"SpecialToken": {"id": bos[0], "type_id": type_id}}] if bos else []
        out.append({"Sequence": {"id": name, "type_id": type_id}})
        return out + ([{"SpecialToken": {"id": eos[0], "type_id": type_id}}] if eos else [])

    specials = {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in (x for x in (bos, eos) if x)}
    return {
        "type": "TemplateProcessing",
        "single": seq("A", 0),
        "pair": seq("A", 0) + seq("B", 1),
        "special_tokens": specials,
    }


def to_tokenizer_json(
    data: bytes, *, add_bos_token: bool = True, add_eos_token: bool = False, legacy: bool = True
) -> str:
    """The tokenizer.json the llama-style conversion makes of a serialized tokenizer.model, with
    tokenizer_config.json's ``add_bos_token``, ``add_eos_token`` and ``legacy``."""
    m = parse(data)
    _check(m)
    t = m.trainer
    unk_id = t.get("unk_id", 0)
    if not 0 <= unk_id < len(m.pieces):
        raise SentencePieceError(f"trainer_spec.unk_id {unk_id} is not a piece")
    vocab: dict[str, int] = {}
    for i, p in enumerate(m.pieces):
        if p.text in vocab:
            raise SentencePieceError(f"piece {p.text!r} appears twice (ids {vocab[p.text]} and {i})")
        vocab[p.text] = i
    added = [
        {
            "id": i,
            "content": p.text,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i, p in enumerate(m.pieces)
        if p.type in (UNKNOWN, CONTROL)
    ]
    prefix = bool(m.normalizer.get("add_dummy_prefix", 1))
    if legacy:
        normalizer = {
            "type": "Sequence",
            "normalizers": ([{"type": "Prepend", "prepend": SPACE}] if prefix else [])
            + [{"type": "Replace", "pattern": {"String": " "}, "content": SPACE}],
        }
        pre_tokenizer = None
    else:
        normalizer = None
        pre_tokenizer = {
            "type": "Metaspace",
            "replacement": SPACE,
            "prepend_scheme": "first" if prefix else "never",
            "split": False,
        }

    def special(key: str, wanted: bool) -> "tuple[str, int] | None":
        i = t.get(key, {"bos_id": 1, "eos_id": 2}[key])
        if not wanted:
            return None
        if not 0 <= i < len(m.pieces):
            raise SentencePieceError(f"tokenizer_config asks for the {key[:3]} token, but trainer_spec.{key} is {i}")
        return m.pieces[i].text, i

    post = _template(special("bos_id", add_bos_token), special("eos_id", add_eos_token))
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post,
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": m.pieces[unk_id].text,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": bool(t.get("byte_fallback", 0)),
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [list(lr) for lr in merges(m.pieces)],
        },
    }
    return json.dumps(doc, ensure_ascii=False)
