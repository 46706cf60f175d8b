"""`tagpipe.accelerate(tok)`: a transformers fast tokenizer whose encode path runs on tagpipe.

    tok = transformers.AutoTokenizer.from_pretrained(...)
    tagpipe.accelerate(tok)                 # in place; returns tok
    tok(texts, padding=True, truncation=True, max_length=512, return_tensors="np")
    tok.tagpipe_last_path                   # "tagpipe", or "original: <why>"

Every encode of transformers 5 goes through the tokenizer's ``_encode_plus``; the accelerated
one computes ``input_ids`` with tagpipe (from the tokenizer's own backend, as it is when
``accelerate`` is called) and does truncation and padding the way the backend would:
truncation cuts the text's ids to ``max_length`` minus the special tokens the post-processor
adds, on ``truncation_side``, before they are added; padding, attention masks and tensors come
from the tokenizer's own ``pad``.  Everything else goes to the original backend, unchanged:
sequence pairs, pre-split words, offsets, overflowing tokens, special-tokens masks, lengths,
token type ids (when the model uses them), ``split_special_tokens``, ``only_second``
truncation and any other option.  Results served by tagpipe carry no ``.encodings``.

The tokenizer is read once: after changing it (adding tokens, ``add_bos_token``, ...) call
``accelerate`` again; until then a changed vocabulary size sends calls to the original path.
"""

from __future__ import annotations

import json
from typing import Any

from tagpipe.tokenizer import Tokenizer

_SERVED_TRUNCATION = ("do_not_truncate", "longest_first", "only_first")


def _value(x: Any) -> Any:
    return getattr(x, "value", x)  # transformers' ExplicitEnum -> its string


class _Accelerated:
    """The state accelerate() attaches to a tokenizer, and its _encode_plus."""

    def __init__(self, hf: Any):
        backend = hf.backend_tokenizer
        doc = json.loads(backend.to_str())
        doc["truncation"] = doc["padding"] = None  # (transformers sets them per call; done here)
        self.tok = Tokenizer.from_str(json.dumps(doc))
        self.hf = hf
        self.original = hf._encode_plus
        self.vocab_size = backend.get_vocab_size(with_added_tokens=True)
        self.prefix, self.suffix = self.tok._special_ids
        self.stats = {"tagpipe": 0, "original": 0}

    def why_not(
        self,
        text,
        text_pair,
        is_split_into_words,
        truncation_strategy,
        max_length,
        return_token_type_ids,
        return_overflowing_tokens,
        return_special_tokens_mask,
        return_offsets_mapping,
        return_length,
        split_special_tokens,
        kwargs,
    ) -> str:
        """Why a call goes to the original backend ("" when tagpipe serves it)."""
        hf = self.hf
        if not self.tok.native:
            return "tagpipe delegates this tokenizer: " + "; ".join(self.tok.plan.reasons())
        if hf.backend_tokenizer.get_vocab_size(with_added_tokens=True) != self.vocab_size:
            return "the tokenizer changed since accelerate() (call it again)"
        if text_pair is not None:
            return "sequence pairs"
        if is_split_into_words:
            return "is_split_into_words"
        if not (isinstance(text, str) or (isinstance(text, (list, tuple)) and all(isinstance(t, str) for t in text))):
            return "input that is not a str or a list of str"
        if return_overflowing_tokens or return_special_tokens_mask or return_offsets_mapping or return_length:
            return "overflowing tokens, special tokens masks, offsets or lengths"
        if return_token_type_ids or (return_token_type_ids is None and "token_type_ids" in hf.model_input_names):
            return "token type ids"
        if split_special_tokens if split_special_tokens is not None else hf.split_special_tokens:
            return "split_special_tokens"
        if _value(truncation_strategy) not in _SERVED_TRUNCATION:
            return f"truncation {_value(truncation_strategy)!r}"
        if kwargs:
            return "options " + ", ".join(sorted(kwargs))
        return ""

    def encode_plus(
        self,
        text,
        text_pair=None,
        add_special_tokens=True,
        padding_strategy=None,
        truncation_strategy=None,
        max_length=None,
        stride=0,
        is_split_into_words=False,
        pad_to_multiple_of=None,
        padding_side=None,
        return_tensors=None,
        return_token_type_ids=None,
        return_attention_mask=None,
        return_overflowing_tokens=False,
        return_special_tokens_mask=False,
        return_offsets_mapping=False,
        return_length=False,
        verbose=True,
        split_special_tokens=None,
        **kwargs,
    ):
        hf = self.hf
        why = self.why_not(
            text,
            text_pair,
            is_split_into_words,
            truncation_strategy or "do_not_truncate",
            max_length,
            return_token_type_ids,
            return_overflowing_tokens,
            return_special_tokens_mask,
            return_offsets_mapping,
            return_length,
            split_special_tokens,
            kwargs,
        )
        added = len(self.prefix) + len(self.suffix) if add_special_tokens else 0
        truncate = _value(truncation_strategy) not in (None, "do_not_truncate") and max_length is not None
        if not why and truncate and max_length < added:
            why = "max_length shorter than the special tokens (the backend's error)"
        if why:
            self.stats["original"] += 1
            hf.tagpipe_last_path = "original: " + why
            return self.original(
                text,
                text_pair=text_pair,
                add_special_tokens=add_special_tokens,
                padding_strategy=padding_strategy,
                truncation_strategy=truncation_strategy,
                max_length=max_length,
                stride=stride,
                is_split_into_words=is_split_into_words,
                pad_to_multiple_of=pad_to_multiple_of,
                padding_side=padding_side,
                return_tensors=return_tensors,
                return_token_type_ids=return_token_type_ids,
                return_attention_mask=return_attention_mask,
                return_overflowing_tokens=return_overflowing_tokens,
                return_special_tokens_mask=return_special_tokens_mask,
                return_offsets_mapping=return_offsets_mapping,
                return_length=return_length,
                verbose=verbose,
                split_special_tokens=split_special_tokens,
                **kwargs,
            )
        batched = not isinstance(text, str)
        texts = list(text) if batched else [text]
        ids, offsets = self.tok.encode_batch_flat(texts, add_special_tokens=False)
        flat = ids.tolist()
        seqs = []
        for i in range(len(texts)):
            body = flat[offsets[i] : offsets[i + 1]]
            if truncate and len(body) > max_length - added:
                keep = max_length - added
                body = body[:keep] if hf.truncation_side == "right" else body[len(body) - keep :]
            seqs.append(self.prefix + body + self.suffix if add_special_tokens else body)
        for s in seqs:
            hf._eventual_warn_about_too_long_sequence(s, max_length, verbose)
        self.stats["tagpipe"] += 1
        hf.tagpipe_last_path = "tagpipe"
        out = hf.pad(
            {"input_ids": seqs},
            padding=padding_strategy,
            max_length=max_length,
            pad_to_multiple_of=pad_to_multiple_of,
            padding_side=padding_side,
            return_attention_mask=return_attention_mask,
            return_tensors=return_tensors,
        )
        if not batched and return_tensors is None:  # one text: no batch dimension (as the backend)
            out = type(out)({key: value[0] for key, value in out.items()})
        return out


def accelerate(tokenizer: Any) -> Any:
    """Make a transformers fast tokenizer encode with tagpipe where tagpipe is exact (see the
    module docstring); returns the same object.  ``tokenizer.tagpipe_last_path`` says which
    path the last call took, ``tokenizer.tagpipe_stats`` counts both."""
    if not hasattr(tokenizer, "backend_tokenizer") or not hasattr(tokenizer, "_encode_plus"):
        raise TypeError(f"accelerate expects a transformers fast tokenizer, got {type(tokenizer).__name__}")
    if hasattr(type(tokenizer), "_batch_encode_plus"):  # transformers 4: batches bypass _encode_plus
        raise TypeError('accelerate needs transformers 5 or later (pip install "tagpipe[transformers]")')
    previous = getattr(tokenizer, "_tagpipe", None)
    if previous is not None:  # again: rebuild from the tokenizer as it is now
        del tokenizer._encode_plus
    state = _Accelerated(tokenizer)
    tokenizer._tagpipe = state
    tokenizer._encode_plus = state.encode_plus
    tokenizer.tagpipe_stats = state.stats
    tokenizer.tagpipe_last_path = None
    return tokenizer
