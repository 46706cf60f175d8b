"""The ``added_tokens`` section: every field of a token is required and ``id`` is ignored --
each token takes its id from an earlier added token with the same content, else from the model
vocab, else the next free id counting from the model's vocab size; empty contents are dropped;
the list is written by id.  A repeated field is an error (the oracle reads these structs
straight from the JSON stream)."""

from __future__ import annotations

from typing import Any, Dict, List

from pydantic import StrictBool, StrictStr, model_validator

from tagpipe.spec._base import U32, TokenizerJsonError, _Invalid, _Model, _show
from tagpipe.spec._read import _parse, _Section


class AddedToken(_Model):
    """Every field is required; the oracle ignores ``id`` (see :func:`parse_tokenizer`)."""

    id: U32
    content: StrictStr
    single_word: StrictBool
    lstrip: StrictBool
    rstrip: StrictBool
    normalized: StrictBool
    special: StrictBool

    @model_validator(mode="before")
    @classmethod
    def _object_only(cls, data: Any) -> Any:
        if not isinstance(data, (dict, AddedToken)):
            raise _Invalid(f"expected an added-token object, got {_show(data)}")
        return data

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.normalized,
            "special": self.special,
        }


def _resolve_added(tokens, model) -> tuple:
    """``AddedVocabulary::add_tokens`` as run by the loader: ids from earlier added tokens, then
    the model vocab, then counting up from the model's vocab size; written back by id."""
    by_content: Dict[str, int] = {}
    by_id: Dict[int, tuple] = {}
    next_id = model.vocab_size()
    for token in tokens:
        if not token.content:
            continue
        flags = (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized, token.special)
        known = by_content.get(token.content)
        if known is not None and by_id.get(known) == flags:
            continue
        new_id = known if known is not None else model.token_to_id(token.content)
        if new_id is None:
            new_id, next_id = next_id, next_id + 1
        by_content[token.content] = new_id
        by_id[new_id] = flags
    return tuple(
        AddedToken.model_construct(
            id=i, content=f[0], single_word=f[1], lstrip=f[2], rstrip=f[3], normalized=f[4], special=f[5]
        )
        for i, f in sorted(by_id.items())
    )


_SECTION = _Section(List[AddedToken])


def parse_added_tokens(obj: Any, path: str = "added_tokens") -> list:
    """Load the ``added_tokens`` section as written (ids not yet assigned: see
    :func:`tagpipe.spec.parse_tokenizer`)."""
    if not isinstance(obj, list):
        raise TokenizerJsonError(path, f"expected an array, got {_show(obj)}")
    return _parse(_SECTION, obj, path, strict_keys=True)
