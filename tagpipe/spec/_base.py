"""What every section of :mod:`tagpipe.spec` is built from: the error type, the base model, the
field types serde reads in its own way, and the JSON paths errors name.

Regexes (Split and Replace ``{"Regex": ...}``) are compiled by the oracle at load time with
Oniguruma.  We ask the oracle itself (``tokenizers.Regex``) when it is importable; without it a
pattern is accepted here and left for the native side to reject.
"""

from __future__ import annotations

import contextvars
import functools
import re
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    model_serializer,
    model_validator,
)


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


# Set while load_tokenizer_json loads the document it parsed itself: nobody else holds its
# containers, so a model keeps them rather than a copy (10 million tokens: 1/3 GB).
_OWNED: contextvars.ContextVar = contextvars.ContextVar("owned", default=False)


# ---------------------------------------------------------------------------- field types


def _variant_name(value: Any, empty_map_ok: bool = False) -> Optional[str]:
    """serde reads a unit enum variant from ``"Name"`` or ``{"Name": null}``.  Only through a
    flattened struct (Punctuation) is ``{"Name": {}}`` also taken."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
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
U32 = Annotated[StrictInt, Field(ge=0, le=2**32 - 1)]
Behavior = Annotated[BehaviorName, BeforeValidator(lambda v: _unit_variant(v, BEHAVIORS))]
PrependScheme = Annotated[
    Literal["first", "never", "always"], BeforeValidator(lambda v: _unit_variant(v, PREPEND_SCHEMES))
]


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
        ((kind, value),) = data.items()
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


def _drop_nulls(data: Any, keys: tuple) -> Any:
    """serde ``Option`` fields a visitor reads as "null means default"."""
    if isinstance(data, dict) and any(data.get(k, 0) is None for k in keys):
        data = {k: v for k, v in data.items() if not (k in keys and v is None)}
    return data


def _from_array(data: Any, fields: tuple, what: str) -> Any:
    """A serde struct also reads a JSON array holding its fields in order (exactly all of them)."""
    if isinstance(data, list):
        if len(data) != len(fields):
            raise _Invalid(f"an array {what} needs exactly {len(fields)} items ({', '.join(fields)}), got {len(data)}")
        return dict(zip(fields, data))
    return data


# ---------------------------------------------------------------------------- JSON paths

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
