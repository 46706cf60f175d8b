"""The ``model`` section -> its explain() line, and the model's part of the native encoder's
configuration: BPE's vocabulary, merges and options, or a built WordPiece / WordLevel /
Unigram (``_core.PieceModel``)."""

from __future__ import annotations

from tagpipe import _core, spec
from tagpipe.plan.steps import Plan


def plan_model(model: spec.Model, byte_level: bool, cache_bytes: int, plan: Plan) -> None:
    """The explain() line of the model: native, or delegated and why.  `byte_level`: the
    pre-tokenizer hands the model ByteLevel pieces."""
    cache = f"word cache {cache_bytes >> 20} MiB"
    if not isinstance(model, spec.BPE) and byte_level:
        # (the native ByteLevel pre-tokenizer hands raw bytes to BPE, which maps them itself)
        plan.add("model", model.type, False, "a ByteLevel pre-tokenizer before a non-BPE model is not native")
    elif isinstance(model, spec.BPE):
        if model.dropout:
            plan.add("model", "BPE", False, "dropout is random: delegated")
        elif model.unk_token is not None and model.unk_token not in model.vocab:
            plan.add(
                "model",
                "BPE",
                False,
                "unk_token is not in the vocabulary (the oracle fails on the first unknown character)",
            )
        else:
            plan.add("model", f"BPE({len(model.vocab)} tokens, {len(model.merges)} merges)", True, "native, " + cache)
    elif isinstance(model, spec.WordPiece):
        plan.add(
            "model",
            f"WordPiece({len(model.vocab)} tokens, prefix {model.continuing_subword_prefix!r}, "
            f"max {model.max_input_chars_per_word} chars)",
            True,
            "greedy longest match on a byte trie, " + cache + _unk_note(model),
        )
    elif isinstance(model, spec.WordLevel):
        plan.add(
            "model", f"WordLevel({len(model.vocab)} tokens)", True, "vocabulary lookup, " + cache + _unk_note(model)
        )
    else:
        extra = ", byte_fallback" if model.byte_fallback else ""
        plan.add(
            "model",
            f"Unigram({len(model.vocab)} pieces, unk_id {model.unk_id}{extra})",
            True,
            "Viterbi on a byte trie (the oracle's encode_optimized), " + cache,
        )


def _unk_note(model: spec.WordPiece | spec.WordLevel) -> str:
    if model.unk_token in model.vocab:
        return ""
    return (
        f"; unk_token {model.unk_token!r} is not in the vocabulary: a text with an unknown piece "
        "is delegated, and the oracle raises"
    )


def configure_model(model: spec.Model, config: _core.EncoderConfig) -> None:
    """Puts the (native) model into the encoder's configuration.  The vocabularies are the
    file's, as the oracle encodes with them (every token, with its id, duplicate ids too)."""
    if isinstance(model, spec.BPE):
        unk = model.unk_token
        config.set_vocab(model.vocab)
        config.set_merges(model.merge_ids)
        config.bpe = _core.BpeOptions(
            unk_id=None if unk is None else model.vocab[unk],
            fuse_unk=model.fuse_unk,
            byte_fallback=model.byte_fallback,
            ignore_merges=model.ignore_merges,
            prefix=model.continuing_subword_prefix or "",
            suffix=model.end_of_word_suffix or "",
        )
    elif isinstance(model, spec.WordPiece):
        options = _core.WordPieceOptions(
            unk_id=model.vocab.get(model.unk_token),
            prefix=model.continuing_subword_prefix,
            max_chars=model.max_input_chars_per_word,
        )
        config.piece_model = _core.WordPiece(model.vocab, options)
    elif isinstance(model, spec.WordLevel):
        config.piece_model = _core.WordLevel(model.vocab, model.vocab.get(model.unk_token))
    else:
        config.piece_model = _core.Unigram(model.vocab, model.unk_id, model.byte_fallback)


def id_bound(model: spec.Model, added: tuple[spec.AddedToken, ...]) -> int:
    """One more than the largest id the tokenizer can produce (model vocabulary and added
    tokens): what `tokenizers`' get_vocab_size(with_added_tokens=True) is for dense vocabularies."""
    top = len(model.vocab) - 1 if isinstance(model, spec.Unigram) else max(model.vocab.values(), default=-1)
    return max([top] + [t.id for t in added]) + 1
