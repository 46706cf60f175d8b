"""The ``pre_tokenizer`` section (the oracle's ``PreTokenizerWrapper``).

* If ``"type"`` names a known variant (``"Name"`` or ``{"Name": null}``), that struct is read and
  its errors are final.  Unknown keys are ignored everywhere.  ``"Delimiter"`` is always
  rejected (the struct wants ``"CharDelimiterSplit"``).
* Otherwise (no type, unknown type, or not an object at all) every struct is tried in order and
  the first that fits wins.  Pre-tokenizer structs all check their own ``"type"``, so this adds
  ``{"type": "CharDelimiterSplit", ...}`` and arrays (``["Whitespace"]``, the 6-item Metaspace
  and 4-item Split rows).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, List, Literal, Optional, Union

from pydantic import BeforeValidator, Field, StrictBool, model_validator

from tagpipe.spec._base import (
    BEHAVIORS,
    PREPEND_SCHEMES,
    Behavior,
    BehaviorName,
    Char,
    Pattern,
    PrependScheme,
    USize,
    _Invalid,
    _Model,
    _show,
    _Unit,
    _unit_variant,
)
from tagpipe.spec._read import _parse, _resolver, _Section, _tag, _tagged_section


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

    _array: ClassVar[Optional[tuple]] = ("replacement", "add_prefix_space", "prepend_scheme", "split", "str_rep")
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
            raise _Invalid(f"expected a boolean or null, got {_show(add_prefix_space)}", "add_prefix_space")
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
                raise _Invalid(
                    f"add_prefix_space false contradicts prepend_scheme {scheme!r} (only 'never' is allowed with it)",
                    "add_prefix_space",
                )
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
    behavior: Annotated[BehaviorName, BeforeValidator(lambda v: _unit_variant(v, BEHAVIORS, True))] = "Isolated"


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


# In the oracle's untagged (legacy) order.
_PRE_TOKENIZERS = (
    BertPreTokenizer,
    ByteLevelPreTokenizer,
    CharDelimiterSplit,
    Metaspace,
    Whitespace,
    PreTokenizerSequence,
    Split,
    Punctuation,
    WhitespaceSplit,
    Digits,
    UnicodeScripts,
    FixedLength,
)

#: Any pre-tokenizer; validating raw JSON against it follows the oracle (see the module doc).
PreTokenizer = Annotated[
    Union[_PRE_TOKENIZERS],
    Field(discriminator="type"),
    BeforeValidator(
        _resolver(
            "pre-tokenizer",
            {**{_tag(m): _tag(m) for m in _PRE_TOKENIZERS if m is not CharDelimiterSplit}, "Delimiter": None},
            _PRE_TOKENIZERS,
        )
    ),
]

PreTokenizerSequence.model_rebuild()
_SECTION = _Section(PreTokenizer, _PRE_TOKENIZERS)


def parse_pre_tokenizer(obj: Any, path: str = "pre_tokenizer") -> Optional[PreTokenizer]:
    """Load the ``pre_tokenizer`` section (already ``json.loads``-ed); null means none."""
    return _parse(_SECTION, _tagged_section(obj), path)
