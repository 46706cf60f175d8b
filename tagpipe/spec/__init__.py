"""Typed loader for tokenizer.json: the parsed file, and nothing else.

The oracle (Hugging Face ``tokenizers`` 0.23, Rust + serde) decides what a file means.  These
pydantic models accept exactly the JSON it accepts, reject exactly what it rejects, and hold the
result with every field explicit: defaults filled in, legacy spellings resolved.  ``to_json()``
gives back the canonical dict, i.e. what the oracle itself would write.  Anything refused raises
:class:`TokenizerJsonError`, whose ``path`` names the JSON path (``normalizer.normalizers[0]``).

One module per section, as in ``tokenizers`` (each says how the oracle reads its section):

    normalizers      the ``normalizer`` section           parse_normalizer
    pre_tokenizers   the ``pre_tokenizer`` section        parse_pre_tokenizer
    models           the ``model`` section                parse_model
    added_tokens     the ``added_tokens`` section         parse_added_tokens
    post_processors  the ``post_processor`` section       parse_post_processor
    decoders         the ``decoder`` section              parse_decoder
    document         truncation, padding, the whole file  parse_tokenizer, load_tokenizer_json

They share ``_base`` (the base model, field types, errors), ``_read`` (the oracle's
tagged-then-untagged read, the JSON value checks, pydantic errors as JSON paths) and
``_json_text`` (the file's text read as serde_json reads it).  Nothing here imports the rest of
tagpipe: the planner (``tagpipe.plan``) consumes these models.
"""

from tagpipe.spec._base import BEHAVIORS, PREPEND_SCHEMES, Pattern, Repeated, TokenizerJsonError
from tagpipe.spec._json_text import MAX_DEPTH
from tagpipe.spec.added_tokens import AddedToken, parse_added_tokens
from tagpipe.spec.decoders import (
    CTC,
    BPEDecoder,
    ByteFallback,
    Decoder,
    DecoderSequence,
    Fuse,
    StripDecoder,
    WordPieceDecoder,
    parse_decoder,
)
from tagpipe.spec.document import FixedPadding, Padding, TokenizerSpec, Truncation, load_tokenizer_json, parse_tokenizer
from tagpipe.spec.models import BPE, Model, Unigram, WordLevel, WordPiece, parse_model
from tagpipe.spec.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    ByteLevelNormalizer,
    Lowercase,
    Nmt,
    Normalizer,
    NormalizerSequence,
    Precompiled,
    Prepend,
    Replace,
    Strip,
    StripAccents,
    parse_normalizer,
)
from tagpipe.spec.post_processors import (
    BertProcessing,
    Piece,
    PostProcessor,
    ProcessorSequence,
    RobertaProcessing,
    SpecialToken,
    TemplateProcessing,
    parse_post_processor,
)
from tagpipe.spec.pre_tokenizers import (
    BertPreTokenizer,
    ByteLevelPreTokenizer,
    CharDelimiterSplit,
    Digits,
    FixedLength,
    Metaspace,
    PreTokenizer,
    PreTokenizerSequence,
    Punctuation,
    Split,
    UnicodeScripts,
    Whitespace,
    WhitespaceSplit,
    parse_pre_tokenizer,
)

__all__ = [
    # errors and the whole file
    "TokenizerJsonError",
    "load_tokenizer_json",
    "parse_tokenizer",
    "TokenizerSpec",
    "MAX_DEPTH",
    "Repeated",
    "Truncation",
    "Padding",
    "FixedPadding",
    # sections
    "parse_normalizer",
    "Normalizer",
    "BertNormalizer",
    "Strip",
    "StripAccents",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "NormalizerSequence",
    "Lowercase",
    "Nmt",
    "Precompiled",
    "Replace",
    "Prepend",
    "ByteLevelNormalizer",
    "parse_pre_tokenizer",
    "PreTokenizer",
    "Pattern",
    "BEHAVIORS",
    "PREPEND_SCHEMES",
    "BertPreTokenizer",
    "ByteLevelPreTokenizer",
    "CharDelimiterSplit",
    "Metaspace",
    "Whitespace",
    "PreTokenizerSequence",
    "Split",
    "Punctuation",
    "WhitespaceSplit",
    "Digits",
    "UnicodeScripts",
    "FixedLength",
    "parse_model",
    "Model",
    "BPE",
    "WordPiece",
    "WordLevel",
    "Unigram",
    "parse_added_tokens",
    "AddedToken",
    "parse_post_processor",
    "PostProcessor",
    "TemplateProcessing",
    "Piece",
    "SpecialToken",
    "BertProcessing",
    "RobertaProcessing",
    "ProcessorSequence",
    "parse_decoder",
    "Decoder",
    "BPEDecoder",
    "WordPieceDecoder",
    "CTC",
    "DecoderSequence",
    "Fuse",
    "StripDecoder",
    "ByteFallback",
]
