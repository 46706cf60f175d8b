"""The ``normalizer`` section (the oracle's ``NormalizerWrapper``).

* If ``"type"`` names a known variant (``"Name"`` or ``{"Name": null}``), that struct is read and
  its errors are final; ``"Bert"`` means ``BertNormalizer``.  Unknown keys are ignored.
* Otherwise (no type, unknown type, or not an object at all) every struct is tried in order and
  the first that fits wins.  Most normalizer structs do *not* check ``"type"``, so e.g.
  ``{"strip_left": true, "strip_right": false}`` is a Strip, ``{"type": "BertNormalizer", ...}``
  is read as fields only, and arrays such as ``[true, false]`` (Strip) or ``["x"]`` (Prepend)
  load.  A legacy Precompiled never loads (serde wants a borrowed string there).
"""

from __future__ import annotations

import base64
import re
from typing import Annotated, Any, ClassVar, List, Literal, Optional, Union

from pydantic import BeforeValidator, Field, StrictBool, StrictStr, field_serializer

from tagpipe.spec._base import Pattern, _Invalid, _Model, _show, _Unit
from tagpipe.spec._read import _parse, _resolver, _Section, _tag, _tagged_section


class BertNormalizer(_Model):
    """Tagged as ``"Bert"`` (or, through the legacy path, anything else); ``strip_accents`` may be
    null or missing, the other three are required."""

    _array: ClassVar[Optional[tuple]] = ("clean_text", "handle_chinese_chars", "strip_accents", "lowercase")
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


# In the oracle's untagged (legacy) order.
_NORMALIZERS = (
    BertNormalizer,
    Strip,
    StripAccents,
    NFC,
    NFD,
    NFKC,
    NFKD,
    NormalizerSequence,
    Lowercase,
    Nmt,
    Precompiled,
    Replace,
    Prepend,
    ByteLevelNormalizer,
)

#: Any normalizer, likewise.  A legacy Precompiled never loads (serde wants a borrowed string).
Normalizer = Annotated[
    Union[_NORMALIZERS],
    Field(discriminator="type"),
    BeforeValidator(
        _resolver(
            "normalizer",
            {**{_tag(m): _tag(m) for m in _NORMALIZERS if m is not BertNormalizer}, "Bert": "BertNormalizer"},
            tuple(m for m in _NORMALIZERS if m is not Precompiled),
        )
    ),
]

NormalizerSequence.model_rebuild()
_SECTION = _Section(Normalizer, _NORMALIZERS)


def parse_normalizer(obj: Any, path: str = "normalizer") -> Optional[Normalizer]:
    """Load the ``normalizer`` section (already ``json.loads``-ed); null means none."""
    return _parse(_SECTION, _tagged_section(obj), path)
