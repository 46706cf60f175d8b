"""Offsets -- each token's characters in its text, as tokenizers' ``Encoding.offsets`` -- for
one tokenizer: native or delegated (and why), and what its post-processor does to them.

The native encoder computes them with the ids (cpp/encode/offsets.h; docs/design/offsets.md)
for every native stage: the normalizers and pre-tokenizers keep the oracle's alignments, the
models span their own tokens, and BPE's spans are proven against each piece's bytes (a text
where they cannot be is delegated to tokenizers, whole).  Delegated for the whole tokenizer:

* BPE with a ``continuing_subword_prefix`` or ``end_of_word_suffix`` on ByteLevel pieces;
* a vocabulary whose ids are far sparser than its tokens (the tables are dense, per id);
* ``trim_offsets`` (ByteLevel, RobertaProcessing) on a model that is not ByteLevel BPE, or on
  normalized added tokens under a normalizer that may change the text (the trim reads the
  normalized text; NFC and NFKC run natively only where they change nothing), or in more than
  one post-processor of a Sequence.

The trim (``process_offsets`` of tokenizers' byte_level.rs) moves a token's start past its
leading spaces (``Ġ`` or whitespace characters of the token's string: a model token's
vocabulary string, an added token's matched text) and its end before the trailing ones --
keeping one leading space of a window's first token (or of one at 0) when the processor's
``add_prefix_space`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from tagpipe import spec


@dataclass(frozen=True)
class OffsetsPlan:
    why: str = ""  # "" when the offsets are native
    trim: bool = False  # the post-processor trims the offsets (trim_offsets)
    trim_prefix_space: bool = False  # ... with add_prefix_space


def _trimmers(node: Optional[spec.PostProcessor]) -> list:
    if isinstance(node, (spec.ByteLevelPreTokenizer, spec.RobertaProcessing)):
        return [node] if node.trim_offsets else []
    if isinstance(node, spec.ProcessorSequence):
        return [t for child in node.processors for t in _trimmers(child)]
    return []


def _rewrites(node: Optional[spec.Normalizer]) -> bool:
    """Whether the native normalizer may change a text it runs on (NFC and NFKC run natively
    only on the texts they leave as they are: the others are delegated)."""
    if isinstance(node, spec.NormalizerSequence):
        return any(_rewrites(child) for child in node.normalizers)
    return node is not None and not isinstance(node, (spec.NFC, spec.NFKC))


def plan_offsets(loaded: spec.TokenizerSpec, byte_level: bool) -> OffsetsPlan:
    """Whether the offsets of this (native) tokenizer are native; `byte_level`: the
    pre-tokenizer hands the model ByteLevel pieces."""
    model = loaded.model
    top = len(model.vocab) if isinstance(model, spec.Unigram) else max(model.vocab.values(), default=-1) + 1
    if top > 4 * len(model.vocab) + (1 << 20):  # (the spans' tables are dense, per id)
        return OffsetsPlan(f"model.vocab: ids up to {top - 1} for {len(model.vocab)} tokens: too sparse for a table")
    bpe = isinstance(model, spec.BPE)
    if bpe and byte_level and (model.continuing_subword_prefix or model.end_of_word_suffix):
        return OffsetsPlan("model: BPE's continuing_subword_prefix or end_of_word_suffix on ByteLevel pieces")
    trimmers = _trimmers(loaded.post_processor)
    if not trimmers:
        return OffsetsPlan()
    if len(trimmers) > 1:
        return OffsetsPlan("post_processor: trim_offsets in more than one post-processor")
    if not (bpe and byte_level):
        return OffsetsPlan("post_processor: trim_offsets on tokens that are not ByteLevel BPE's")
    if _rewrites(loaded.normalizer) and any(t.normalized for t in loaded.added_tokens):
        return OffsetsPlan("post_processor: trim_offsets on normalized added tokens (it reads the normalized text)")
    return OffsetsPlan(trim=True, trim_prefix_space=trimmers[0].add_prefix_space)
