"""tokenizer.json text read as the oracle's serde_json reads it.

Repeated keys (:class:`~tagpipe.spec._base.Repeated` keeps the earlier values), ``-0`` and
integers beyond 64 bits being floats, and floats parsed the way serde_json does without
``float_roundtrip`` (not always the nearest double: ``-2.0122928619384766`` reads as
``-2.012292861938477``).  JSON syntax errors and nesting past serde_json's recursion limit
become a ``TokenizerJsonError`` naming the path and the line/column.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, Optional, Union

from tagpipe.spec._base import Repeated, TokenizerJsonError, _key

#: serde_json's recursion limit: containers may nest this deep, the document object included.
MAX_DEPTH = 127

_U64_MAX = 2**64 - 1
_POW10 = [float(f"1e{i}") for i in range(309)]
_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?)([0-9]+))?")


def _serde_f64(text: str) -> float:
    """A JSON number as serde_json (without its ``float_roundtrip`` feature, as the oracle is
    built) reads it as an f64: the first digits that fit a u64, scaled by one multiplication or
    division by a power of ten -- not always the nearest double (json.loads is exact).  An
    out-of-range number gives inf, which the section checks then refuse."""
    sign, whole, fraction, exp_sign, exp_digits = _NUMBER.fullmatch(text).groups()
    fraction = fraction or ""
    significand, exponent = 0, 0
    digits = whole + fraction
    if len(digits) <= 19 or len(digits) == 20 and int(digits) <= _U64_MAX:
        significand, exponent = int(digits), -len(fraction)
    else:  # serde_json keeps the digits that fit and drops the rest (their weight kept)
        for k, c in enumerate(digits):
            d = ord(c) - 48
            if significand * 10 + d > _U64_MAX:  # serde_json's overflow! check
                if k < len(whole):  # in the integer part: skipped digits still count
                    exponent += 1
                    continue
                break  # in the fraction: the rest is ignored
            significand = significand * 10 + d
            if k >= len(whole):
                exponent -= 1
    if exp_digits is not None:
        e = int(exp_digits)
        if e > 2**31 - 1:
            if significand and exp_sign != "-":
                return math.inf
            return -0.0 if sign else 0.0
        exponent = max(-(2**31), min(2**31 - 1, exponent - e if exp_sign == "-" else exponent + e))
    f = float(significand)
    while True:
        if -(2**31) < exponent and abs(exponent) < len(_POW10):
            if exponent >= 0:
                f *= _POW10[exponent]
            else:
                f /= _POW10[-exponent]
            break
        if f == 0.0:
            break
        if exponent >= 0:
            return math.inf
        f /= 1e308
        exponent += 308
    return -f if sign else f


def _serde_int(text: str) -> Union[int, float]:
    """An integer literal as serde_json reads it: u64 or i64, else (``-0`` and beyond) an f64."""
    if len(text) < 19 and text != "-0":
        return int(text)
    if len(text) > 21:  # beyond 64 bits (and maybe beyond int_max_str_digits)
        return _serde_f64(text)
    value = int(text)
    if 0 <= value <= _U64_MAX and text[0] != "-" or -(2**63) <= value < 0:
        return value
    if abs(value) <= _U64_MAX:  # -0, or below i64::MIN: -(u64 as f64)
        return -float(abs(value))
    return _serde_f64(text)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]', re.S)


def _scan(text: str, stop: Optional[int] = None, max_depth: Optional[int] = None):
    """Walk the JSON structure of ``text`` (which may be broken) up to offset ``stop``, or to the
    first container deeper than ``max_depth``; return (offset, path) there (offset None: no
    container is that deep)."""
    stack: list = []  # [is_object, key or index, expecting_key]
    for match in _TOKEN.finditer(text, 0, len(text) if stop is None else stop):
        tok = match.group()
        if tok in "[{":
            stack.append([tok == "{", None if tok == "{" else 0, tok == "{"])
            if max_depth is not None and len(stack) > max_depth:
                return match.start(), _path(stack[:-1])
        elif tok in "]}":
            if stack:
                stack.pop()
        elif tok == ",":
            if stack and stack[-1][0]:
                stack[-1][1], stack[-1][2] = None, True
            elif stack:
                stack[-1][1] += 1
        elif tok == ":":
            if stack:
                stack[-1][2] = False
        elif stack and stack[-1][0] and stack[-1][2]:
            try:
                stack[-1][1] = json.loads(tok)
            except ValueError:
                stack[-1][1] = tok[1:-1]
    if max_depth is not None:
        return None, ""
    return stop, _path(stack)


def _path(stack: list) -> str:
    path = ""
    for is_object, at, _ in stack:
        if at is None:
            break
        path = _key(path, at) if is_object else f"{path}[{at}]"
    return path


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    earlier: Dict[str, list] = {}
    seen = set()
    for key, value in reversed(pairs):  # the last value of a key is the one kept
        if key in seen:
            earlier.setdefault(key, []).insert(0, value)
        seen.add(key)
    return Repeated.of(obj, earlier)


def _parse_json(text: str) -> Any:
    """json.loads with serde_json's numbers and repeated keys (see load_tokenizer_json)."""
    # Numbers as serde_json reads them: "-0" and integers beyond 64 bits are floats there (so
    # refused where an integer is due), and floats are not always rounded to nearest.
    try:
        return json.loads(text, object_pairs_hook=_object, parse_int=_serde_int, parse_float=_serde_f64)
    except json.JSONDecodeError as exc:
        offset, path = _scan(text, stop=exc.pos)
        raise TokenizerJsonError(path, f"invalid JSON at {_position(text, exc.pos)}: {exc.msg}") from None
    except RecursionError:
        if not text.lstrip(" \t\n\r").startswith("{"):
            raise TokenizerJsonError("", "expected a JSON object (a tokenizer), got a deeply nested value") from None
        offset, path = _scan(text, max_depth=MAX_DEPTH)
        if offset is None:  # not the document's depth: the caller's stack was already deep
            raise
        raise TokenizerJsonError(
            path,
            f"nested more than {MAX_DEPTH} levels deep (serde_json's recursion limit) at {_position(text, offset)}",
        ) from None
    except ValueError as exc:  # e.g. an integer beyond int_max_str_digits
        raise TokenizerJsonError("", f"invalid JSON: {exc}") from None
