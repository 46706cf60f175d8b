"""The ``decoder`` section -> the native decode (``_core.DecoderConfig``: the decoders, a
Sequence flattened, and every token by id) or its delegation, with the reason: the
"decoder" line of explain().

The tokens a decode reads are the oracle's: the model's id -> token map, with the added
tokens over it -- each in the form the oracle decodes it, its content or, for a
``normalized`` token, the normalizer's output on it.  ``skip_special_tokens`` drops a token
whose string is a special added token's content.  The decoder is planned apart from the
encoding stages: a tokenizer whose encoding is delegated may still decode natively, and
the other way round."""

from __future__ import annotations

from typing import Callable, Optional

from tagpipe import _core, spec
from tagpipe.plan.steps import Step

Kind = _core.DecoderStep.Kind


class _Delegated(Exception):
    """A decoder that is not native: the JSON path and why."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")


def _byte_level(node, path):
    return _core.DecoderStep(kind=Kind.ByteLevel), "ByteLevel"


def _metaspace(node: spec.Metaspace, path):
    step = _core.DecoderStep(
        kind=Kind.Metaspace, replacement=node.replacement, prepended=node.prepend_scheme != "never"
    )
    return step, f"Metaspace({node.replacement!r}, {node.prepend_scheme})"


def _wordpiece(node: spec.WordPieceDecoder, path):
    step = _core.DecoderStep(kind=Kind.WordPiece, prefix=node.prefix, cleanup=node.cleanup)
    return step, f"WordPiece({node.prefix!r}{', cleanup' if node.cleanup else ''})"


def _bpe(node: spec.BPEDecoder, path):
    return _core.DecoderStep(kind=Kind.BPEDecoder, suffix=node.suffix), f"BPEDecoder({node.suffix!r})"


def _ctc(node: spec.CTC, path):
    step = _core.DecoderStep(
        kind=Kind.CTC, pad_token=node.pad_token, word_delimiter_token=node.word_delimiter_token, cleanup=node.cleanup
    )
    return step, f"CTC({node.pad_token!r}, {node.word_delimiter_token!r})"


def _replace(node: spec.Replace, path):
    if node.pattern.kind != "String":
        raise _Delegated(path, f"Replace with a regex ({node.pattern.value!r}) is not native")
    step = _core.DecoderStep(kind=Kind.Replace, pattern=node.pattern.value, content=node.content)
    return step, f"Replace({node.pattern.value!r} -> {node.content!r})"


def _strip(node: spec.StripDecoder, path):
    step = _core.DecoderStep(kind=Kind.Strip, content=node.content, start=node.start, stop=node.stop)
    return step, f"Strip({node.content!r}, {node.start}, {node.stop})"


_HANDLERS: dict[type, Callable] = {
    spec.ByteLevelPreTokenizer: _byte_level,
    spec.Metaspace: _metaspace,
    spec.WordPieceDecoder: _wordpiece,
    spec.BPEDecoder: _bpe,
    spec.CTC: _ctc,
    spec.Replace: _replace,
    spec.StripDecoder: _strip,
    spec.Fuse: lambda node, path: (_core.DecoderStep(kind=Kind.Fuse), "Fuse"),
    spec.ByteFallback: lambda node, path: (_core.DecoderStep(kind=Kind.ByteFallback), "ByteFallback"),
}


def _flatten(node, path: str, steps: list, names: list) -> None:
    if isinstance(node, spec.DecoderSequence):
        for i, child in enumerate(node.decoders):
            _flatten(child, f"{path}.decoders[{i}]", steps, names)
        return
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise _Delegated(path, f"no native {node.type} decoder")
    step, name = handler(node, path)
    steps.append(step)
    names.append(name)


def _model_tokens(model: spec.Model, added: tuple[spec.AddedToken, ...], config: _core.DecoderConfig) -> None:
    """The model's tokens into `config`; _Delegated when the oracle's id -> token map is not
    one string per id."""
    if isinstance(model, spec.Unigram):
        config.set_pieces([piece for piece, _ in model.vocab])
        return
    vocab = model.vocab
    if len(set(vocab.values())) != len(vocab):
        seen: dict[int, str] = {}
        over = {t.id for t in added}
        for token, i in vocab.items():
            if i in seen and i not in over:
                raise _Delegated(
                    "model.vocab",
                    f"{seen[i]!r} and {token!r} share id {i}: the oracle decodes it as either, picked per load",
                )
            seen[i] = token
    config.set_vocab(vocab)


def _added_tokens(
    added: tuple[spec.AddedToken, ...], has_normalizer: bool, normalizer: Optional[list[_core.NormalizerStep]]
) -> list[_core.AddedToken]:
    """Each added token in the form the oracle decodes (a normalized one: the normalizer's
    output on its content); `normalizer` None: the normalizer is not native."""
    out = []
    for i, token in enumerate(added):
        text = token.content
        if token.normalized and has_normalizer:
            form = None if normalizer is None else _core.normalize(normalizer, text)
            if form is None:
                raise _Delegated(
                    f"added_tokens[{i}]", f"{text!r} decodes as its normalized form, which tagpipe does not compute"
                )
            text = form
        out.append(_core.AddedToken(text=text, id=token.id))
    return out


def plan_decoder(
    loaded: spec.TokenizerSpec, normalizer: Optional[list[_core.NormalizerStep]], id_bound: int
) -> tuple[Step, Optional[_core.DecoderConfig]]:
    """The explain() line of the decode, and the native decoder's configuration (None: the
    decode is delegated).  `normalizer`: the native normalizer steps, None when the
    normalizer is not native; `id_bound`: one more than the largest id."""
    steps: list[_core.DecoderStep] = []
    names: list[str] = []
    try:
        if loaded.decoder is not None:
            _flatten(loaded.decoder, "decoder", steps, names)
        config = _core.DecoderConfig(steps=steps, join_with_space=loaded.decoder is None)
        count = len(loaded.model.vocab) + len(loaded.added_tokens)
        if id_bound > 4 * count + (1 << 20):
            raise _Delegated("model.vocab", f"ids up to {id_bound - 1} for {count} tokens: too sparse for a table")
        _model_tokens(loaded.model, loaded.added_tokens, config)
        config.added_tokens = _added_tokens(loaded.added_tokens, loaded.normalizer is not None, normalizer)
        config.special = [t.content for t in loaded.added_tokens if t.special]
    except _Delegated as e:
        return Step("decoder", loaded.decoder.type if loaded.decoder is not None else "none", False, str(e)), None
    if loaded.decoder is None:
        return Step("decoder", "none", True, "the tokens joined by spaces (cpp/decode/)"), config
    return (
        Step(
            "decoder",
            " + ".join(names) or "Sequence[]",
            True,
            "cpp/decode/; the leading per-token decoders run once per vocabulary entry",
        ),
        config,
    )
