"""transformers tokenizers built offline from the shared files, and the comparison of their
outputs (tests of tagpipe.accelerate)."""

from __future__ import annotations

import contextlib
import os
import random

import numpy as np
import pytest

import tagpipe

from support.data import CORPORA, SHARED

os.environ.setdefault("HF_HUB_OFFLINE", "1")

PAD = {
    "gpt2": "<|endoftext|>",
    "llama2": "</s>",
    "llama3": "<|end_of_text|>",
    "bert-wiki": "[PAD]",
    "roberta-base": "<pad>",
    "t5-small": "<pad>",
}
# the models whose transformers class asks for token_type_ids (BertTokenizerFast, ...)
TYPE_IDS = {"bert-wiki"}


def hf_tokenizer(name: str):
    """A transformers fast tokenizer of shared/tokenizers/<name>/tokenizer.json."""
    import transformers

    path = str(SHARED / "tokenizers" / name / "tokenizer.json")
    kw = {"model_input_names": ["input_ids", "token_type_ids", "attention_mask"]} if name in TYPE_IDS else {}
    return transformers.PreTrainedTokenizerFast(tokenizer_file=path, pad_token=PAD[name], **kw)


def same(x, y) -> bool:
    """The same keys, value types, dtypes and values (no loosening: int64 is not int32)."""
    if set(x) != set(y):
        return False
    for k in x:
        a, b = x[k], y[k]
        if type(a) is not type(b):
            return False
        if isinstance(a, np.ndarray) and not (a.dtype == b.dtype and np.array_equal(a, b)):
            return False
        if not isinstance(a, np.ndarray) and a != b:
            return False
    return True


def samples(n=24, seed=0):
    """Short, empty, odd and corpus texts (slices of 20, 200 or 3000 characters)."""
    rng = random.Random(seed)
    out = ["", " ", "Hello world", "東京 naïve 12345", "  spaces   and\ttabs\n\nnew", "<|endoftext|> <s> x"]
    for path in CORPORA:
        text = path.read_bytes().decode("utf-8")
        for _ in range(n // max(1, len(CORPORA))):
            i = rng.randrange(len(text))
            out.append(text[i : i + rng.choice([20, 200, 3000])])
    return out


def check(original, fast, *args, strict=False, **kw) -> bool:
    """The accelerated call gives the original's result on the tagpipe path (under
    delegation_disabled() when `strict`) -- True -- or, where the original raises, raises
    too from the original path -- False."""
    try:
        want = original(*args, **kw)
    except BaseException as e:  # the backend's error or panic (a cut it cannot do)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        # ...raised by the original backend again (which of a batch's errors and panics comes
        # first is its threads' race: the type may differ from one call to the next)
        with pytest.raises(BaseException) as raised:
            fast(*args, **kw)
        assert not isinstance(raised.value, (AssertionError, tagpipe.DelegationError))
        assert fast.tagpipe_last_path.startswith("original: "), fast.tagpipe_last_path
        return False
    with tagpipe.delegation_disabled() if strict else contextlib.nullcontext():
        got = fast(*args, **kw)
    assert fast.tagpipe_last_path == "tagpipe", (kw, fast.tagpipe_last_path)
    assert same(want, got), (args, kw)
    return True
