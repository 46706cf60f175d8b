"""The whole tokenizer.json: ``truncation``, ``padding`` and the document itself.

* **truncation** / **padding**: plain serde structs read straight from the JSON stream (a
  repeated field is an error).
* **document**: the nine known keys only -- any other top-level key makes serde_json fail (the
  oracle's visitor never consumes its value); ``model`` is required; ``version`` must be
  ``"1.0"``; containers nest at most 127 deep, the document included.  At the top level a
  repeated key's every value is read and the last one kept.
"""

from __future__ import annotations

import gc
from typing import Annotated, Any, ClassVar, Dict, Literal, Optional, Tuple, Union

from pydantic import BeforeValidator, StrictStr, model_serializer, model_validator

from tagpipe.spec._base import (
    _OWNED,
    U32,
    Repeated,
    TokenizerJsonError,
    USize,
    _from_array,
    _Invalid,
    _key,
    _Model,
    _repeated,
    _show,
    _unit_variant,
    _variant_name,
)
from tagpipe.spec._json_text import _parse_json
from tagpipe.spec._read import _parse, _Section
from tagpipe.spec.added_tokens import AddedToken, _resolve_added, parse_added_tokens
from tagpipe.spec.decoders import Decoder, parse_decoder
from tagpipe.spec.models import Model, parse_model
from tagpipe.spec.normalizers import Normalizer, parse_normalizer
from tagpipe.spec.post_processors import PostProcessor, parse_post_processor
from tagpipe.spec.pre_tokenizers import PreTokenizer, parse_pre_tokenizer

# ---------------------------------------------------------------------------- truncation, padding


class Truncation(_Model):
    """``direction`` defaults to ``"Right"`` (but may not be null); the rest is required."""

    direction: Annotated[Literal["Left", "Right"], BeforeValidator(lambda v: _unit_variant(v, ("Left", "Right")))] = (
        "Right"
    )
    max_length: USize
    strategy: Annotated[
        Literal["LongestFirst", "OnlyFirst", "OnlySecond"],
        BeforeValidator(lambda v: _unit_variant(v, ("LongestFirst", "OnlyFirst", "OnlySecond"))),
    ]
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

    strategy: Annotated[Union[Literal["BatchLongest"], FixedPadding], BeforeValidator(_padding_strategy)]
    direction: Annotated[Literal["Left", "Right"], BeforeValidator(lambda v: _unit_variant(v, ("Left", "Right")))]
    pad_to_multiple_of: Optional[USize] = None
    pad_id: U32
    pad_type_id: U32
    pad_token: StrictStr

    @model_validator(mode="before")
    @classmethod
    def _array_form(cls, data: Any) -> Any:
        return _from_array(
            data, ("strategy", "direction", "pad_to_multiple_of", "pad_id", "pad_type_id", "pad_token"), "padding"
        )


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

        out = {
            "version": self.version,
            "truncation": part(self.truncation),
            "padding": part(self.padding),
            "added_tokens": [t.to_json() for t in self.added_tokens],
            "normalizer": part(self.normalizer),
            "pre_tokenizer": part(self.pre_tokenizer),
            "post_processor": part(self.post_processor),
            "decoder": part(self.decoder),
        }
        if model:
            out["model"] = self.model.to_json()
        return out


_TRUNCATION = _Section(Truncation)
_PADDING = _Section(Padding)


def _parse_version(obj: Any, path: str) -> str:
    if not isinstance(obj, str):
        raise TokenizerJsonError(path, f"expected a string, got {_show(obj)}")
    if obj != "1.0":
        raise TokenizerJsonError(path, f"unknown tokenizer version {obj!r}; only '1.0' loads")
    return obj


_SECTIONS = {
    "version": _parse_version,
    "truncation": lambda obj, path: _parse(_TRUNCATION, obj, path, strict_keys=True),
    "padding": lambda obj, path: _parse(_PADDING, obj, path, strict_keys=True),
    "added_tokens": parse_added_tokens,
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
            raise TokenizerJsonError(
                _key("", key),
                "unknown top-level key: the oracle cannot"
                ' skip it (serde_json fails with "expected `,` or `}`");'
                f" known keys: {', '.join(_SECTIONS)}",
            )
        for repeated in earlier.get(key, ()):  # each occurrence is read, the last one is kept
            _SECTIONS[key](repeated, key)
        parts[key] = _SECTIONS[key](value, key)
    if "model" not in parts:
        raise TokenizerJsonError("model", "missing required field (the oracle: 'Model missing.')")
    parts.setdefault("version", "1.0")
    parts["added_tokens"] = _resolve_added(parts.get("added_tokens") or (), parts["model"])
    return TokenizerSpec.model_construct(**parts)


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
