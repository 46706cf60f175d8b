# Stubs for the extension module tagpipe._core (cpp/bindings/), checked against the built
# module by tests/test_core_stubs.py (mypy's stubtest).
from typing import Any, ClassVar, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from tagpipe._core import testing as testing

_Bytes = Union[str, bytes, bytearray, memoryview]

class _pybind11_type(type):
    """The metaclass of every class bound by pybind11 (pybind11_builtins.pybind11_type)."""

# -- the tag stream and the kernels ----------------------------------------------------------

def classify(
    data: _Bytes, alphabet: str, kernel: Optional[str] = None
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint64]]: ...
def alphabets() -> dict[str, tuple[list[str], int]]: ...
def tag_of(alphabet: str, cp: int) -> int: ...
def kernels_compiled() -> list[str]: ...
def kernels_available() -> list[str]: ...
def active_kernel() -> str: ...
def set_kernel(name: str) -> None: ...

# -- the plan's structs (cpp/bindings/schema.cpp) ----------------------------------------------
# Each takes its fields as keyword arguments and compares and prints by them.  A list field is
# copied in and out: assign a whole list.

class Behavior(metaclass=_pybind11_type):
    """What a Split does with the matches."""

    Removed: ClassVar[Behavior]
    Isolated: ClassVar[Behavior]
    MergedWithPrevious: ClassVar[Behavior]
    MergedWithNext: ClassVar[Behavior]
    Contiguous: ClassVar[Behavior]
    __members__: ClassVar[dict[str, Behavior]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __int__(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class PreTokenizerStage(metaclass=_pybind11_type):
    """One native pre-tokenizer stage (C++ pretok::StageSpec)."""
    class Kind(metaclass=_pybind11_type):
        Pattern: ClassVar[PreTokenizerStage.Kind]
        Literal: ClassVar[PreTokenizerStage.Kind]
        Runs: ClassVar[PreTokenizerStage.Kind]
        ByteLevel: ClassVar[PreTokenizerStage.Kind]
        Metaspace: ClassVar[PreTokenizerStage.Kind]
        FixedLength: ClassVar[PreTokenizerStage.Kind]
        Scripts: ClassVar[PreTokenizerStage.Kind]
        MetaspaceRuns: ClassVar[PreTokenizerStage.Kind]
        Regex: ClassVar[PreTokenizerStage.Kind]
        __members__: ClassVar[dict[str, PreTokenizerStage.Kind]]
        def __init__(self, value: int) -> None: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...
        def __index__(self) -> int: ...
        def __int__(self) -> int: ...
        @property
        def name(self) -> str: ...
        @property
        def value(self) -> int: ...

    class Prepend(metaclass=_pybind11_type):
        """Metaspace's prepend_scheme."""

        Always: ClassVar[PreTokenizerStage.Prepend]
        First: ClassVar[PreTokenizerStage.Prepend]
        Never: ClassVar[PreTokenizerStage.Prepend]
        __members__: ClassVar[dict[str, PreTokenizerStage.Prepend]]
        def __init__(self, value: int) -> None: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...
        def __index__(self) -> int: ...
        def __int__(self) -> int: ...
        @property
        def name(self) -> str: ...
        @property
        def value(self) -> int: ...

    kind: PreTokenizerStage.Kind
    name: str  # Pattern: the regex family; Runs: the class-run splitter
    literal: str  # Literal: the string; Metaspace: the replacement; MetaspaceRuns: the mark
    behavior: Behavior
    invert: bool
    add_prefix_space: bool
    use_regex: bool
    prepend: PreTokenizerStage.Prepend
    split: bool
    length: int
    guards: list[str]  # MetaspaceRuns: the vocabulary's crossing pieces
    program: list[int]  # Regex: the compiled program (tagpipe/plan/regex/compile.py)
    pairs: bytes  # MetaspaceRuns: empty, or 128 x 128 bytes, nonzero where a pair may be cut
    def __init__(
        self,
        *,
        kind: PreTokenizerStage.Kind = ...,
        name: str = ...,
        literal: str = ...,
        behavior: Behavior = ...,
        invert: bool = ...,
        add_prefix_space: bool = ...,
        use_regex: bool = ...,
        prepend: PreTokenizerStage.Prepend = ...,
        split: bool = ...,
        length: int = ...,
        guards: Sequence[Union[str, bytes]] = ...,
        program: Sequence[int] = ...,
        pairs: bytes = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class Decompose(metaclass=_pybind11_type):
    """The decomposition of a unicode pass."""

    None_: ClassVar[Decompose]
    Nfd: ClassVar[Decompose]
    Nfkd: ClassVar[Decompose]
    __members__: ClassVar[dict[str, Decompose]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __int__(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class CharFilter(metaclass=_pybind11_type):
    """Characters a unicode pass filters out."""

    None_: ClassVar[CharFilter]
    BertMn: ClassVar[CharFilter]
    Mark: ClassVar[CharFilter]
    __members__: ClassVar[dict[str, CharFilter]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __int__(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class UnicodeOptions(metaclass=_pybind11_type):
    """One pass of per-character rules, applied in this order (C++ normalize::UnicodeOptions)."""

    clean_text: bool
    chinese: bool
    decompose: Decompose
    drop: CharFilter
    lowercase: bool
    drop_after: CharFilter
    def __init__(
        self,
        *,
        clean_text: bool = ...,
        chinese: bool = ...,
        decompose: Decompose = ...,
        drop: CharFilter = ...,
        lowercase: bool = ...,
        drop_after: CharFilter = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class Charsmap(metaclass=_pybind11_type):
    """A decoded SentencePiece precompiled_charsmap (ValueError when malformed)."""
    def __init__(self, blob: bytes) -> None: ...

class NormalizerStep(metaclass=_pybind11_type):
    """One native normalizer step (C++ normalize::Step)."""
    class Kind(metaclass=_pybind11_type):
        Prepend: ClassVar[NormalizerStep.Kind]
        Replace: ClassVar[NormalizerStep.Kind]
        SpaceRuns: ClassVar[NormalizerStep.Kind]
        Nfc: ClassVar[NormalizerStep.Kind]
        Nfkc: ClassVar[NormalizerStep.Kind]
        Unicode: ClassVar[NormalizerStep.Kind]
        Strip: ClassVar[NormalizerStep.Kind]
        Precompiled: ClassVar[NormalizerStep.Kind]
        RegexReplace: ClassVar[NormalizerStep.Kind]
        __members__: ClassVar[dict[str, NormalizerStep.Kind]]
        def __init__(self, value: int) -> None: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...
        def __index__(self) -> int: ...
        def __int__(self) -> int: ...
        @property
        def name(self) -> str: ...
        @property
        def value(self) -> int: ...

    kind: NormalizerStep.Kind
    a: str  # Prepend: what; Replace: the pattern
    b: str  # Replace, SpaceRuns, RegexReplace: the content
    program: list[int]  # RegexReplace: the compiled program (tagpipe/plan/regex/compile.py)
    unicode: UnicodeOptions
    strip_left: bool
    strip_right: bool
    charsmap: Optional[Charsmap]
    def __init__(
        self,
        *,
        kind: NormalizerStep.Kind = ...,
        a: str = ...,
        b: str = ...,
        program: Sequence[int] = ...,
        unicode: UnicodeOptions = ...,
        strip_left: bool = ...,
        strip_right: bool = ...,
        charsmap: Optional[Charsmap] = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class AddedToken(metaclass=_pybind11_type):
    """An added token as the splitter matches it (C++ added::Token)."""

    text: str  # what is matched: the normalized form for a normalized token
    id: int
    single_word: bool
    lstrip: bool
    rstrip: bool
    def __init__(
        self, *, text: str = ..., id: int = ..., single_word: bool = ..., lstrip: bool = ..., rstrip: bool = ...
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class BpeOptions(metaclass=_pybind11_type):
    """A BPE model's options; its vocabulary and merges: EncoderConfig.set_vocab / set_merges."""

    unk_id: Optional[int]
    fuse_unk: bool
    byte_fallback: bool
    ignore_merges: bool
    prefix: str  # continuing_subword_prefix ("": none)
    suffix: str  # end_of_word_suffix ("": none)
    def __init__(
        self,
        *,
        unk_id: Optional[int] = ...,
        fuse_unk: bool = ...,
        byte_fallback: bool = ...,
        ignore_merges: bool = ...,
        prefix: str = ...,
        suffix: str = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class WordPieceOptions(metaclass=_pybind11_type):
    unk_id: Optional[int]
    prefix: str
    max_chars: int
    def __init__(self, *, unk_id: Optional[int] = ..., prefix: str = ..., max_chars: int = ...) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class PieceModel(metaclass=_pybind11_type):
    """A model other than BPE, ready to encode."""

class WordPiece(PieceModel):
    def __init__(self, vocab: dict[str, int], options: WordPieceOptions) -> None: ...

class WordLevel(PieceModel):
    def __init__(self, vocab: dict[str, int], unk_id: Optional[int]) -> None: ...

class Unigram(PieceModel):
    def __init__(self, pieces: Sequence[tuple[str, float]], unk_id: Optional[int], byte_fallback: bool) -> None: ...

class EncoderConfig(metaclass=_pybind11_type):
    """What an Encoder is built from (C++ EncoderSpec): the model is BPE (set_vocab, set_merges,
    bpe) unless piece_model is set."""

    normalizer: list[NormalizerStep]
    pre_tokenizer: list[PreTokenizerStage]
    bpe: BpeOptions
    piece_model: Optional[PieceModel]
    raw_tokens: list[AddedToken]  # normalized=false: matched on the raw text
    normalized_tokens: list[AddedToken]  # matched on each normalized gap
    prefix_ids: list[int]  # the post-processor's special tokens around one sequence
    suffix_ids: list[int]
    cache_bytes: int  # the word cache budget, all threads together
    def __init__(
        self,
        *,
        normalizer: list[NormalizerStep] = ...,
        pre_tokenizer: list[PreTokenizerStage] = ...,
        bpe: BpeOptions = ...,
        piece_model: Optional[PieceModel] = ...,
        raw_tokens: list[AddedToken] = ...,
        normalized_tokens: list[AddedToken] = ...,
        prefix_ids: list[int] = ...,
        suffix_ids: list[int] = ...,
        cache_bytes: int = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def set_vocab(self, vocab: dict[str, int]) -> None:
        """The BPE vocabulary: a dict token -> id."""
    def set_merges(self, merges: npt.ArrayLike) -> None:
        """The BPE merges in rank order: uint32[n, 3] (left, right, result) ids."""

class DecoderStep(metaclass=_pybind11_type):
    """One native decoder (decode::Step); a Sequence is flattened."""
    class Kind(metaclass=_pybind11_type):
        ByteLevel: ClassVar[DecoderStep.Kind]
        Metaspace: ClassVar[DecoderStep.Kind]
        WordPiece: ClassVar[DecoderStep.Kind]
        BPEDecoder: ClassVar[DecoderStep.Kind]
        CTC: ClassVar[DecoderStep.Kind]
        Replace: ClassVar[DecoderStep.Kind]
        Fuse: ClassVar[DecoderStep.Kind]
        Strip: ClassVar[DecoderStep.Kind]
        ByteFallback: ClassVar[DecoderStep.Kind]
        __members__: ClassVar[dict[str, DecoderStep.Kind]]
        def __init__(self, value: int) -> None: ...
        def __eq__(self, other: object) -> bool: ...
        def __hash__(self) -> int: ...
        def __index__(self) -> int: ...
        def __int__(self) -> int: ...
        @property
        def name(self) -> str: ...
        @property
        def value(self) -> int: ...

    kind: DecoderStep.Kind
    pattern: str  # Replace: the literal string
    content: str  # Replace: what replaces it; Strip: the character
    replacement: str  # Metaspace
    prepended: bool  # Metaspace: prepend_scheme is not "never"
    prefix: str  # WordPiece
    cleanup: bool  # WordPiece, CTC
    suffix: str  # BPEDecoder
    pad_token: str  # CTC
    word_delimiter_token: str  # CTC
    start: int  # Strip
    stop: int  # Strip
    def __init__(
        self,
        *,
        kind: DecoderStep.Kind = ...,
        pattern: str = ...,
        content: str = ...,
        replacement: str = ...,
        prepended: bool = ...,
        prefix: str = ...,
        cleanup: bool = ...,
        suffix: str = ...,
        pad_token: str = ...,
        word_delimiter_token: str = ...,
        start: int = ...,
        stop: int = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class DecoderConfig(metaclass=_pybind11_type):
    """What a Decoder is built from (decode::DecoderSpec): the steps, and the tokens by id."""

    steps: list[DecoderStep]
    join_with_space: bool  # no decoder section: the tokens are joined by spaces
    special: list[str]  # skip_special_tokens drops a token equal to one of these
    added_tokens: list[AddedToken]  # their decoded form, over the model's of the same id
    def __init__(
        self,
        *,
        steps: list[DecoderStep] = ...,
        join_with_space: bool = ...,
        special: list[str] = ...,
        added_tokens: list[AddedToken] = ...,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def set_vocab(self, vocab: dict[str, int]) -> None:
        """The model's tokens: a dict token -> id (BPE, WordPiece, WordLevel)."""
    def set_pieces(self, pieces: list[str]) -> None:
        """The model's tokens: a list of pieces, id = index (Unigram)."""

class DecodeNotNative(RuntimeError):
    """The oracle panics decoding these ids (args[0]): ask it, for its exception."""

class Decoder(metaclass=_pybind11_type):
    """A tokenizer's native decode (tagpipe.plan.decoders builds its DecoderConfig)."""

    def __init__(self, config: DecoderConfig) -> None:
        """The config's tables are moved into the decoder (the config is left empty)."""
    def decode(self, ids: Any, skip_special_tokens: bool) -> Optional[str]:
        """The text, or None where the oracle panics on these ids."""
    def decode_batch(self, sequences: Any, skip_special_tokens: bool, threads: int) -> list[Optional[str]]: ...
    def decode_flat(
        self, ids: Any, offsets: npt.ArrayLike, skip_special_tokens: bool, threads: int
    ) -> list[Optional[str]]: ...
    def stream(self, skip_special_tokens: bool, ids: Any = None) -> DecodeStream: ...
    @property
    def folded(self) -> int: ...
    @property
    def table_bytes(self) -> int: ...

class DecodeStream(metaclass=_pybind11_type):
    """ids -> text as they come (the oracle's DecodeStream)."""

    def step(self, id: Any) -> Optional[str]: ...
    def __copy__(self) -> DecodeStream: ...
    def __deepcopy__(self, memo: Any) -> DecodeStream: ...
    @property
    def ids(self) -> list[int]: ...
    @property
    def prefix(self) -> str: ...
    @property
    def skip_special_tokens(self) -> bool: ...

# -- running the plan ----------------------------------------------------------------------------

def normalize(steps: Sequence[NormalizerStep], text: str) -> Optional[str]:
    """Runs native normalizer steps on one string (None: not native)."""

def probe(
    normalizer: Sequence[NormalizerStep], pre_tokenizer: Sequence[PreTokenizerStage], text: str
) -> Optional[list[bytes]]:
    """The pieces the native normalizer and pre-tokenizer make of one text (None: not native)."""

class PreTokenizer(metaclass=_pybind11_type):
    def __init__(self, stages: Sequence[PreTokenizerStage], model_cuts: bool = False) -> None: ...
    def run(self, data: _Bytes) -> tuple[Optional[bytes], bool, npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
        """(content or None: the input itself, byte_mapped, pieces uint32[n, 2] into content,
        offsets uint32[n, 2] into the input's UTF-8)."""

class TokenSpans(metaclass=_pybind11_type):
    """What the spans of the word cache's ids need (encode/offsets.h): each id's bytes in a
    piece (b"": unknown), the prefix and suffix in that form, the unk id, the <0xXX> ids, the
    ids its model spans itself, and whether spans are checked byte for byte."""

    def __init__(
        self,
        strings: Sequence[bytes],
        prefix: bytes,
        suffix: bytes,
        unk_id: Optional[int],
        byte_ids: Sequence[Optional[int]],
        refused: Sequence[int],
        check_bytes: bool,
    ) -> None: ...

class Encoder(metaclass=_pybind11_type):
    def __init__(self, config: EncoderConfig) -> None:
        """Builds the encoder; the config's tables are moved into it (the config is left empty)."""
    def encode(
        self, text: _Bytes, add_special_tokens: bool, truncate: int = -1, truncate_left: bool = False
    ) -> Optional[npt.NDArray[np.uint32]]: ...
    def encode_batch(
        self, texts: list[Any], add_special_tokens: bool, threads: int, truncate: int = -1, truncate_left: bool = False
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
    def encode_spans(
        self,
        data: Any,
        starts: npt.NDArray[np.int64],
        ends: npt.NDArray[np.int64],
        add_special_tokens: bool,
        threads: int,
        truncate: int = -1,
        truncate_left: bool = False,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
    def encode_offsets(
        self, texts: list[Any], token_spans: Optional[TokenSpans], threads: int
    ) -> tuple[
        npt.NDArray[np.uint32],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
    ]:
        """(ids, offsets, spans uint32[N, 2]: each token's characters, added: an added token's
        match, delegate) without special tokens, truncation or padding."""
    def clear_cache(self) -> None: ...
    def cut_rule(self) -> Optional[str]: ...
    def cut_exception(self) -> str: ...
    @property
    def seed_size(self) -> int: ...
    def profile(self, texts: list[Any], add_special_tokens: bool) -> dict[str, int]: ...
    @property
    def cache_used(self) -> int: ...
    @property
    def cache_bytes(self) -> int: ...
