"""Typed loader for the rest of tokenizer.json: ``model``, ``added_tokens``, ``post_processor``,
``decoder``, ``truncation``, ``padding`` and the document itself.  Import it from ``tagpipe.spec``.

Same contract as the section loaders in ``tagpipe.spec``: accept exactly what the oracle's
``Tokenizer.from_str`` accepts, hold every field explicit, ``to_json()`` = what the oracle writes
back, and a ``TokenizerJsonError`` with a path for the rest.  How the oracle reads each part:

* **model** (``ModelWrapper``): a known ``"type"`` (``"BPE"`` or ``{"BPE": null}``) selects the
  struct and its errors are final; any other ``"type"`` value (null included) is refused; without
  ``"type"`` BPE, WordPiece, WordLevel, Unigram are tried in that order (old files).  BPE reads
  null as "default" for every field but ``vocab``/``merges`` (both required); merges are all
  ``"a b"`` strings (exactly one space; entries starting with ``#version`` are skipped) or all
  ``[a, b]`` pairs; at load every merge's parts and result must be in the vocab (the result drops
  ``len(continuing_subword_prefix)`` bytes from ``b`` whether or not ``b`` starts with it, and
  panics when ``b`` is shorter); a repeated merge keeps its last rank.  ``dropout`` is an f32 in
  [0, 1] after rounding.  ``unk_token`` is *not* checked against the vocab (WordPiece, WordLevel
  and BPE only fail when encoding meets an unknown piece); Unigram's ``unk_id`` is checked.
  Duplicate ids are accepted: the oracle then keeps one token per id at random (per load) when
  writing the vocab; ``to_json`` keeps the first in file order.  A vocab holding id 2**32-1 is
  written as ``{}`` (the oracle's ``0..max+1`` wraps).  Where the oracle *panics* (a merge
  result longer than every token, or ``b`` shorter than the prefix) an untagged read stops there
  instead of trying the next model.
* **added_tokens**: every field is required, ``id`` is ignored: each token takes its id from an
  earlier added token with the same content, else from the model vocab, else the next free id
  counting from the model's vocab size; empty contents are dropped; the list is written by id.
* **post_processor** (``PostProcessorWrapper``) is purely untagged: RobertaProcessing,
  BertProcessing, ByteLevel, TemplateProcessing, Sequence in that order; only ByteLevel and
  Sequence check ``"type"``, so ``{"type": "RobertaProcessing", "sep", "cls"}`` is a Bert.
  Templates are lists of ``{"SpecialToken": {...}}``/``{"Sequence": {...}}`` pieces only (no
  ``"$A"`` strings); missing special tokens and ids/tokens of different lengths load fine.
* **decoder** (``DecoderWrapper``): tagged like the pre-tokenizers, then untagged in the order
  BPEDecoder, ByteLevel, WordPiece, Metaspace, CTC, Sequence, Replace, Fuse, Strip, ByteFallback.
* **truncation** / **padding**: plain serde structs read straight from the JSON stream.
* **document**: the nine known keys only -- any other top-level key makes serde_json fail (the
  oracle's visitor never consumes its value); ``model`` is required; ``version`` must be
  ``"1.0"``; containers nest at most 127 deep, the document included.

Text-level details :func:`load_tokenizer_json` reproduces: repeated keys (at the top level every
value is read and the last kept; in post_processor, added_tokens, truncation and padding a
repeated field is an error; elsewhere the last value is kept, but a repeated ``"type"`` forces
the untagged read -- see ``tagpipe.spec.Repeated``), ``-0`` and integers beyond 64 bits being
floats, and floats parsed the way serde_json does without ``float_roundtrip`` (not always the
nearest double: ``-2.0122928619384766`` reads as ``-2.012292861938477``).
"""
from __future__ import annotations

import contextvars
import functools
import gc
import itertools
import json
import math
import operator
import re
import struct
from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Tuple, Union

import numpy as np

from pydantic import (BeforeValidator, Field, PlainValidator, StrictBool, StrictInt, StrictStr,
                      TypeAdapter, ValidationError, WrapValidator, model_serializer,
                      model_validator)

from tagpipe import spec as _spec
from tagpipe.spec import (ByteLevelPreTokenizer, Char, Metaspace, Normalizer, PreTokenizer,
                          Repeated, Replace, TokenizerJsonError, USize, _Invalid, _key, _Model,
                          _parse, _repeated, _resolver, _show, _tag, _tagged_section, _Unit,
                          _unit_variant, _variant_name, parse_normalizer, parse_pre_tokenizer)

__all__ = [
    "parse_tokenizer", "load_tokenizer_json", "parse_model", "parse_post_processor",
    "parse_decoder", "TokenizerSpec", "Model", "PostProcessor", "Decoder", "BPE", "WordPiece",
    "WordLevel", "Unigram", "AddedToken", "Truncation", "Padding", "FixedPadding",
    "TemplateProcessing", "Piece", "SpecialToken", "BertProcessing", "RobertaProcessing",
    "ProcessorSequence", "BPEDecoder", "WordPieceDecoder", "CTC", "DecoderSequence", "Fuse",
    "StripDecoder", "ByteFallback", "MAX_DEPTH",
]

U32 = Annotated[StrictInt, Field(ge=0, le=2**32 - 1)]

# Set while load_tokenizer_json loads the document it parsed itself: nobody else holds its
# containers, so a model keeps them rather than a copy (10 million tokens: 1/3 GB).
_OWNED: contextvars.ContextVar = contextvars.ContextVar("owned", default=False)


def _vocab(value: Any, handler) -> Dict[str, int]:
    """A token -> id object, checked at C speed when it plainly fits (the usual case; pydantic
    takes half a second per million tokens), else by pydantic, which names the bad entry."""
    if type(value) is dict:  # (a Repeated one goes through pydantic, which drops `earlier`)
        ids = value.values()
        if (set(map(type, value)) <= {str} and set(map(type, ids)) <= {int}
                and (not value or 0 <= min(ids) and max(ids) <= 2**32 - 1)):
            return value if _OWNED.get() else dict(value)
    return handler(value)


Vocab = Annotated[Dict[StrictStr, U32], WrapValidator(_vocab)]
#: serde_json's recursion limit: containers may nest this deep, the document object included.
MAX_DEPTH = 127


def _f32(value: float) -> float:
    """``value as f32`` (round to nearest; inf beyond the range)."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _f32_json(value: float) -> float:
    """What Python reads back from serde_json's (shortest round-trip) text of an f32."""
    for digits in range(1, 10):
        text = "%.*g" % (digits, value)
        if _f32(float(text)) == value:
            return float(text)
    return value


def _token_by_id(vocab: Dict[str, int]) -> Dict[int, str]:
    """id -> token; for a repeated id the first token in file order (the oracle: any one)."""
    by_id: Dict[int, str] = {}
    for token, i in vocab.items():
        by_id.setdefault(i, token)
    return by_id


def _ordered_vocab(vocab: Dict[str, int]) -> Dict[str, int]:
    """The oracle's ``OrderedVocabIter``: by id, holes skipped, one token per id, and nothing at
    all when id 2**32-1 is present (its ``0..max + 1`` wraps to an empty range)."""
    by_id = _token_by_id(vocab)
    if not by_id or max(by_id) == 2**32 - 1:
        return {}
    return {by_id[i]: i for i in sorted(by_id)}


def _drop_nulls(data: Any, keys: tuple) -> Any:
    """serde ``Option`` fields a visitor reads as "null means default"."""
    if isinstance(data, dict) and any(data.get(k, 0) is None for k in keys):
        data = {k: v for k, v in data.items() if not (k in keys and v is None)}
    return data


def _from_array(data: Any, fields: tuple, what: str) -> Any:
    """A serde struct also reads a JSON array holding its fields in order (exactly all of them)."""
    if isinstance(data, list):
        if len(data) != len(fields):
            raise _Invalid(f"an array {what} needs exactly {len(fields)} items"
                           f" ({', '.join(fields)}), got {len(data)}")
        return dict(zip(fields, data))
    return data


# ---------------------------------------------------------------------------- models

def _merges(value: Any) -> tuple:
    """``Vec<(String, String)>`` or, failing that, ``Vec<String>`` of ``"a b"`` lines; returns
    ``(a, b)`` tuples, ``#version`` lines dropped."""
    if isinstance(value, tuple):
        return value  # already validated
    if not isinstance(value, list):
        raise _Invalid(f"expected an array of merges, got {_show(value)}")
    kinds = set(map(type, value))
    if kinds == {list} and set(map(len, value)) == {2}:  # fast paths first
        if set(map(type, itertools.chain.from_iterable(value))) == {str}:
            return tuple(map(tuple, value))
    elif kinds == {str}:
        # (straight into tuples: no list per line held for the whole file)
        pairs = tuple(map(tuple, map(str.split, value, itertools.repeat(" "))))
        if set(map(len, pairs)) == {2} and not any(map(_VERSION_LINE, value)):
            return pairs
        del pairs
    as_strings = bool(value) and isinstance(value[0], str)
    out = []
    for i, item in enumerate(value):
        if as_strings:
            if not isinstance(item, str):
                raise _Invalid(f"expected a string like merges[0] (merges are all 'a b' strings or"
                               f" all [a, b] pairs), got {_show(item)}", i)
            if item.startswith("#version"):
                continue  # skipped by the oracle, as in a merges.txt header
            parts = item.split(" ")
            if len(parts) != 2:
                raise _Invalid(f"{item!r} must be two tokens separated by exactly one space"
                               f" ({len(parts) - 1} spaces; use an [a, b] pair for tokens"
                               " containing spaces)", i)
            out.append((parts[0], parts[1]))
        else:
            if not isinstance(item, list) or len(item) != 2:
                raise _Invalid(f"expected an [a, b] pair like merges[0] (merges are all 'a b'"
                               f" strings or all [a, b] pairs), got {_show(item)}", i)
            for j in (0, 1):
                if not isinstance(item[j], str):
                    raise _Invalid(f"expected a string, got {_show(item[j])}", i, j)
            out.append((item[0], item[1]))
    return tuple(out)


_VERSION_LINE = operator.methodcaller("startswith", "#version")


class _Fatal(_Invalid):
    """Where the oracle panics (or aborts) instead of returning an error: an untagged read does
    not go on to the next struct."""


def _cut_merge(a: str, b: str, cut: int) -> Optional[str]:
    """The result of merge ``a b`` with a continuing_subword_prefix of ``cut`` bytes: the oracle
    drops that many bytes from ``b`` (prefixed or not); None when that is not valid UTF-8."""
    if not cut:
        return a + b
    raw = b.encode("utf-8")
    try:
        return a + raw[cut:].decode("utf-8") if len(raw) >= cut else None
    except UnicodeDecodeError:
        return None


def _dropout(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Invalid(f"expected a number or null, got {_show(value)}")
    p = _f32(float(value))
    if not 0.0 <= p <= 1.0:
        raise _Invalid(f"{_show(value)} is not in [0, 1] (as an f32)")
    return p


class BPE(_Model):
    """``merges`` holds ``(a, b)`` in rank order, ``#version`` lines dropped and repeated merges
    (same pair of ids) kept once, at their last rank; ``merge_ids`` their ids.  ``dropout``
    holds the f32 value."""
    _NULL_MEANS_DEFAULT: ClassVar[tuple] = (
        "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
        "byte_fallback", "ignore_merges")
    type: Literal["BPE"] = "BPE"
    dropout: Annotated[Optional[float], BeforeValidator(_dropout)] = None
    unk_token: Optional[StrictStr] = None
    continuing_subword_prefix: Optional[StrictStr] = None
    end_of_word_suffix: Optional[StrictStr] = None
    fuse_unk: StrictBool = False
    byte_fallback: StrictBool = False
    ignore_merges: StrictBool = False
    vocab: Vocab = Field(repr=False)
    merges: Annotated[Tuple[Tuple[str, str], ...], PlainValidator(_merges)] = Field(repr=False)

    # The (left, right, result) ids of the merges, in rank order: uint32 rows as bytes (bytes
    # compare by value, which keeps the model's == working; an array would not).
    _merge_ids: Optional[bytes] = None

    @model_validator(mode="wrap")
    @classmethod
    def _build(cls, data: Any, handler) -> "BPE":
        if isinstance(data, BPE):
            return data
        data = _drop_nulls(data, cls._NULL_MEANS_DEFAULT)
        model = handler(data)
        merges, ids = model._check_merges(data.get("merges") if isinstance(data, dict) else None)
        if merges is not model.merges:
            object.__setattr__(model, "merges", merges)
        model._merge_ids = ids
        return model

    @property
    def merge_ids(self) -> np.ndarray:
        """The (left, right, result) ids of each merge, in rank order (read-only uint32, shape
        ``(len(merges), 3)``): what the oracle merges by -- with duplicate ids, the ids of the
        file's own tokens, not of those ``to_json`` writes."""
        if self._merge_ids is None:  # built without validation (model_construct)
            self._merge_ids = self._check_merges(None)[1]
        return np.frombuffer(self._merge_ids, dtype=np.uint32).reshape(-1, 3)

    def _merge_columns(self) -> np.ndarray:
        """The ids of every merge's left part, right part and result (rows 0, 1, 2; int64), -1
        where one is not in the vocab.  Column by column at C speed, and without a list of
        strings or ids: each result string is dropped once looked up."""
        vocab, merges = self.vocab, self.merges
        cut = len((self.continuing_subword_prefix or "").encode("utf-8"))
        firsts, seconds = operator.itemgetter(0), operator.itemgetter(1)
        if cut:
            results: Any = itertools.starmap(functools.partial(_cut_merge, cut=cut), merges)
        else:
            results = map(operator.add, map(firsts, merges), map(seconds, merges))
        columns = np.empty((3, len(merges)), dtype=np.int64)
        for row, tokens in enumerate((map(firsts, merges), map(seconds, merges), results)):
            # (a result that is not valid UTF-8 is None: missing too)
            columns[row] = np.fromiter(map(vocab.get, tokens, itertools.repeat(-1)),
                                       dtype=np.int64, count=len(merges))
        return columns

    def _check_merges(self, raw: Any) -> Tuple[tuple, bytes]:
        """The oracle's ``BpeBuilder::build``: every part and every result must be in the vocab
        (``raw``: the merges as given, to name the failing one by its JSON index).  Returns the
        merges with a repeated one (the same pair of ids) kept once, at its last rank, and
        their ids (see ``_merge_ids``)."""
        merges = self.merges
        ids = self._merge_columns()
        missing = (ids < 0).any(axis=0)
        if missing.any():
            prefix = self.continuing_subword_prefix or ""
            self._merge_error(int(missing.argmax()), raw, prefix, len(prefix.encode("utf-8")))
        del missing
        pairs = (ids[0].astype(np.uint64) << np.uint64(32)) | ids[1].astype(np.uint64)
        ordered = np.sort(pairs)
        if not (ordered[1:] == ordered[:-1]).any():
            return merges, np.ascontiguousarray(ids.T, dtype=np.uint32).tobytes()
        # a repeated merge keeps its last rank: the first of each pair in reverse order
        # (np.unique's return_index is the first occurrence)
        _, first_reversed = np.unique(pairs[::-1], return_index=True)
        keep = np.sort(len(merges) - 1 - first_reversed)
        merges = tuple(map(merges.__getitem__, keep.tolist()))
        return merges, np.ascontiguousarray(ids[:, keep].T, dtype=np.uint32).tobytes()

    def _merge_error(self, rank: int, raw: Any, prefix: str, cut: int) -> None:
        """Raise for the first bad merge: ``_Invalid`` where the oracle returns an error,
        ``_Fatal`` where it panics (or aborts), which no untagged fallback survives."""
        a, b = self.merges[rank]
        if isinstance(raw, list):  # rank -> index in the JSON list (#version lines skipped)
            kept = (i for i, m in enumerate(raw)
                    if not (isinstance(m, str) and m.startswith("#version")))
            where = ("merges", next(itertools.islice(kept, rank, None)))
        else:
            where = ("merges", rank)
        for part in (a, b):
            if part not in self.vocab:
                raise _Invalid(f"{a!r} + {b!r}: {part!r} is not in model.vocab", *where)
        raw_a, raw_b = a.encode("utf-8"), b.encode("utf-8")
        if len(raw_b) < cut:
            raise _Fatal(f"{a!r} + {b!r}: {b!r} is shorter than continuing_subword_prefix"
                         f" {prefix!r}, whose length the oracle cuts from it (it panics)", *where)
        shown = f" (with {cut} bytes of continuing_subword_prefix cut from {b!r})" if cut else ""
        if len(raw_a) + len(raw_b) - cut > max(len(t.encode("utf-8")) for t in self.vocab):
            merged = (raw_a + raw_b[cut:]).decode("utf-8", "replace")
            raise _Fatal(f"{a!r} + {b!r} -> {merged!r}{shown} is not in model.vocab (longer than"
                         " every token: the oracle panics)", *where)
        merged = _cut_merge(a, b, cut)
        if merged is None:  # an error whose message is not UTF-8: if it reaches Python, pyo3
            # aborts the process; an untagged read drops it and goes on (so: not _Fatal)
            raise _Invalid(f"{a!r} + {b!r}: cutting the {cut}-byte continuing_subword_prefix"
                           f" {prefix!r} from {b!r} splits a character, so the result is not in"
                           " model.vocab (the oracle aborts the process)", *where)
        raise _Invalid(f"{a!r} + {b!r} -> {merged!r}{shown} is not in model.vocab", *where)

    def token_to_id(self, token: str) -> Optional[int]:
        return self.vocab.get(token)

    def vocab_size(self) -> int:
        return len(self.vocab)

    def settings_json(self) -> dict:
        """``to_json()`` without ``vocab`` and ``merges``."""
        return {
            "type": "BPE",
            "dropout": None if self.dropout is None else _f32_json(self.dropout),
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk, "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
        }

    def to_json(self) -> dict:
        by_id = _token_by_id(self.vocab)
        if len(by_id) == len(self.vocab):
            merges = list(map(list, self.merges))
        else:  # duplicate ids: the oracle writes merges through its id -> token map
            merges = [[by_id[self.vocab[a]], by_id[self.vocab[b]]] for a, b in self.merges]
        return {**self.settings_json(), "vocab": _ordered_vocab(self.vocab), "merges": merges}


class WordPiece(_Model):
    """All four fields are required (``unk_token`` need not be in the vocab at load)."""
    type: Literal["WordPiece"] = "WordPiece"
    unk_token: StrictStr
    continuing_subword_prefix: StrictStr
    max_input_chars_per_word: USize
    vocab: Vocab = Field(repr=False)

    def token_to_id(self, token: str) -> Optional[int]:
        return self.vocab.get(token)

    def vocab_size(self) -> int:
        return len(self.vocab)

    def to_json(self) -> dict:
        return {"type": "WordPiece", "unk_token": self.unk_token,
                "continuing_subword_prefix": self.continuing_subword_prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word,
                "vocab": _ordered_vocab(self.vocab)}


class WordLevel(_Model):
    """Both fields are required (``unk_token`` need not be in the vocab at load)."""
    type: Literal["WordLevel"] = "WordLevel"
    vocab: Vocab = Field(repr=False)
    unk_token: StrictStr

    def token_to_id(self, token: str) -> Optional[int]:
        return self.vocab.get(token)

    def vocab_size(self) -> int:
        return len(self.vocab)

    def to_json(self) -> dict:
        return {"type": "WordLevel", "vocab": _ordered_vocab(self.vocab),
                "unk_token": self.unk_token}


def _pieces(value: Any) -> tuple:
    """``Vec<(String, f64)>``: [piece, score] pairs, integer scores read as floats."""
    if isinstance(value, tuple):
        return value  # already validated
    if isinstance(value, list) and set(map(type, value)) <= {list} and set(map(len, value)) <= {2}:
        pieces, scores = [p for p, _ in value], [s for _, s in value]
        if set(map(type, pieces)) <= {str} and set(map(type, scores)) <= {float, int}:
            return tuple(zip(pieces, map(float, scores)))
    if not isinstance(value, list):
        raise _Invalid(f"expected an array of [piece, score] pairs, got {_show(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, list) or len(item) != 2:
            raise _Invalid(f"expected a [piece, score] pair, got {_show(item)}", i)
        piece, score = item
        if not isinstance(piece, str):
            raise _Invalid(f"expected a string, got {_show(piece)}", i, 0)
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise _Invalid(f"expected a number, got {_show(score)}", i, 1)
        out.append((piece, float(score)))
    return tuple(out)


class Unigram(_Model):
    """``vocab`` is required and may repeat a piece (the last one wins for lookups); ``unk_id``
    may be null or missing, else it must index the vocab; ``byte_fallback`` may be missing but
    not null."""
    type: Literal["Unigram"] = "Unigram"
    unk_id: Optional[USize] = None
    vocab: Annotated[Tuple[Tuple[str, float], ...], PlainValidator(_pieces)] = Field(repr=False)
    byte_fallback: StrictBool = False

    @model_validator(mode="after")
    def _check_unk_id(self) -> "Unigram":
        if self.unk_id is not None and not self.vocab:
            raise _Invalid("unk_id is set but model.vocab is empty", "unk_id")
        if self.unk_id is not None and self.unk_id >= len(self.vocab):
            raise _Invalid(f"unk_id {self.unk_id} is out of range for a vocab of"
                           f" {len(self.vocab)} pieces", "unk_id")
        return self

    @functools.cached_property
    def piece_ids(self) -> Dict[str, int]:
        """piece -> id; a repeated piece maps to its last id, as in the oracle."""
        return {piece: i for i, (piece, _) in enumerate(self.vocab)}

    def token_to_id(self, token: str) -> Optional[int]:
        return self.piece_ids.get(token)

    def vocab_size(self) -> int:
        return len(self.vocab)

    def to_json(self) -> dict:
        return {"type": "Unigram", "unk_id": self.unk_id,
                "vocab": [[p, s] for p, s in self.vocab], "byte_fallback": self.byte_fallback}


_MODELS = (BPE, WordPiece, WordLevel, Unigram)
_MODEL_TYPES = tuple(_tag(m) for m in _MODELS)


def _resolve_model(raw: Any) -> Any:
    """``ModelWrapper``'s read: tagged when ``"type"`` is present, else the old untagged forms."""
    if isinstance(raw, _Model):
        return raw
    known = ", ".join(map(repr, _MODEL_TYPES))
    if not isinstance(raw, dict):
        raise _Invalid(f"expected a model object, got {_show(raw)}")
    if "type" in raw:
        if isinstance(raw, Repeated) and "type" in raw.earlier:
            raise _Invalid("'type' is repeated: the oracle's tagged read then fails, and its"
                           " untagged read refuses any 'type'", "type")
        name = _variant_name(raw["type"])
        if name not in _MODEL_TYPES:
            raise _Invalid(f"{_show(raw['type'])} is not a model type; expected one of {known}"
                           " (a file without 'type' is read as an old untagged model)", "type")
        return {**raw, "type": name}
    for model in _MODELS:
        try:
            return model.model_validate({**raw, "type": _tag(model)})
        except ValidationError as exc:
            if isinstance((exc.errors()[0].get("ctx") or {}).get("error"), _Fatal):
                return {**raw, "type": _tag(model)}  # a panic ends the untagged read
    # Nothing fits: let the likeliest model report its own error, with a path.
    if "merges" in raw:
        likely = "BPE"
    elif raw.keys() & {"continuing_subword_prefix", "max_input_chars_per_word"}:
        likely = "WordPiece"
    elif isinstance(raw.get("vocab"), list) or "unk_id" in raw:
        likely = "Unigram"
    elif "vocab" in raw or "unk_token" in raw:
        likely = "WordLevel"
    else:
        raise _Invalid(f"missing 'type' and no old untagged model form fits; types: {known}")
    return {**raw, "type": likely}


#: Any model; validating raw JSON against it follows the oracle (see the module doc).
Model = Annotated[Union[_MODELS], Field(discriminator="type"), BeforeValidator(_resolve_model)]


# ---------------------------------------------------------------------------- added tokens

class AddedToken(_Model):
    """Every field is required; the oracle ignores ``id`` (see :func:`parse_tokenizer`)."""
    id: U32
    content: StrictStr
    single_word: StrictBool
    lstrip: StrictBool
    rstrip: StrictBool
    normalized: StrictBool
    special: StrictBool

    @model_validator(mode="before")
    @classmethod
    def _object_only(cls, data: Any) -> Any:
        if not isinstance(data, (dict, AddedToken)):
            raise _Invalid(f"expected an added-token object, got {_show(data)}")
        return data

    def to_json(self) -> dict:
        return {"id": self.id, "content": self.content, "single_word": self.single_word,
                "lstrip": self.lstrip, "rstrip": self.rstrip, "normalized": self.normalized,
                "special": self.special}


def _resolve_added(tokens, model) -> tuple:
    """``AddedVocabulary::add_tokens`` as run by the loader: ids from earlier added tokens, then
    the model vocab, then counting up from the model's vocab size; written back by id."""
    by_content: Dict[str, int] = {}
    by_id: Dict[int, tuple] = {}
    next_id = model.vocab_size()
    for token in tokens:
        if not token.content:
            continue
        flags = (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized,
                 token.special)
        known = by_content.get(token.content)
        if known is not None and by_id.get(known) == flags:
            continue
        new_id = known if known is not None else model.token_to_id(token.content)
        if new_id is None:
            new_id, next_id = next_id, next_id + 1
        by_content[token.content] = new_id
        by_id[new_id] = flags
    return tuple(AddedToken.model_construct(id=i, content=f[0], single_word=f[1], lstrip=f[2],
                                            rstrip=f[3], normalized=f[4], special=f[5])
                 for i, f in sorted(by_id.items()))


# ---------------------------------------------------------------------------- post-processors

def _token_pair(value: Any) -> tuple:
    """``(String, u32)``: exactly ``[token, id]``."""
    if not isinstance(value, list) or len(value) != 2:
        raise _Invalid(f"expected a [token, id] pair, got {_show(value)}")
    token, i = value
    if not isinstance(token, str):
        raise _Invalid(f"expected a string, got {_show(token)}", 0)
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < 2**32:
        raise _Invalid(f"expected an integer in 0..2**32, got {_show(i)}", 1)
    return (token, i)


TokenPair = Annotated[Tuple[str, int], BeforeValidator(_token_pair)]


class BertProcessing(_Model):
    """``sep`` and ``cls`` are ``[token, id]``; ``"type"`` is not checked."""
    _array: ClassVar[Optional[tuple]] = ("sep", "cls")
    _checks_type: ClassVar[bool] = False
    type: Literal["BertProcessing"] = "BertProcessing"
    sep: TokenPair
    cls: TokenPair


class RobertaProcessing(_Model):
    """All four fields are required; ``"type"`` is not checked (without the two booleans a
    ``"RobertaProcessing"`` loads as a BertProcessing)."""
    _array: ClassVar[Optional[tuple]] = ("sep", "cls", "trim_offsets", "add_prefix_space")
    _checks_type: ClassVar[bool] = False
    type: Literal["RobertaProcessing"] = "RobertaProcessing"
    sep: TokenPair
    cls: TokenPair
    trim_offsets: StrictBool
    add_prefix_space: StrictBool


def _field(data: Any, key: str, kind: str, check) -> Any:
    if key not in data:
        raise _Invalid("missing required field", kind, key)
    return check(data[key], kind, key)


def _str(value: Any, *loc) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"expected a string, got {_show(value)}", *loc)
    return value


def _u32(value: Any, *loc) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**32:
        raise _Invalid(f"expected an integer in 0..2**32, got {_show(value)}", *loc)
    return value


def _sequence_id(value: Any, *loc) -> str:
    try:
        return _unit_variant(value, ("A", "B"))
    except _Invalid as exc:
        raise _Invalid(str(exc), *loc) from None


class Piece(_Model):
    """A template item: serde's ``{"Sequence": {"id": "A"|"B", "type_id": n}}`` or
    ``{"SpecialToken": {"id": token, "type_id": n}}`` (the inner struct may be ``[id, type_id]``).
    Strings such as ``"$A"`` or ``"[CLS]:1"`` are not read from tokenizer.json."""
    _serde_keys: ClassVar[Optional[tuple]] = ()  # checked by _from_json
    kind: Literal["Sequence", "SpecialToken"]
    id: str
    type_id: int

    @model_validator(mode="before")
    @classmethod
    def _from_json(cls, data: Any) -> Any:
        if isinstance(data, Piece):
            return data
        if not isinstance(data, dict) or len(data) != 1 or _repeated(data, data.keys()):
            raise _Invalid("expected {'Sequence': {...}} or {'SpecialToken': {...}} (one key),"
                           f" got {_show(data)}")
        (kind, inner), = data.items()
        if kind not in ("Sequence", "SpecialToken"):
            raise _Invalid(f"{kind!r} is not one of 'Sequence', 'SpecialToken'")
        if isinstance(inner, list):
            if len(inner) != 2:
                raise _Invalid(f"expected [id, type_id], got {_show(inner)}", kind)
            inner = dict(zip(("id", "type_id"), inner))
        if not isinstance(inner, dict):
            raise _Invalid(f"expected an object with id and type_id, got {_show(inner)}", kind)
        twice = _repeated(inner, ("id", "type_id"))
        if twice is not None:
            raise _Invalid("repeated field (the oracle: duplicate field)", kind, twice)
        check_id = _sequence_id if kind == "Sequence" else _str
        return {"kind": kind, "id": _field(inner, "id", kind, check_id),
                "type_id": _field(inner, "type_id", kind, _u32)}

    @model_serializer
    def _to_json(self) -> dict:
        return {self.kind: {"id": self.id, "type_id": self.type_id}}


class SpecialToken(_Model):
    """A ``special_tokens`` entry; ``id`` need not match its key, and ``ids``/``tokens`` may have
    different lengths (the oracle does not check either at load)."""
    id: StrictStr
    ids: List[U32]
    tokens: List[StrictStr]

    @model_validator(mode="before")
    @classmethod
    def _array_form(cls, data: Any) -> Any:
        return _from_array(data, ("id", "ids", "tokens"), "special token")


class TemplateProcessing(_Model):
    """``single``, ``pair`` and ``special_tokens`` are all required; nothing else is checked
    (not even that the templates' special tokens exist, or that ``pair`` uses both sequences)."""
    _array: ClassVar[Optional[tuple]] = ("single", "pair", "special_tokens")
    _checks_type: ClassVar[bool] = False
    type: Literal["TemplateProcessing"] = "TemplateProcessing"
    single: List[Piece]
    pair: List[Piece]
    special_tokens: Dict[StrictStr, SpecialToken]

    def to_json(self) -> dict:
        out = super().to_json()
        out["special_tokens"] = dict(sorted(out["special_tokens"].items()))
        return out


class ProcessorSequence(_Model):
    type: Literal["Sequence"] = "Sequence"
    processors: List["PostProcessor"]


_POST_PROCESSORS = (RobertaProcessing, BertProcessing, ByteLevelPreTokenizer, TemplateProcessing,
                    ProcessorSequence)

#: Any post-processor: purely untagged, tried in the oracle's order.
PostProcessor = Annotated[Union[_POST_PROCESSORS], Field(discriminator="type"), BeforeValidator(
    _resolver("post-processor", {}, _POST_PROCESSORS, tuple(map(_tag, _POST_PROCESSORS))))]


# ---------------------------------------------------------------------------- decoders

class BPEDecoder(_Model):
    _array: ClassVar[Optional[tuple]] = ("suffix",)
    _checks_type: ClassVar[bool] = False
    type: Literal["BPEDecoder"] = "BPEDecoder"
    suffix: StrictStr


class WordPieceDecoder(_Model):
    _array: ClassVar[Optional[tuple]] = ("prefix", "cleanup")
    _checks_type: ClassVar[bool] = False
    type: Literal["WordPiece"] = "WordPiece"
    prefix: StrictStr
    cleanup: StrictBool


class CTC(_Model):
    _array: ClassVar[Optional[tuple]] = ("pad_token", "word_delimiter_token", "cleanup")
    _checks_type: ClassVar[bool] = False
    type: Literal["CTC"] = "CTC"
    pad_token: StrictStr
    word_delimiter_token: StrictStr
    cleanup: StrictBool


class DecoderSequence(_Model):
    type: Literal["Sequence"] = "Sequence"
    decoders: List["Decoder"]


class Fuse(_Unit):
    type: Literal["Fuse"] = "Fuse"


class StripDecoder(_Model):
    _array: ClassVar[Optional[tuple]] = ("content", "start", "stop")
    _checks_type: ClassVar[bool] = False
    type: Literal["Strip"] = "Strip"
    content: Char
    start: USize
    stop: USize


class ByteFallback(_Unit):
    type: Literal["ByteFallback"] = "ByteFallback"


_DECODERS = (BPEDecoder, ByteLevelPreTokenizer, WordPieceDecoder, Metaspace, CTC, DecoderSequence,
             Replace, Fuse, StripDecoder, ByteFallback)

#: Any decoder: tagged by ``"type"``, else untagged in the oracle's order.
Decoder = Annotated[Union[_DECODERS], Field(discriminator="type"), BeforeValidator(
    _resolver("decoder", {_tag(m): _tag(m) for m in _DECODERS}, _DECODERS))]

ProcessorSequence.model_rebuild()
DecoderSequence.model_rebuild()
# pydantic puts the union member's tag in an error's location; the error path drops it.
_spec._TAGS.update(_tag(m) for m in _MODELS + _POST_PROCESSORS + _DECODERS)


# ---------------------------------------------------------------------------- truncation, padding

class Truncation(_Model):
    """``direction`` defaults to ``"Right"`` (but may not be null); the rest is required."""
    direction: Annotated[Literal["Left", "Right"],
                         BeforeValidator(lambda v: _unit_variant(v, ("Left", "Right")))] = "Right"
    max_length: USize
    strategy: Annotated[Literal["LongestFirst", "OnlyFirst", "OnlySecond"], BeforeValidator(
        lambda v: _unit_variant(v, ("LongestFirst", "OnlyFirst", "OnlySecond")))]
    stride: USize

    @model_validator(mode="before")
    @classmethod
    def _array_form(cls, data: Any) -> Any:
        return _from_array(data, ("direction", "max_length", "strategy", "stride"), "truncation")


class FixedPadding(_Model):
    """Padding strategy ``{"Fixed": length}``."""
    _serde_keys: ClassVar[Optional[tuple]] = ()
    length: USize

    @model_serializer
    def _to_json(self) -> dict:
        return {"Fixed": self.length}


def _padding_strategy(value: Any) -> Any:
    if isinstance(value, FixedPadding) or _variant_name(value) == "BatchLongest":
        return value if isinstance(value, FixedPadding) else "BatchLongest"
    if isinstance(value, dict) and len(value) == 1 and "Fixed" in value:
        if _repeated(value, ("Fixed",)):
            raise _Invalid("'Fixed' is repeated: an enum object takes exactly one key")
        length = value["Fixed"]
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length < 2**64:
            raise _Invalid(f"expected an integer >= 0, got {_show(length)}", "Fixed")
        return FixedPadding(length=length)
    raise _Invalid(f"expected 'BatchLongest' or {{'Fixed': length}}, got {_show(value)}")


class Padding(_Model):
    """All fields but ``pad_to_multiple_of`` are required."""
    strategy: Annotated[Union[Literal["BatchLongest"], FixedPadding],
                        BeforeValidator(_padding_strategy)]
    direction: Annotated[Literal["Left", "Right"],
                         BeforeValidator(lambda v: _unit_variant(v, ("Left", "Right")))]
    pad_to_multiple_of: Optional[USize] = None
    pad_id: U32
    pad_type_id: U32
    pad_token: StrictStr

    @model_validator(mode="before")
    @classmethod
    def _array_form(cls, data: Any) -> Any:
        return _from_array(data, ("strategy", "direction", "pad_to_multiple_of", "pad_id",
                                  "pad_type_id", "pad_token"), "padding")


# ---------------------------------------------------------------------------- the document

class TokenizerSpec(_Model):
    """A whole tokenizer.json as the oracle holds it.  Build it with :func:`parse_tokenizer` or
    :func:`load_tokenizer_json`; ``added_tokens`` holds the ids the oracle assigns."""
    version: Literal["1.0"] = "1.0"
    truncation: Optional[Truncation] = None
    padding: Optional[Padding] = None
    added_tokens: Tuple[AddedToken, ...] = ()
    normalizer: Optional[Normalizer] = None
    pre_tokenizer: Optional[PreTokenizer] = None
    post_processor: Optional[PostProcessor] = None
    decoder: Optional[Decoder] = None
    model: Model

    def to_json(self, model: bool = True) -> dict:
        """What the oracle writes; ``model=False``: every section but the model."""
        def part(value):
            return None if value is None else value.to_json()
        out = {"version": self.version, "truncation": part(self.truncation),
               "padding": part(self.padding),
               "added_tokens": [t.to_json() for t in self.added_tokens],
               "normalizer": part(self.normalizer), "pre_tokenizer": part(self.pre_tokenizer),
               "post_processor": part(self.post_processor), "decoder": part(self.decoder)}
        if model:
            out["model"] = self.model.to_json()
        return out


_MODEL = TypeAdapter(Model)
_POST_PROCESSOR = TypeAdapter(PostProcessor)
_DECODER = TypeAdapter(Decoder)
_TRUNCATION = TypeAdapter(Truncation)
_PADDING = TypeAdapter(Padding)
_ADDED_TOKENS = TypeAdapter(List[AddedToken])


def parse_model(obj: Any, path: str = "model") -> Model:
    """Load the ``model`` section (already ``json.loads``-ed); it may not be null."""
    if obj is None:
        raise TokenizerJsonError(path, "expected a model object, got None")
    return _parse(_MODEL, obj, path)


def parse_post_processor(obj: Any, path: str = "post_processor") -> Optional[PostProcessor]:
    """Load the ``post_processor`` section; null means none."""
    return _parse(_POST_PROCESSOR, obj, path, strict_keys=True)


def parse_decoder(obj: Any, path: str = "decoder") -> Optional[Decoder]:
    """Load the ``decoder`` section; null means none."""
    return _parse(_DECODER, _tagged_section(obj), path)


def _parse_version(obj: Any, path: str) -> str:
    if not isinstance(obj, str):
        raise TokenizerJsonError(path, f"expected a string, got {_show(obj)}")
    if obj != "1.0":
        raise TokenizerJsonError(path, f"unknown tokenizer version {obj!r}; only '1.0' loads")
    return obj


def _parse_added(obj: Any, path: str) -> list:
    if not isinstance(obj, list):
        raise TokenizerJsonError(path, f"expected an array, got {_show(obj)}")
    return _parse(_ADDED_TOKENS, obj, path, strict_keys=True)


_SECTIONS = {
    "version": _parse_version,
    "truncation": lambda obj, path: _parse(_TRUNCATION, obj, path, strict_keys=True),
    "padding": lambda obj, path: _parse(_PADDING, obj, path, strict_keys=True),
    "added_tokens": _parse_added,
    "normalizer": parse_normalizer,
    "pre_tokenizer": parse_pre_tokenizer,
    "post_processor": parse_post_processor,
    "decoder": parse_decoder,
    "model": parse_model,
}


def parse_tokenizer(obj: Any) -> TokenizerSpec:
    """Load a whole tokenizer.json (already ``json.loads``-ed).  Sections are checked in the
    document's order, like the oracle, so the first error reported is the one it would meet."""
    if not isinstance(obj, dict):
        raise TokenizerJsonError("", f"expected a JSON object (a tokenizer), got {_show(obj)}")
    earlier = obj.earlier if isinstance(obj, Repeated) else {}
    parts: Dict[str, Any] = {}
    for key, value in obj.items():
        if key not in _SECTIONS:
            raise TokenizerJsonError(_key("", key), "unknown top-level key: the oracle cannot"
                                     " skip it (serde_json fails with \"expected `,` or `}`\");"
                                     f" known keys: {', '.join(_SECTIONS)}")
        for repeated in earlier.get(key, ()):  # each occurrence is read, the last one is kept
            _SECTIONS[key](repeated, key)
        parts[key] = _SECTIONS[key](value, key)
    if "model" not in parts:
        raise TokenizerJsonError("model", "missing required field (the oracle: 'Model missing.')")
    parts.setdefault("version", "1.0")
    parts["added_tokens"] = _resolve_added(parts.get("added_tokens") or (), parts["model"])
    return TokenizerSpec.model_construct(**parts)


# ---------------------------------------------------------------------------- JSON text

_U64_MAX = 2**64 - 1
_POW10 = [float(f"1e{i}") for i in range(309)]
_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?)([0-9]+))?")


def _serde_f64(text: str) -> float:
    """A JSON number as serde_json (without its ``float_roundtrip`` feature, as the oracle is
    built) reads it as an f64: the first digits that fit a u64, scaled by one multiplication or
    division by a power of ten -- not always the nearest double (json.loads is exact).  An
    out-of-range number gives inf, which the section checks then refuse."""
    sign, whole, fraction, exp_sign, exp_digits = _NUMBER.fullmatch(text).groups()
    fraction = fraction or ""
    significand, exponent = 0, 0
    digits = whole + fraction
    if len(digits) <= 19 or len(digits) == 20 and int(digits) <= _U64_MAX:
        significand, exponent = int(digits), -len(fraction)
    else:  # serde_json keeps the digits that fit and drops the rest (their weight kept)
        for k, c in enumerate(digits):
            d = ord(c) - 48
            if significand * 10 + d > _U64_MAX:  # serde_json's overflow! check
                if k < len(whole):  # in the integer part: skipped digits still count
                    exponent += 1
                    continue
                break  # in the fraction: the rest is ignored
            significand = significand * 10 + d
            if k >= len(whole):
                exponent -= 1
    if exp_digits is not None:
        e = int(exp_digits)
        if e > 2**31 - 1:
            if significand and exp_sign != "-":
                return math.inf
            return -0.0 if sign else 0.0
        exponent = max(-2**31, min(2**31 - 1, exponent - e if exp_sign == "-" else exponent + e))
    f = float(significand)
    while True:
        if -2**31 < exponent and abs(exponent) < len(_POW10):
            if exponent >= 0:
                f *= _POW10[exponent]
            else:
                f /= _POW10[-exponent]
            break
        if f == 0.0:
            break
        if exponent >= 0:
            return math.inf
        f /= 1e308
        exponent += 308
    return -f if sign else f


def _serde_int(text: str) -> Union[int, float]:
    """An integer literal as serde_json reads it: u64 or i64, else (``-0`` and beyond) an f64."""
    if len(text) < 19 and text != "-0":
        return int(text)
    if len(text) > 21:  # beyond 64 bits (and maybe beyond int_max_str_digits)
        return _serde_f64(text)
    value = int(text)
    if 0 <= value <= _U64_MAX and text[0] != "-" or -2**63 <= value < 0:
        return value
    if abs(value) <= _U64_MAX:  # -0, or below i64::MIN: -(u64 as f64)
        return -float(abs(value))
    return _serde_f64(text)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]', re.S)


def _scan(text: str, stop: Optional[int] = None, max_depth: Optional[int] = None):
    """Walk the JSON structure of ``text`` (which may be broken) up to offset ``stop``, or to the
    first container deeper than ``max_depth``; return (offset, path) there (offset None: no
    container is that deep)."""
    stack: list = []  # [is_object, key or index, expecting_key]
    for match in _TOKEN.finditer(text, 0, len(text) if stop is None else stop):
        tok = match.group()
        if tok in "[{":
            stack.append([tok == "{", None if tok == "{" else 0, tok == "{"])
            if max_depth is not None and len(stack) > max_depth:
                return match.start(), _path(stack[:-1])
        elif tok in "]}":
            if stack:
                stack.pop()
        elif tok == ",":
            if stack and stack[-1][0]:
                stack[-1][1], stack[-1][2] = None, True
            elif stack:
                stack[-1][1] += 1
        elif tok == ":":
            if stack:
                stack[-1][2] = False
        elif stack and stack[-1][0] and stack[-1][2]:
            try:
                stack[-1][1] = json.loads(tok)
            except ValueError:
                stack[-1][1] = tok[1:-1]
    if max_depth is not None:
        return None, ""
    return stop, _path(stack)


def _path(stack: list) -> str:
    path = ""
    for is_object, at, _ in stack:
        if at is None:
            break
        path = _key(path, at) if is_object else f"{path}[{at}]"
    return path


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    earlier: Dict[str, list] = {}
    seen = set()
    for key, value in reversed(pairs):  # the last value of a key is the one kept
        if key in seen:
            earlier.setdefault(key, []).insert(0, value)
        seen.add(key)
    return Repeated.of(obj, earlier)


def load_tokenizer_json(text: Union[str, bytes]) -> TokenizerSpec:
    """Parse tokenizer.json text (``str``, or ``bytes`` that must be UTF-8) and load it with
    :func:`parse_tokenizer`.  JSON errors become a ``TokenizerJsonError`` naming the path and the
    line/column; so does nesting past serde_json's limit, however deep."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8", "surrogateescape")  # bad bytes: caught in strings
    if not isinstance(text, str):
        raise TypeError(f"expected str or bytes, got {type(text).__name__}")
    # The cyclic GC is off meanwhile: it would walk the millions of lists and tuples of a big
    # file again and again as they pile up (10 million merges: 10 s), and none is garbage.
    # (It is off for the whole process: other threads' cycles wait for the end of the load.)
    enabled = gc.isenabled()
    gc.disable()
    token = _OWNED.set(True)
    try:
        return parse_tokenizer(_parse_json(text))
    finally:
        _OWNED.reset(token)
        if enabled:
            gc.enable()


def _parse_json(text: str) -> Any:
    """json.loads with serde_json's numbers and repeated keys (see load_tokenizer_json)."""
    # Numbers as serde_json reads them: "-0" and integers beyond 64 bits are floats there (so
    # refused where an integer is due), and floats are not always rounded to nearest.
    try:
        return json.loads(text, object_pairs_hook=_object, parse_int=_serde_int,
                          parse_float=_serde_f64)
    except json.JSONDecodeError as exc:
        offset, path = _scan(text, stop=exc.pos)
        raise TokenizerJsonError(path, f"invalid JSON at {_position(text, exc.pos)}: {exc.msg}"
                                 ) from None
    except RecursionError:
        if not text.lstrip(" \t\n\r").startswith("{"):
            raise TokenizerJsonError("", "expected a JSON object (a tokenizer), got a deeply"
                                     " nested value") from None
        offset, path = _scan(text, max_depth=MAX_DEPTH)
        if offset is None:  # not the document's depth: the caller's stack was already deep
            raise
        raise TokenizerJsonError(path, f"nested more than {MAX_DEPTH} levels deep (serde_json's"
                                 f" recursion limit) at {_position(text, offset)}") from None
    except ValueError as exc:  # e.g. an integer beyond int_max_str_digits
        raise TokenizerJsonError("", f"invalid JSON: {exc}") from None


# tagpipe.spec is the import point: hand it our public names (it imports this module at its end).
for _name in __all__:
    setattr(_spec, _name, globals()[_name])
_spec.__all__ += [n for n in __all__ if n not in _spec.__all__]
