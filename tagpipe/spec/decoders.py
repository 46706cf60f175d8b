"""The ``decoder`` section (the oracle's ``DecoderWrapper``): tagged like the pre-tokenizers,
then untagged in the order BPEDecoder, ByteLevel, WordPiece, Metaspace, CTC, Sequence, Replace,
Fuse, Strip, ByteFallback."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, List, Literal, Optional, Union

from pydantic import BeforeValidator, Field, StrictBool, StrictStr

from tagpipe.spec._base import Char, USize, _Model, _Unit
from tagpipe.spec._read import _parse, _resolver, _Section, _tag, _tagged_section
from tagpipe.spec.normalizers import Replace
from tagpipe.spec.pre_tokenizers import ByteLevelPreTokenizer, Metaspace


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


_DECODERS = (
    BPEDecoder,
    ByteLevelPreTokenizer,
    WordPieceDecoder,
    Metaspace,
    CTC,
    DecoderSequence,
    Replace,
    Fuse,
    StripDecoder,
    ByteFallback,
)

#: Any decoder: tagged by ``"type"``, else untagged in the oracle's order.
Decoder = Annotated[
    Union[_DECODERS],
    Field(discriminator="type"),
    BeforeValidator(_resolver("decoder", {_tag(m): _tag(m) for m in _DECODERS}, _DECODERS)),
]

DecoderSequence.model_rebuild()
_SECTION = _Section(Decoder, _DECODERS)


def parse_decoder(obj: Any, path: str = "decoder") -> Optional[Decoder]:
    """Load the ``decoder`` section; null means none."""
    return _parse(_SECTION, _tagged_section(obj), path)
