"""Typed loader for tokenizer.json: here the ``normalizer`` and ``pre_tokenizer`` sections.

The oracle (Hugging Face ``tokenizers`` 0.23, Rust + serde) decides what a section means.  These
pydantic models accept exactly the JSON it accepts, reject exactly what it rejects, and hold the
result with every field explicit: defaults filled in, legacy spellings resolved.  ``to_json()``
gives back the canonical dict, i.e. what the oracle itself would write.

How the oracle reads a section (``PreTokenizerWrapper`` / ``NormalizerWrapper`` in Rust):

* If ``"type"`` names a known variant (``"Name"`` or ``{"Name": null}``), that struct is read and
  its errors are final.  Unknown keys are ignored everywhere.  Two known names are odd:
  pre-tokenizer ``"Delimiter"`` is always rejected (the struct wants ``"CharDelimiterSplit"``),
  and normalizer ``"Bert"`` means ``BertNormalizer``.
* Otherwise (no type, unknown type, or not an object at all) every struct is tried in order and
  the first that fits wins.  Pre-tokenizer structs all check their own ``"type"``, so this adds
  ``{"type": "CharDelimiterSplit", ...}`` and arrays (``["Whitespace"]``, the 6-item Metaspace
  and 4-item Split rows).  Most normalizer structs do *not* check ``"type"``, so e.g.
  ``{"strip_left": true, "strip_right": false}`` is a Strip, ``{"type": "BertNormalizer", ...}``
  is read as fields only, and arrays such as ``[true, false]`` (Strip) or ``["x"]`` (Prepend)
  load.  A legacy Precompiled never loads (serde wants a borrowed string there).

The other sections (model, added_tokens, post_processor, decoder, truncation, padding) and the
whole document (``parse_tokenizer``, ``load_tokenizer_json``) live in ``tagpipe.spec_model`` and
are importable from here.

Regexes (Split and Replace ``{"Regex": ...}``) are compiled by the oracle at load time with
Oniguruma.  We ask the oracle itself (``tokenizers.Regex``) when it is importable; without it a
pattern is accepted here and left for the native side to reject.
"""
from __future__ import annotations

import base64
import contextvars
import functools
import itertools
import math
import re
from typing import Annotated, Any, ClassVar, List, Literal, Optional, Union

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool,
                      StrictInt, StrictStr, TypeAdapter, ValidationError, field_serializer,
                      model_serializer, model_validator)

__all__ = [
    "TokenizerJsonError", "parse_pre_tokenizer", "parse_normalizer", "PreTokenizer", "Normalizer",
    "Pattern", "BertPreTokenizer", "ByteLevelPreTokenizer", "CharDelimiterSplit", "Metaspace",
    "Whitespace", "PreTokenizerSequence", "Split", "Punctuation", "WhitespaceSplit", "Digits",
    "UnicodeScripts", "FixedLength", "BertNormalizer", "Strip", "StripAccents", "NFC", "NFD",
    "NFKC", "NFKD", "NormalizerSequence", "Lowercase", "Nmt", "Precompiled", "Replace", "Prepend",
    "ByteLevelNormalizer", "Repeated",
]


class TokenizerJsonError(ValueError):
    """A section the oracle would refuse to load; ``path`` is e.g. ``normalizer.normalizers[0]``
    (``""`` for the document itself, e.g. a JSON syntax error before any section)."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class _Invalid(ValueError):
    """Raised inside validators; ``loc`` continues pydantic's location (e.g. a legacy key)."""

    def __init__(self, message: str, *loc: Union[str, int]):
        super().__init__(message)
        self.loc = loc


def _show(value: Any) -> str:
    """repr, cut short: error messages quote the offending value."""
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "..." + text[-12:]


class Repeated(dict):
    """A JSON object that repeats keys, as :func:`load_tokenizer_json` reads it: the last value
    of each key (like json.loads), with the earlier ones in ``earlier`` (key -> values)."""
    earlier: dict

    @classmethod
    def of(cls, obj: dict, earlier: dict) -> "Repeated":
        out = cls(obj)
        out.earlier = earlier
        return out


class _LegacyOnly(dict):
    """A section whose ``"type"`` is repeated: the oracle's tagged read fails on it and it is read
    as untagged (legacy) only."""


# Inside post_processor, added_tokens, truncation and padding the oracle's structs are read from
# the JSON stream or from serde's buffered ``Content``, where a repeated field is an error; the
# other sections go through ``serde_json::Value``, which keeps the last value.
_STRICT_KEYS: contextvars.ContextVar = contextvars.ContextVar("strict_keys", default=False)


def _repeated(value: Any, keys) -> Optional[str]:
    """The first of ``keys`` that ``value`` repeats, when repeats are errors here."""
    if isinstance(value, Repeated) and _STRICT_KEYS.get():
        return next((k for k in value.earlier if k in keys), None)
    return None


# ---------------------------------------------------------------------------- field types

def _variant_name(value: Any, empty_map_ok: bool = False) -> Optional[str]:
    """serde reads a unit enum variant from ``"Name"`` or ``{"Name": null}``.  Only through a
    flattened struct (Punctuation) is ``{"Name": {}}`` also taken."""
    if isinstance(value, dict) and len(value) == 1:
        (key, inner), = value.items()
        value = key if inner is None or (empty_map_ok and inner == {}) else None
    return value if isinstance(value, str) else None


def _unit_variant(value: Any, names: tuple, empty_map_ok: bool = False) -> str:
    twice = _repeated(value, value.keys() if isinstance(value, dict) else ())
    if twice is not None:
        raise _Invalid(f"{twice!r} is repeated: an enum object takes exactly one key")
    name = _variant_name(value, empty_map_ok)
    if name not in names:
        raise _Invalid(f"{_show(value)} is not one of {', '.join(map(repr, names))}")
    return name


def _one_char(value: str) -> str:
    """Rust ``char``: exactly one code point."""
    if len(value) != 1:
        raise _Invalid(f"expected a single character, got {_show(value)}")
    return value


BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
PREPEND_SCHEMES = ("first", "never", "always")
BehaviorName = Literal["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]

Char = Annotated[StrictStr, AfterValidator(_one_char)]
USize = Annotated[StrictInt, Field(ge=0, le=2**64 - 1)]
Behavior = Annotated[BehaviorName, BeforeValidator(lambda v: _unit_variant(v, BEHAVIORS))]
PrependScheme = Annotated[Literal["first", "never", "always"],
                          BeforeValidator(lambda v: _unit_variant(v, PREPEND_SCHEMES))]


@functools.lru_cache(maxsize=256)
def _regex_error(pattern: str) -> Optional[str]:
    """Compile like the oracle does (Oniguruma via ``tokenizers.Regex``); None when it compiles
    or when the oracle is not installed (the native side then has the last word)."""
    try:
        from tokenizers import Regex
    except ImportError:
        return None
    try:
        Regex(pattern)
    except Exception as exc:  # the binding raises a plain Exception
        return str(exc)
    return None


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    # How the oracle's untagged (legacy) path reads the struct: its serde field order when given
    # a JSON array (None: objects only, as for flattened structs), and whether it checks "type".
    _array: ClassVar[Optional[tuple]] = None
    _checks_type: ClassVar[bool] = True
    # The JSON keys serde reads as fields (None: the model's fields, with "type" when checked).
    _serde_keys: ClassVar[Optional[tuple]] = None

    @model_validator(mode="before")
    @classmethod
    def _no_repeated_fields(cls, data: Any) -> Any:
        if isinstance(data, Repeated) and _STRICT_KEYS.get():
            keys = cls._serde_keys
            if keys is None:
                keys = [k for k in cls.model_fields if k != "type" or cls._checks_type]
            twice = _repeated(data, keys)
            if twice is not None:
                raise _Invalid("repeated field (the oracle: duplicate field)", twice)
        return data

    def to_json(self) -> dict:
        """The canonical dict, as the oracle serializes this section."""
        return self.model_dump(mode="json")


class _Unit(_Model):
    """A struct without fields; the legacy path also takes ``["Name"]``."""
    _array: ClassVar[Optional[tuple]] = ()


class Pattern(_Model):
    """Split / Replace pattern, serde's externally tagged ``{"String": s}`` or ``{"Regex": r}``.
    A String is matched literally (the oracle escapes it), so only a Regex can fail to compile."""
    kind: Literal["String", "Regex"]
    value: str

    @model_validator(mode="before")
    @classmethod
    def _from_json(cls, data: Any) -> Any:
        if isinstance(data, Pattern):
            return data
        if not isinstance(data, dict) or len(data) != 1:
            raise _Invalid(f"expected {{'String': ...}} or {{'Regex': ...}}, got {_show(data)}")
        (kind, value), = data.items()
        if kind not in ("String", "Regex"):
            raise _Invalid(f"{kind!r} is not one of 'String', 'Regex'")
        if not isinstance(value, str):
            raise _Invalid(f"expected a string, got {_show(value)}", kind)
        if kind == "Regex" and _regex_error(value):
            raise _Invalid(f"regex {_show(value)} does not compile: {_regex_error(value)}", kind)
        return {"kind": kind, "value": value}

    @model_serializer
    def _to_json(self) -> dict:
        return {self.kind: self.value}


# ---------------------------------------------------------------------------- pre-tokenizers

class BertPreTokenizer(_Unit):
    type: Literal["BertPreTokenizer"] = "BertPreTokenizer"


class ByteLevelPreTokenizer(_Model):
    """``add_prefix_space`` and ``trim_offsets`` are required; ``use_regex`` defaults to true."""
    type: Literal["ByteLevel"] = "ByteLevel"
    add_prefix_space: StrictBool
    trim_offsets: StrictBool
    use_regex: StrictBool = True


class CharDelimiterSplit(_Model):
    """Only loads under its struct name; the oracle's tag ``"Delimiter"`` is rejected."""
    type: Literal["CharDelimiterSplit"] = "CharDelimiterSplit"
    delimiter: Char


class Metaspace(_Model):
    """Legacy keys: ``add_prefix_space`` (bool or null) and ``str_rep`` (string or null) are
    accepted and dropped, but ``add_prefix_space: false`` demands ``prepend_scheme: "never"``.
    ``prepend_scheme`` defaults to ``"always"``; ``split`` missing or null means true."""
    _array: ClassVar[Optional[tuple]] = (
        "replacement", "add_prefix_space", "prepend_scheme", "split", "str_rep")
    type: Literal["Metaspace"] = "Metaspace"
    replacement: Char
    prepend_scheme: PrependScheme = "always"
    split: StrictBool = True

    @model_validator(mode="before")
    @classmethod
    def _legacy_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        add_prefix_space = data.pop("add_prefix_space", None)
        str_rep = data.pop("str_rep", None)
        if add_prefix_space is not None and not isinstance(add_prefix_space, bool):
            raise _Invalid(f"expected a boolean or null, got {_show(add_prefix_space)}",
                           "add_prefix_space")
        if str_rep is not None and not isinstance(str_rep, str):
            raise _Invalid(f"expected a string or null, got {_show(str_rep)}", "str_rep")
        if data.get("split", True) is None:
            del data["split"]
        if add_prefix_space is False:
            try:
                scheme = _unit_variant(data.get("prepend_scheme", "always"), PREPEND_SCHEMES)
            except _Invalid:
                return data  # the prepend_scheme error is reported by the field itself
            if scheme != "never":
                raise _Invalid(f"add_prefix_space false contradicts prepend_scheme {scheme!r}"
                               " (only 'never' is allowed with it)", "add_prefix_space")
        return data


class Whitespace(_Unit):
    type: Literal["Whitespace"] = "Whitespace"


class PreTokenizerSequence(_Model):
    """May be empty; each item is a full pre-tokenizer (legacy forms included), never null."""
    type: Literal["Sequence"] = "Sequence"
    pretokenizers: List["PreTokenizer"]


class Split(_Model):
    """All of ``pattern``, ``behavior`` and ``invert`` are required."""
    _array: ClassVar[Optional[tuple]] = ("pattern", "behavior", "invert")
    type: Literal["Split"] = "Split"
    pattern: Pattern
    behavior: Behavior
    invert: StrictBool


class Punctuation(_Model):
    """``behavior`` defaults to ``"Isolated"``; also takes ``{"Isolated": {}}`` (flattened)."""
    type: Literal["Punctuation"] = "Punctuation"
    behavior: Annotated[BehaviorName,
                        BeforeValidator(lambda v: _unit_variant(v, BEHAVIORS, True))] = "Isolated"


class WhitespaceSplit(_Unit):
    type: Literal["WhitespaceSplit"] = "WhitespaceSplit"


class Digits(_Model):
    """``individual_digits`` is required (no default in the oracle's serde)."""
    type: Literal["Digits"] = "Digits"
    individual_digits: StrictBool


class UnicodeScripts(_Unit):
    type: Literal["UnicodeScripts"] = "UnicodeScripts"


class FixedLength(_Model):
    """``length`` is a usize (0 included), default 5."""
    type: Literal["FixedLength"] = "FixedLength"
    length: USize = 5


# ---------------------------------------------------------------------------- normalizers

class BertNormalizer(_Model):
    """Tagged as ``"Bert"`` (or, through the legacy path, anything else); ``strip_accents`` may be
    null or missing, the other three are required."""
    _array: ClassVar[Optional[tuple]] = (
        "clean_text", "handle_chinese_chars", "strip_accents", "lowercase")
    _checks_type: ClassVar[bool] = False
    type: Literal["BertNormalizer"] = "BertNormalizer"
    clean_text: StrictBool
    handle_chinese_chars: StrictBool
    strip_accents: Optional[StrictBool] = None
    lowercase: StrictBool


class Strip(_Model):
    _array: ClassVar[Optional[tuple]] = ("strip_left", "strip_right")
    _checks_type: ClassVar[bool] = False
    type: Literal["Strip"] = "Strip"
    strip_left: StrictBool
    strip_right: StrictBool


class StripAccents(_Unit):
    type: Literal["StripAccents"] = "StripAccents"


class NFC(_Unit):
    type: Literal["NFC"] = "NFC"


class NFD(_Unit):
    type: Literal["NFD"] = "NFD"


class NFKC(_Unit):
    type: Literal["NFKC"] = "NFKC"


class NFKD(_Unit):
    type: Literal["NFKD"] = "NFKD"


class NormalizerSequence(_Model):
    """May be empty; each item is a full normalizer (legacy forms included), never null."""
    _array: ClassVar[Optional[tuple]] = ("normalizers",)
    _checks_type: ClassVar[bool] = False
    type: Literal["Sequence"] = "Sequence"
    normalizers: List["Normalizer"]


class Lowercase(_Unit):
    type: Literal["Lowercase"] = "Lowercase"


class Nmt(_Unit):
    type: Literal["Nmt"] = "Nmt"


_BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/]*")


def _decode_charsmap(text: Any) -> bytes:
    """Decode and check ``precompiled_charsmap`` like spm_precompiled (base64 0.13, STANDARD).

    Padding is optional but, when present, may only close the last quad ("AAAAAA=" is fine,
    "AAAAAA===" is not); unused trailing bits must be zero; no whitespace.  The bytes must then
    parse: a little-endian u32 trie size, that many bytes (rounded down to whole u32s) of trie,
    and a UTF-8 rest.  The oracle panics (PanicException) on a bad charsmap."""
    if not isinstance(text, str):
        raise _Invalid(f"expected a base64 string, got {_show(text)}")
    body = text.rstrip("=")
    last_chunk = len(text) - (len(text) % 8 or 8)
    pads_ok = all(i >= last_chunk and i % 4 >= 2 for i in range(len(body), len(text)))
    if len(text) % 8 in (1, 5) or not pads_ok or not _BASE64_BODY.fullmatch(body):
        raise _Invalid(f"not valid base64: {_show(text)}")
    data = base64.b64decode(body + "=" * (-len(body) % 4))
    unused_bits = {0: 0, 2: 4, 3: 2}[len(body) % 4]
    if unused_bits and _BASE64_ALPHABET.index(body[-1]) & ((1 << unused_bits) - 1):
        raise _Invalid(f"not valid base64 (non-zero trailing bits): {_show(text)}")
    trie_end = 4 + 4 * (int.from_bytes(data[:4], "little") // 4)
    try:
        if len(data) < 4 or trie_end > len(data):
            raise ValueError
        data[trie_end:].decode("utf-8")
    except ValueError:
        raise _Invalid("cannot parse precompiled_charsmap (short trie or non-UTF-8 tail)") from None
    return data


class Precompiled(_Model):
    """SentencePiece charsmap; held decoded, written back as canonical padded base64."""
    type: Literal["Precompiled"] = "Precompiled"
    precompiled_charsmap: Annotated[bytes, BeforeValidator(_decode_charsmap)] = Field(repr=False)

    @field_serializer("precompiled_charsmap")
    def _to_base64(self, value: bytes) -> str:
        return base64.b64encode(value).decode("ascii")


class Replace(_Model):
    _array: ClassVar[Optional[tuple]] = ("pattern", "content")
    _checks_type: ClassVar[bool] = False
    type: Literal["Replace"] = "Replace"
    pattern: Pattern
    content: StrictStr


class Prepend(_Model):
    _array: ClassVar[Optional[tuple]] = ("prepend",)
    _checks_type: ClassVar[bool] = False
    type: Literal["Prepend"] = "Prepend"
    prepend: StrictStr


class ByteLevelNormalizer(_Unit):
    type: Literal["ByteLevel"] = "ByteLevel"


# ---------------------------------------------------------------------------- dispatch

def _tag(model: type) -> str:
    return model.model_fields["type"].default


def _legacy_candidate(raw: Any, model: type) -> Optional[dict]:
    """How ``model`` would read ``raw`` on the oracle's untagged path, as a dict; None if it
    cannot fit (wrong "type", wrong array length, arrays not taken)."""
    tag = _tag(model)
    if isinstance(raw, dict):
        if model._checks_type and _variant_name(raw.get("type")) != tag:
            return None
        return _with_type(raw, tag)
    if isinstance(raw, list) and model._array is not None:
        items = raw
        if model._checks_type:
            if not items or _variant_name(items[0]) != tag:
                return None
            items = items[1:]
        if len(items) == len(model._array):
            return {**dict(zip(model._array, items)), "type": tag}
    return None


def _with_type(raw: dict, tag: str) -> dict:
    """``raw`` with ``"type": tag``, keeping what it repeats."""
    out = {**raw, "type": tag}
    return Repeated.of(out, raw.earlier) if isinstance(raw, Repeated) else out


def _resolver(kind: str, tagged: dict, legacy: tuple, names: Optional[tuple] = None):
    """The before-validator of a section union: turn raw JSON into a dict carrying the canonical
    ``"type"`` (or an already validated model), following the oracle's tagged-then-untagged read.
    ``names`` lists the types for error messages when none is tagged (purely untagged unions)."""

    def resolve(raw: Any) -> Any:
        if isinstance(raw, _Model):
            return raw
        name = _variant_name(raw.get("type")) if isinstance(raw, dict) else None
        if name in tagged and not isinstance(raw, _LegacyOnly):
            if tagged[name] is None:
                raise _Invalid(f"type {name!r} is refused by the oracle; the struct wants"
                               " 'CharDelimiterSplit'", "type")
            return _with_type(raw, tagged[name])
        failed = []
        for model in legacy:
            candidate = _legacy_candidate(raw, model)
            if candidate is not None:
                try:
                    return model.model_validate(candidate)
                except ValidationError:
                    failed.append((model, candidate))
        # Nothing fits: let the likeliest struct report its own error with a field path.
        likely = [c for m, c in failed if _tag(m) == name]
        if isinstance(raw, dict):
            overlap = [(len(set(m.model_fields) & raw.keys() - {"type"}), c) for m, c in failed]
            likely += [c for n, c in sorted(overlap, key=lambda x: -x[0]) if n]
        if likely or len(failed) == 1:
            return (likely or [failed[0][1]])[0]
        if isinstance(raw, dict):
            known = ", ".join(repr(t) for t in (names or [t for t in tagged if tagged[t]]))
            if "type" not in raw:
                raise _Invalid(f"missing 'type' and no legacy {kind} form fits; types: {known}")
            raise _Invalid(f"{_show(raw['type'])} is not a {kind} type; expected one of {known}",
                           "type")
        raise _Invalid(f"expected a {kind} object, got {_show(raw)}")

    return resolve


# Both in the oracle's untagged (legacy) order.
_PRE_TOKENIZERS = (BertPreTokenizer, ByteLevelPreTokenizer, CharDelimiterSplit, Metaspace,
                   Whitespace, PreTokenizerSequence, Split, Punctuation, WhitespaceSplit, Digits,
                   UnicodeScripts, FixedLength)
_NORMALIZERS = (BertNormalizer, Strip, StripAccents, NFC, NFD, NFKC, NFKD, NormalizerSequence,
                Lowercase, Nmt, Precompiled, Replace, Prepend, ByteLevelNormalizer)

#: Any pre-tokenizer; validating raw JSON against it follows the oracle (see the module doc).
PreTokenizer = Annotated[Union[_PRE_TOKENIZERS], Field(discriminator="type"), BeforeValidator(
    _resolver("pre-tokenizer",
              {**{_tag(m): _tag(m) for m in _PRE_TOKENIZERS if m is not CharDelimiterSplit},
               "Delimiter": None},
              _PRE_TOKENIZERS))]

#: Any normalizer, likewise.  A legacy Precompiled never loads (serde wants a borrowed string).
Normalizer = Annotated[Union[_NORMALIZERS], Field(discriminator="type"), BeforeValidator(
    _resolver("normalizer",
              {**{_tag(m): _tag(m) for m in _NORMALIZERS if m is not BertNormalizer},
               "Bert": "BertNormalizer"},
              tuple(m for m in _NORMALIZERS if m is not Precompiled)))]

PreTokenizerSequence.model_rebuild()
NormalizerSequence.model_rebuild()
_PRE_TOKENIZER = TypeAdapter(PreTokenizer)
_NORMALIZER = TypeAdapter(Normalizer)
_TAGS = {_tag(m) for m in _NORMALIZERS + _PRE_TOKENIZERS}


# ---------------------------------------------------------------------------- entry points

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _key(path: str, key: str) -> str:
    """``path.key``, or ``path['key']`` for keys that are not identifiers (vocab tokens)."""
    if not _IDENTIFIER.fullmatch(key):
        return f"{path}[{key!r}]"
    return f"{path}.{key}" if path else key


def _join(path: str, loc) -> str:
    for part in loc:
        path = f"{path}[{part}]" if isinstance(part, int) else _key(path, str(part))
    return path


def _json_ok(value: Any, depth: int = 1) -> bool:
    """A fast, level-by-level pass over what :func:`_check_json` checks (whole vocabularies at C
    speed); False means "look closer", not necessarily "invalid"."""
    # A level is a list of batches: the children of one batch's containers of one kind form
    # one batch, so a vocabulary's ids and the merges stay apart (no per-item type split);
    # small batches share one (a file of many small mixed containers: not a batch each).
    level = [[value]]
    while level:
        deeper: list = []
        small: list = []
        for batch in level:
            kinds = set(map(type, batch))
            for kind in kinds:
                items = batch if len(kinds) == 1 else [v for v in batch if type(v) is kind]
                if kind is str:
                    try:
                        "".join(items).encode("utf-8")
                    except UnicodeEncodeError:
                        return False
                elif kind is float:
                    if not all(map(math.isfinite, items)):
                        return False
                elif kind is int:
                    if max(items) >= _FLOAT_INTS or min(items) <= -_FLOAT_INTS:
                        return False
                elif kind is list or (isinstance(kind, type) and issubclass(kind, dict)):
                    if depth > 126:
                        return False
                    if kind is not list:
                        keys = list(itertools.chain.from_iterable(items))
                        if set(map(type, keys)) - {str}:
                            return False
                        try:
                            "".join(keys).encode("utf-8")
                        except UnicodeEncodeError:
                            return False
                        del keys
                        items = map(dict.values, items)
                    children = list(itertools.chain.from_iterable(items))
                    if len(children) >= 1024:
                        deeper.append(children)
                    else:
                        small.extend(children)
                elif kind is not bool and kind is not type(None):
                    return False
        if small:
            deeper.append(small)
        level = deeper
        depth += 1
    return True


_FLOAT_INTS = 2**1023  # ints this large may not fit an f64: checked one by one


def _check_json(value: Any, path: str, depth: int = 1) -> None:
    """What serde_json refuses before any struct sees it: lone surrogates, NaN, infinities and
    numbers beyond f64, nesting past its recursion limit (128 levels, one taken by the document,
    so a section may nest 126 deep), and anything json.loads cannot produce."""
    if _json_ok(value, depth):
        return
    _check_json_item(value, path, depth)


def _check_json_item(value: Any, path: str, depth: int) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise TokenizerJsonError(path, f"{_show(value)} is not valid UTF-8 (a lone surrogate,"
                                           " or an undecodable byte)") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise TokenizerJsonError(path, f"{_show(value)} is out of range for a JSON number")
    elif isinstance(value, (list, dict)) and depth > 126:
        raise TokenizerJsonError(path, "nested deeper than serde_json's recursion limit")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_item(item, f"{path}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TokenizerJsonError(path, f"object key {_show(key)} is not a string")
            _check_json_item(key, path, depth)
            _check_json_item(item, _key(path, key), depth + 1)
    elif value is not None and not isinstance(value, bool):
        raise TokenizerJsonError(path, f"{_show(value)} is not a JSON value")


_EXPECTED = {"bool_type": "a boolean", "string_type": "a string", "int_type": "an integer",
             "list_type": "an array", "greater_than_equal": "an integer >= 0",
             "less_than_equal": "an integer < 2**64"}


def _to_error(exc: ValidationError, path: str) -> TokenizerJsonError:
    """Turn pydantic's first error into ``path: message``, dropping the union tags from its loc."""
    error = exc.errors()[0]
    loc = [part for i, part in enumerate(error["loc"])
           if not (part in _TAGS and (i == 0 or isinstance(error["loc"][i - 1], int)))]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, _Invalid):
        return TokenizerJsonError(_join(path, loc + list(cause.loc)), str(cause))
    if error["type"] == "missing":
        return TokenizerJsonError(_join(path, loc), "missing required field")
    expected = _EXPECTED.get(error["type"])
    bound = (error.get("ctx") or {}).get("le")
    if error["type"] == "less_than_equal" and isinstance(bound, int) and bound & (bound + 1) == 0:
        expected = f"an integer < 2**{bound.bit_length()}"
    message = f"expected {expected}" if expected else error["msg"]
    return TokenizerJsonError(_join(path, loc), f"{message}, got {_show(error['input'])}")


def _parse(adapter: TypeAdapter, obj: Any, path: str, strict_keys: bool = False) -> Any:
    """Validate a section; ``strict_keys``: repeated fields are errors (see _STRICT_KEYS)."""
    if obj is None:
        return None
    _check_json(obj, path)
    token = _STRICT_KEYS.set(strict_keys)
    try:
        return adapter.validate_python(obj)
    except ValidationError as exc:
        raise _to_error(exc, path) from None
    finally:
        _STRICT_KEYS.reset(token)


def _tagged_section(obj: Any) -> Any:
    """A tagged-then-untagged section as the oracle reads it: a repeated "type" fails the tagged
    read (a serde struct), leaving the untagged one (on serde_json::Value, last value kept)."""
    if isinstance(obj, Repeated) and "type" in obj.earlier:
        return _LegacyOnly(obj)
    return obj


def parse_pre_tokenizer(obj: Any, path: str = "pre_tokenizer") -> Optional[PreTokenizer]:
    """Load the ``pre_tokenizer`` section (already ``json.loads``-ed); null means none."""
    return _parse(_PRE_TOKENIZER, _tagged_section(obj), path)


def parse_normalizer(obj: Any, path: str = "normalizer") -> Optional[Normalizer]:
    """Load the ``normalizer`` section (already ``json.loads``-ed); null means none."""
    return _parse(_NORMALIZER, _tagged_section(obj), path)


# The model, added_tokens, post_processor, decoder, truncation and padding sections and the whole
# document live in tagpipe.spec_model, which adds its public names to this module when loaded.
import tagpipe.spec_model  # noqa: E402,F401  (safe in either import order)
