"""How a section is read: the oracle's tagged-then-untagged choice of struct, the checks
serde_json makes before any struct sees a value, and pydantic's errors turned into JSON paths."""

from __future__ import annotations

import itertools
import math
from typing import Any, Iterable, Optional

from pydantic import TypeAdapter, ValidationError

from tagpipe.spec._base import (
    _STRICT_KEYS,
    Repeated,
    TokenizerJsonError,
    _Invalid,
    _join,
    _key,
    _LegacyOnly,
    _Model,
    _show,
    _variant_name,
)

# ---------------------------------------------------------------------------- choosing the struct


def _tag(model: type) -> str:
    return model.model_fields["type"].default


def _legacy_candidate(raw: Any, model: type) -> Optional[dict]:
    """How ``model`` would read ``raw`` on the oracle's untagged path, as a dict; None if it
    cannot fit (wrong "type", wrong array length, arrays not taken)."""
    tag = _tag(model)
    if isinstance(raw, dict):
        if model._checks_type and _variant_name(raw.get("type")) != tag:
            return None
        return _with_type(raw, tag)
    if isinstance(raw, list) and model._array is not None:
        items = raw
        if model._checks_type:
            if not items or _variant_name(items[0]) != tag:
                return None
            items = items[1:]
        if len(items) == len(model._array):
            return {**dict(zip(model._array, items)), "type": tag}
    return None


def _with_type(raw: dict, tag: str) -> dict:
    """``raw`` with ``"type": tag``, keeping what it repeats."""
    out = {**raw, "type": tag}
    return Repeated.of(out, raw.earlier) if isinstance(raw, Repeated) else out


def _resolver(kind: str, tagged: dict, legacy: tuple, names: Optional[tuple] = None):
    """The before-validator of a section union: turn raw JSON into a dict carrying the canonical
    ``"type"`` (or an already validated model), following the oracle's tagged-then-untagged read.
    ``names`` lists the types for error messages when none is tagged (purely untagged unions)."""

    def resolve(raw: Any) -> Any:
        if isinstance(raw, _Model):
            return raw
        name = _variant_name(raw.get("type")) if isinstance(raw, dict) else None
        if name in tagged and not isinstance(raw, _LegacyOnly):
            if tagged[name] is None:
                raise _Invalid(f"type {name!r} is refused by the oracle; the struct wants 'CharDelimiterSplit'", "type")
            return _with_type(raw, tagged[name])
        failed = []
        for model in legacy:
            candidate = _legacy_candidate(raw, model)
            if candidate is not None:
                try:
                    return model.model_validate(candidate)
                except ValidationError:
                    failed.append((model, candidate))
        # Nothing fits: let the likeliest struct report its own error with a field path.
        likely = [c for m, c in failed if _tag(m) == name]
        if isinstance(raw, dict):
            overlap = [(len(set(m.model_fields) & raw.keys() - {"type"}), c) for m, c in failed]
            likely += [c for n, c in sorted(overlap, key=lambda x: -x[0]) if n]
        if likely or len(failed) == 1:
            return (likely or [failed[0][1]])[0]
        if isinstance(raw, dict):
            known = ", ".join(repr(t) for t in (names or [t for t in tagged if tagged[t]]))
            if "type" not in raw:
                raise _Invalid(f"missing 'type' and no legacy {kind} form fits; types: {known}")
            raise _Invalid(f"{_show(raw['type'])} is not a {kind} type; expected one of {known}", "type")
        raise _Invalid(f"expected a {kind} object, got {_show(raw)}")

    return resolve


# ---------------------------------------------------------------------------- JSON values


def _json_ok(value: Any, depth: int = 1) -> bool:
    """A fast, level-by-level pass over what :func:`_check_json` checks (whole vocabularies at C
    speed); False means "look closer", not necessarily "invalid"."""
    # A level is a list of batches: the children of one batch's containers of one kind form
    # one batch, so a vocabulary's ids and the merges stay apart (no per-item type split);
    # small batches share one (a file of many small mixed containers: not a batch each).
    level = [[value]]
    while level:
        deeper: list = []
        small: list = []
        for batch in level:
            kinds = set(map(type, batch))
            for kind in kinds:
                items = batch if len(kinds) == 1 else [v for v in batch if type(v) is kind]
                if kind is str:
                    try:
                        "".join(items).encode("utf-8")
                    except UnicodeEncodeError:
                        return False
                elif kind is float:
                    if not all(map(math.isfinite, items)):
                        return False
                elif kind is int:
                    if max(items) >= _FLOAT_INTS or min(items) <= -_FLOAT_INTS:
                        return False
                elif kind is list or (isinstance(kind, type) and issubclass(kind, dict)):
                    if depth > 126:
                        return False
                    if kind is not list:
                        keys = list(itertools.chain.from_iterable(items))
                        if set(map(type, keys)) - {str}:
                            return False
                        try:
                            "".join(keys).encode("utf-8")
                        except UnicodeEncodeError:
                            return False
                        del keys
                        items = map(dict.values, items)
                    children = list(itertools.chain.from_iterable(items))
                    if len(children) >= 1024:
                        deeper.append(children)
                    else:
                        small.extend(children)
                elif kind is not bool and kind is not type(None):
                    return False
        if small:
            deeper.append(small)
        level = deeper
        depth += 1
    return True


_FLOAT_INTS = 2**1023  # ints this large may not fit an f64: checked one by one


def _check_json(value: Any, path: str, depth: int = 1) -> None:
    """What serde_json refuses before any struct sees it: lone surrogates, NaN, infinities and
    numbers beyond f64, nesting past its recursion limit (128 levels, one taken by the document,
    so a section may nest 126 deep), and anything json.loads cannot produce."""
    if _json_ok(value, depth):
        return
    _check_json_item(value, path, depth)


def _check_json_item(value: Any, path: str, depth: int) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise TokenizerJsonError(
                path, f"{_show(value)} is not valid UTF-8 (a lone surrogate, or an undecodable byte)"
            ) from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise TokenizerJsonError(path, f"{_show(value)} is out of range for a JSON number")
    elif isinstance(value, (list, dict)) and depth > 126:
        raise TokenizerJsonError(path, "nested deeper than serde_json's recursion limit")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_item(item, f"{path}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TokenizerJsonError(path, f"object key {_show(key)} is not a string")
            _check_json_item(key, path, depth)
            _check_json_item(item, _key(path, key), depth + 1)
    elif value is not None and not isinstance(value, bool):
        raise TokenizerJsonError(path, f"{_show(value)} is not a JSON value")


# ---------------------------------------------------------------------------- reading a section


class _Section:
    """A section's validator: its pydantic adapter and the tags of its union's members (pydantic
    puts them in an error's location; the JSON path leaves them out)."""

    def __init__(self, annotation: Any, members: Iterable[type] = ()):
        self.adapter = TypeAdapter(annotation)
        self.tags = frozenset(map(_tag, members))


_EXPECTED = {
    "bool_type": "a boolean",
    "string_type": "a string",
    "int_type": "an integer",
    "list_type": "an array",
    "greater_than_equal": "an integer >= 0",
    "less_than_equal": "an integer < 2**64",
}


def _to_error(exc: ValidationError, path: str, tags: frozenset) -> TokenizerJsonError:
    """Turn pydantic's first error into ``path: message``, dropping the union tags from its loc."""
    error = exc.errors()[0]
    loc = [
        part
        for i, part in enumerate(error["loc"])
        if not (part in tags and (i == 0 or isinstance(error["loc"][i - 1], int)))
    ]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, _Invalid):
        return TokenizerJsonError(_join(path, loc + list(cause.loc)), str(cause))
    if error["type"] == "missing":
        return TokenizerJsonError(_join(path, loc), "missing required field")
    expected = _EXPECTED.get(error["type"])
    bound = (error.get("ctx") or {}).get("le")
    if error["type"] == "less_than_equal" and isinstance(bound, int) and bound & (bound + 1) == 0:
        expected = f"an integer < 2**{bound.bit_length()}"
    message = f"expected {expected}" if expected else error["msg"]
    return TokenizerJsonError(_join(path, loc), f"{message}, got {_show(error['input'])}")


def _parse(section: _Section, obj: Any, path: str, strict_keys: bool = False) -> Any:
    """Validate a section; ``strict_keys``: repeated fields are errors (see _STRICT_KEYS)."""
    if obj is None:
        return None
    _check_json(obj, path)
    token = _STRICT_KEYS.set(strict_keys)
    try:
        return section.adapter.validate_python(obj)
    except ValidationError as exc:
        raise _to_error(exc, path, section.tags) from None
    finally:
        _STRICT_KEYS.reset(token)


def _tagged_section(obj: Any) -> Any:
    """A tagged-then-untagged section as the oracle reads it: a repeated "type" fails the tagged
    read (a serde struct), leaving the untagged one (on serde_json::Value, last value kept)."""
    if isinstance(obj, Repeated) and "type" in obj.earlier:
        return _LegacyOnly(obj)
    return obj
