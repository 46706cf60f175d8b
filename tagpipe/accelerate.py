"""`tagpipe.accelerate(tok)`: a transformers fast tokenizer whose encode path runs on tagpipe.

    tok = transformers.AutoTokenizer.from_pretrained(...)
    tagpipe.accelerate(tok)                 # in place; returns tok
    tok(texts, padding=True, truncation=True, max_length=512, return_tensors="np")
    tok.tagpipe_last_path                   # "tagpipe", or "original: <why>"

Every encode of transformers 5 goes through the tokenizer's ``_encode_plus``; the accelerated
one encodes each text (and each pair's second text) with tagpipe, without special tokens -- the
tokenizer's own backend as it is when ``accelerate`` is called -- and then does what the backend
does around them (tagpipe.plan.pairs, with numpy): the truncation transformers asks for
(``longest_first``, ``only_first``, ``only_second``, either ``truncation_side``), the
post-processor's single or pair form with its type ids and special-tokens mask, and the padding
(``pad_token_type_id`` included).  Served: sequence pairs, ``token_type_ids``, attention masks,
``return_special_tokens_mask``, ``return_length``, ``return_offsets_mapping`` (where the offsets
are native: ``Tokenizer.explain_offsets()``), ``return_overflowing_tokens`` with ``stride``,
tensors.  Everything else goes to the original backend, unchanged, and ``tagpipe_last_path``
names the argument: pre-split words, ``split_special_tokens``, a post-processor whose pair form
is not native, offsets that are not native, a truncation that is the backend's error (it
raises it), any other option.  Results served by tagpipe carry no ``.encodings``.

The tokenizer is read once: after changing it (adding tokens, ``add_bos_token``, ...) call
``accelerate`` again; until then a changed vocabulary size sends calls to the original path.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tagpipe.plan.pairs import SPECIAL, A, Layout
from tagpipe.plan.post_processors import PostProcess
from tagpipe.plan.rows import post_process
from tagpipe.tokenizer import Tokenizer

_SERVED_TRUNCATION = ("do_not_truncate", "longest_first", "only_first", "only_second")


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
        self.stats = {"tagpipe": 0, "original": 0}
        self.layout = self.tok.plan.layout
        if self.layout is None:  # (the single form's ids are known; why_not keeps its type ids away)
            prefix, suffix = self.tok.special_ids
            single = ((SPECIAL, tuple(prefix), 0), (A, (), 0), (SPECIAL, tuple(suffix), 0))
            self.layout = Layout(single, ((A, (), 0),), None, None)

    def why_not(self, text, text_pair, is_split_into_words, truncation_strategy, options, kwargs) -> str:
        """Why a call goes to the original backend ("" when tagpipe serves it)."""
        hf = self.hf
        if not self.tok.native:
            return "tagpipe delegates this tokenizer: " + "; ".join(self.tok.plan.reasons())
        if hf.backend_tokenizer.get_vocab_size(with_added_tokens=True) != self.vocab_size:
            return "the tokenizer changed since accelerate() (call it again)"
        if is_split_into_words:
            return "is_split_into_words"
        if not _texts(text) or (text_pair is not None and not _texts(text_pair)):
            return "input that is not a str or a list of str"
        if isinstance(text, str) != isinstance(text_pair, str) and text_pair is not None:
            return "a text and a pair that are not both str or both lists (the backend's error)"
        if not isinstance(text, str) and not text:
            return "an empty batch (the backend's error)"
        if text_pair is not None and not isinstance(text, str) and len(text) != len(text_pair):
            return "texts and pairs of different lengths (the backend's error)"
        is_pair = _is_pair(text, text_pair)
        if options["return_offsets_mapping"]:
            why = self.tok.explain_offsets() or ("" if self.tok.plan.layout else "the post-processor's layout")
            if why:
                return "return_offsets_mapping: " + why
        if options["return_overflowing_tokens"]:
            layout = self.tok.plan.layout
            why = layout.windows_why(is_pair) if layout else "the post-processor's layout"
            if why:
                return "return_overflowing_tokens: " + why
        if options["split_special_tokens"]:
            return "split_special_tokens"
        if _value(truncation_strategy) not in _SERVED_TRUNCATION:
            return f"truncation {_value(truncation_strategy)!r}"
        if kwargs:
            return "options " + ", ".join(sorted(kwargs))
        why = self.tok.explain_pairs(is_pair)
        if why and (text_pair is not None or options["return_token_type_ids"] or options["return_special_tokens_mask"]):
            return "the post-processor's pair form or type ids: " + why
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
        options = {
            "return_token_type_ids": return_token_type_ids
            if return_token_type_ids is not None
            else "token_type_ids" in hf.model_input_names,
            "return_attention_mask": return_attention_mask
            if return_attention_mask is not None
            else "attention_mask" in hf.model_input_names,
            "return_special_tokens_mask": return_special_tokens_mask,
            "return_length": return_length,
            "return_overflowing_tokens": return_overflowing_tokens,
            "return_offsets_mapping": return_offsets_mapping,
            "split_special_tokens": split_special_tokens
            if split_special_tokens is not None
            else hf.split_special_tokens,
        }
        strategy = _value(truncation_strategy or "do_not_truncate")
        why = self.why_not(text, text_pair, is_split_into_words, strategy, options, kwargs)
        if padding_strategy is None:  # (transformers' __call__ always passes it)
            why = "a direct _encode_plus call, as tokenize() makes (it reads the backend's .encodings)"
        out = None
        if not why:
            out, why = self.serve(
                text, text_pair, add_special_tokens, _value(padding_strategy or "do_not_pad"), strategy, max_length,
                stride, pad_to_multiple_of, padding_side, return_tensors, verbose, options,
            )  # fmt: skip
        if why:
            self.stats["original"] += 1
            hf.tagpipe_last_path = "original: " + why
            strategies = {"padding_strategy": padding_strategy, "truncation_strategy": truncation_strategy}
            return self.original(
                text,
                text_pair=text_pair,
                add_special_tokens=add_special_tokens,
                **{k: v for k, v in strategies.items() if v is not None},  # (None: the original's default)
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
        self.stats["tagpipe"] += 1
        hf.tagpipe_last_path = "tagpipe"
        return out

    def params(self, padding, truncation, max_length, stride, pad_to_multiple_of, padding_side) -> PostProcess:
        """The backend's truncation and padding for this call (set_truncation_and_padding)."""
        hf = self.hf
        kw: dict = {}
        if truncation != "do_not_truncate":
            kw.update(
                max_length=max_length,
                stride=stride,
                only_first=truncation == "only_first",
                only_second=truncation == "only_second",
                cut_left=hf.truncation_side == "left",
            )
        if padding != "do_not_pad":
            kw.update(
                pad_fixed=max_length if padding == "max_length" else None,
                pad_multiple=pad_to_multiple_of,
                pad_id=hf.pad_token_id,
                pad_type_id=hf.pad_token_type_id,
                pad_left=(padding_side if padding_side is not None else hf.padding_side) == "left",
            )
        return PostProcess(**kw)

    def serve(
        self,
        text,
        text_pair,
        add_special,
        padding,
        truncation,
        max_length,
        stride,
        multiple,
        side,
        tensors,
        verbose,
        options,
    ) -> tuple[Any, str]:
        """The backend's result, computed by tagpipe -- or (None, why) for the original."""
        hf = self.hf
        batched = not isinstance(text, str)
        texts = list(text) if batched else [text]
        pairs = (list(text_pair) if batched else [text_pair]) if _is_pair(text, text_pair) else None
        if truncation != "do_not_truncate":
            if max_length is None:
                return None, "truncation without max_length"
            room = max_length - self.layout.added(False)  # (enable_truncation's check)
            if 0 <= room < stride:
                return None, f"stride {stride} over max_length minus the special tokens (the backend's error)"
        if padding != "do_not_pad" and hf.pad_token_id is None:
            return None, "padding without a pad token (the backend's error)"
        post = self.params(padding, truncation, max_length, stride, multiple, side)
        spans, overflow = options["return_offsets_mapping"], options["return_overflowing_tokens"]
        a, b = self.tok.encode_sides(texts, pairs, offsets=spans)
        trim = self.tok.offsets_trim if spans else None
        rows, _ = post_process(self.layout, a, b, post, add_special, overflow, trim)
        if rows is None:
            return None, "a truncation that is the backend's error"
        lengths = np.diff(rows.offsets)
        if max_length is None and len(lengths) and lengths.max() > hf.model_max_length:
            i = int(lengths.argmax())
            hf._eventual_warn_about_too_long_sequence(rows.ids[rows.offsets[i] : rows.offsets[i + 1]], None, verbose)
        return _batch_encoding(rows, options, batched, tensors), ""


def _texts(x: Any) -> bool:
    return isinstance(x, str) or (isinstance(x, (list, tuple)) and all(isinstance(t, str) for t in x))


def _is_pair(text: Any, text_pair: Any) -> bool:
    """Whether the backend encodes pairs: a batch with text_pair, or one text with a non-empty
    text_pair (transformers: ``[(text, text_pair)] if text_pair else [text]``)."""
    return text_pair is not None if not isinstance(text, str) else bool(text_pair)


def _batch_encoding(rows: Any, options: dict, batched: bool, tensors: Any) -> Any:
    """The BatchEncoding _encode_plus builds from the backend's encodings."""
    from transformers import BatchEncoding

    fields = [("input_ids", rows.ids)]
    if options["return_token_type_ids"]:
        fields.append(("token_type_ids", rows.type_ids))
    if options["return_attention_mask"]:
        fields.append(("attention_mask", rows.attention_mask))
    if options["return_special_tokens_mask"]:
        fields.append(("special_tokens_mask", rows.special_tokens_mask))
    if options["return_offsets_mapping"]:
        fields.append(("offset_mapping", rows.offset_mapping))
    lengths = np.diff(rows.offsets)
    n = len(lengths)
    square = n > 0 and (lengths == lengths[0]).all()
    if _value(tensors) == "np" and square:  # (np.array of the lists: int64, no list built)
        width = int(lengths[0])
        # (offsets of empty rows: numpy makes [[]] a (n, 0) array, with no axis of 2)
        data = {k: v.astype(np.int64).reshape((n, width) + (v.shape[1:] if width else ())) for k, v in fields}
        if options["return_length"]:
            data["length"] = lengths.astype(np.int64)
        if rows.sample is not None:
            data["overflow_to_sample_mapping"] = rows.sample.astype(np.int64)
        return BatchEncoding(data, tensor_type=tensors)
    data = {}
    for k, v in fields:
        flat = v.tolist() if v.ndim == 1 else list(zip(v[:, 0].tolist(), v[:, 1].tolist()))
        data[k] = [flat[rows.offsets[i] : rows.offsets[i + 1]] for i in range(n)]
    if options["return_length"]:
        data["length"] = lengths.tolist()
    if rows.sample is not None:
        data["overflow_to_sample_mapping"] = rows.sample.tolist()
    if not batched and tensors is None and rows.sample is None:  # one text: no batch dimension (as the backend)
        data = {k: (v[0] if len(v) > 0 and isinstance(v[0], list) else v) for k, v in data.items()}
        return BatchEncoding(data)
    return BatchEncoding(data, tensor_type=tensors)


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
