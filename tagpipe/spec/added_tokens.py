"""The ``added_tokens`` section: every field of a token is required and ``id`` is ignored --
each token takes its id from an earlier added token with the same content, else from the model
vocab, else the next free id counting from the model's vocab size; empty contents are dropped;
the list is written by id.  A repeated field is an error (the oracle reads these structs
straight from the JSON stream)."""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple

from pydantic import StrictBool, StrictStr, model_validator

from tagpipe.spec._base import U32, TokenizerJsonError, _Invalid, _Model, _show
from tagpipe.spec._read import _check_json, _parse, _Section


class AddedToken(NamedTuple):
    """One added token as the oracle holds it (its id assigned: see :func:`parse_tokenizer`).
    A tuple, not a validated model: a file may hold hundreds of thousands of them."""

    id: int
    content: str
    single_word: bool
    lstrip: bool
    rstrip: bool
    normalized: bool
    special: bool

    def to_json(self) -> dict:
        return self._asdict()


class _AddedTokenIn(_Model):
    """The struct as the oracle reads it -- every field required; ``id`` read, then ignored --
    validated only for a token that is not plainly well-formed, to name its error."""

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
        if not isinstance(data, dict):
            raise _Invalid(f"expected an added-token object, got {_show(data)}")
        return data


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
    return tuple(AddedToken(i, *f) for i, f in sorted(by_id.items()))


_SECTION = _Section(List[_AddedTokenIn])


def parse_added_tokens(obj: Any, path: str = "added_tokens") -> list:
    """Load the ``added_tokens`` section as written (ids not yet assigned: see
    :func:`tagpipe.spec.parse_tokenizer`)."""
    if not isinstance(obj, list):
        raise TokenizerJsonError(path, f"expected an array, got {_show(obj)}")
    if not all(map(_plain, obj)):  # validated: an error names the item and the field
        return [AddedToken(**t.model_dump()) for t in _parse(_SECTION, obj, path, strict_keys=True)]
    # (validating every token as a model cost ~2.5 KB and ~45 us a token: 200k added tokens
    # took 0.5 GB and 9 s)
    _check_json(obj, path)
    return [AddedToken(**t) for t in obj]


_FIELDS = frozenset(AddedToken._fields)


def _plain(t: Any) -> bool:
    """A token the validation would take as it is: a plain object with exactly the fields, of
    their exact JSON types, id in u32 range.  Anything else is validated (and its error named)."""
    return (
        type(t) is dict
        and t.keys() == _FIELDS
        and type(t["content"]) is str
        and type(t["id"]) is int
        and 0 <= t["id"] <= 0xFFFFFFFF
        and type(t["single_word"]) is bool
        and type(t["lstrip"]) is bool
        and type(t["rstrip"]) is bool
        and type(t["normalized"]) is bool
        and type(t["special"]) is bool
    )
