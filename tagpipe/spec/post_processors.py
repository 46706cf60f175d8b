"""The ``post_processor`` section (the oracle's ``PostProcessorWrapper``), purely untagged:
RobertaProcessing, BertProcessing, ByteLevel, TemplateProcessing, Sequence in that order; only
ByteLevel and Sequence check ``"type"``, so ``{"type": "RobertaProcessing", "sep", "cls"}`` is a
Bert.  Templates are lists of ``{"SpecialToken": {...}}``/``{"Sequence": {...}}`` pieces only (no
``"$A"`` strings); missing special tokens and ids/tokens of different lengths load fine.  A
repeated field is an error (serde reads these structs from its buffered ``Content``)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Tuple, Union

from pydantic import BeforeValidator, Field, StrictBool, StrictStr, model_serializer, model_validator

from tagpipe.spec._base import U32, _from_array, _Invalid, _Model, _repeated, _show, _unit_variant
from tagpipe.spec._read import _parse, _resolver, _Section, _tag
from tagpipe.spec.pre_tokenizers import ByteLevelPreTokenizer


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
            raise _Invalid(
                f"expected {{'Sequence': {{...}}}} or {{'SpecialToken': {{...}}}} (one key), got {_show(data)}"
            )
        ((kind, inner),) = data.items()
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
        return {
            "kind": kind,
            "id": _field(inner, "id", kind, check_id),
            "type_id": _field(inner, "type_id", kind, _u32),
        }

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


_POST_PROCESSORS = (RobertaProcessing, BertProcessing, ByteLevelPreTokenizer, TemplateProcessing, ProcessorSequence)

#: Any post-processor: purely untagged, tried in the oracle's order.
PostProcessor = Annotated[
    Union[_POST_PROCESSORS],
    Field(discriminator="type"),
    BeforeValidator(_resolver("post-processor", {}, _POST_PROCESSORS, tuple(map(_tag, _POST_PROCESSORS)))),
]

ProcessorSequence.model_rebuild()
_SECTION = _Section(PostProcessor, _POST_PROCESSORS)


def parse_post_processor(obj: Any, path: str = "post_processor") -> Optional[PostProcessor]:
    """Load the ``post_processor`` section; null means none."""
    return _parse(_SECTION, obj, path, strict_keys=True)
