"""The ``model`` section (the oracle's ``ModelWrapper``).

A known ``"type"`` (``"BPE"`` or ``{"BPE": null}``) selects the struct and its errors are final;
any other ``"type"`` value (null included) is refused; without ``"type"`` BPE, WordPiece,
WordLevel, Unigram are tried in that order (old files).

* **BPE** reads null as "default" for every field but ``vocab``/``merges`` (both required);
  merges are all ``"a b"`` strings (exactly one space; entries starting with ``#version`` are
  skipped) or all ``[a, b]`` pairs; at load every merge's parts and result must be in the vocab
  (the result drops ``len(continuing_subword_prefix)`` bytes from ``b`` whether or not ``b``
  starts with it, and panics when ``b`` is shorter); a repeated merge keeps its last rank.
  ``dropout`` is an f32 in [0, 1] after rounding.
* ``unk_token`` is *not* checked against the vocab (WordPiece, WordLevel and BPE only fail when
  encoding meets an unknown piece); Unigram's ``unk_id`` is checked.
* Duplicate ids are accepted: the oracle then keeps one token per id at random (per load) when
  writing the vocab; ``to_json`` keeps the first in file order.  A vocab holding id 2**32-1 is
  written as ``{}`` (the oracle's ``0..max+1`` wraps).
* Where the oracle *panics* (a merge result longer than every token, or ``b`` shorter than the
  prefix) an untagged read stops there instead of trying the next model.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import struct
from typing import Annotated, Any, ClassVar, Dict, Literal, Optional, Tuple, Union

import numpy as np
from pydantic import (
    BeforeValidator,
    Field,
    PlainValidator,
    StrictBool,
    StrictStr,
    ValidationError,
    WrapValidator,
    model_validator,
)

from tagpipe.spec._base import (
    _OWNED,
    U32,
    Repeated,
    TokenizerJsonError,
    USize,
    _drop_nulls,
    _Invalid,
    _Model,
    _show,
    _variant_name,
)
from tagpipe.spec._read import _parse, _Section, _tag


def _vocab(value: Any, handler) -> Dict[str, int]:
    """A token -> id object, checked at C speed when it plainly fits (the usual case; pydantic
    takes half a second per million tokens), else by pydantic, which names the bad entry."""
    if type(value) is dict:  # (a Repeated one goes through pydantic, which drops `earlier`)
        ids = value.values()
        if (
            set(map(type, value)) <= {str}
            and set(map(type, ids)) <= {int}
            and (not value or 0 <= min(ids) and max(ids) <= 2**32 - 1)
        ):
            return value if _OWNED.get() else dict(value)
    return handler(value)


Vocab = Annotated[Dict[StrictStr, U32], WrapValidator(_vocab)]


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
                raise _Invalid(
                    f"expected a string like merges[0] (merges are all 'a b' strings or"
                    f" all [a, b] pairs), got {_show(item)}",
                    i,
                )
            if item.startswith("#version"):
                continue  # skipped by the oracle, as in a merges.txt header
            parts = item.split(" ")
            if len(parts) != 2:
                raise _Invalid(
                    f"{item!r} must be two tokens separated by exactly one space"
                    f" ({len(parts) - 1} spaces; use an [a, b] pair for tokens"
                    " containing spaces)",
                    i,
                )
            out.append((parts[0], parts[1]))
        else:
            if not isinstance(item, list) or len(item) != 2:
                raise _Invalid(
                    f"expected an [a, b] pair like merges[0] (merges are all 'a b'"
                    f" strings or all [a, b] pairs), got {_show(item)}",
                    i,
                )
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
        "dropout",
        "unk_token",
        "continuing_subword_prefix",
        "end_of_word_suffix",
        "fuse_unk",
        "byte_fallback",
        "ignore_merges",
    )
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
            columns[row] = np.fromiter(map(vocab.get, tokens, itertools.repeat(-1)), dtype=np.int64, count=len(merges))
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
            kept = (i for i, m in enumerate(raw) if not (isinstance(m, str) and m.startswith("#version")))
            where = ("merges", next(itertools.islice(kept, rank, None)))
        else:
            where = ("merges", rank)
        for part in (a, b):
            if part not in self.vocab:
                raise _Invalid(f"{a!r} + {b!r}: {part!r} is not in model.vocab", *where)
        raw_a, raw_b = a.encode("utf-8"), b.encode("utf-8")
        if len(raw_b) < cut:
            raise _Fatal(
                f"{a!r} + {b!r}: {b!r} is shorter than continuing_subword_prefix"
                f" {prefix!r}, whose length the oracle cuts from it (it panics)",
                *where,
            )
        shown = f" (with {cut} bytes of continuing_subword_prefix cut from {b!r})" if cut else ""
        if len(raw_a) + len(raw_b) - cut > max(len(t.encode("utf-8")) for t in self.vocab):
            merged = (raw_a + raw_b[cut:]).decode("utf-8", "replace")
            raise _Fatal(
                f"{a!r} + {b!r} -> {merged!r}{shown} is not in model.vocab (longer than"
                " every token: the oracle panics)",
                *where,
            )
        merged = _cut_merge(a, b, cut)
        if merged is None:  # an error whose message is not UTF-8: if it reaches Python, pyo3
            # aborts the process; an untagged read drops it and goes on (so: not _Fatal)
            raise _Invalid(
                f"{a!r} + {b!r}: cutting the {cut}-byte continuing_subword_prefix"
                f" {prefix!r} from {b!r} splits a character, so the result is not in"
                " model.vocab (the oracle aborts the process)",
                *where,
            )
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
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
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
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": _ordered_vocab(self.vocab),
        }


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
        return {"type": "WordLevel", "vocab": _ordered_vocab(self.vocab), "unk_token": self.unk_token}


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
            raise _Invalid(f"unk_id {self.unk_id} is out of range for a vocab of {len(self.vocab)} pieces", "unk_id")
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
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[p, s] for p, s in self.vocab],
            "byte_fallback": self.byte_fallback,
        }


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
            raise _Invalid(
                "'type' is repeated: the oracle's tagged read then fails, and its untagged read refuses any 'type'",
                "type",
            )
        name = _variant_name(raw["type"])
        if name not in _MODEL_TYPES:
            raise _Invalid(
                f"{_show(raw['type'])} is not a model type; expected one of {known}"
                " (a file without 'type' is read as an old untagged model)",
                "type",
            )
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

_SECTION = _Section(Model, _MODELS)


def parse_model(obj: Any, path: str = "model") -> Model:
    """Load the ``model`` section (already ``json.loads``-ed); it may not be null."""
    if obj is None:
        raise TokenizerJsonError(path, "expected a model object, got None")
    return _parse(_SECTION, obj, path)
