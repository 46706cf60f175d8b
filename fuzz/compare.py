"""The comparisons of one fuzz input (fuzz/differential.py decodes it): tagpipe against the
oracle, natively.

Every tagpipe call runs under `delegation_disabled`.  A `DelegationError` is allowed only for
a text the tests' rules say needs its normalizer's per-call delegation
(tests/support/delegation.py: NFC, Precompiled), and that text is then compared on a second
instance with delegation allowed.  Where the oracle raises, tagpipe must raise too: for a
lone surrogate the `ValueError` naming its code point and index (the oracle's `TypeError`
says only "must be str"), otherwise the oracle's own exception type and message.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

# The oracle's words for a text with a lone surrogate (it cannot make it a Rust string).
ORACLE_SURROGATE = {"encode": "TextInputSequence must be str", "batch": "TextEncodeInput must be Union"}


def _delegation():
    """tests/support/delegation.py: the tests' own copy when pytest runs this, else imported
    from the checkout (fuzz.py puts its root on sys.path)."""
    mod = sys.modules.get("support.delegation")
    if mod is None:
        from tests.support import delegation as mod
    return mod


class Target:
    """One tokenizer on both sides, loaded once: `tok` (always called with delegation
    disabled), `outside` (a second instance, for the justified per-call delegations)."""

    def __init__(self, name: str, shared: Path):
        import tokenizers

        import tagpipe

        path = shared / "tokenizers" / name / "tokenizer.json"
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text)
        self.name = name
        with tagpipe.delegation_disabled():
            self.tok = tagpipe.Tokenizer.from_str(text)
        self.outside = tagpipe.Tokenizer.from_str(text)
        self.oracle = tokenizers.Tokenizer.from_str(text)
        self.allowance = _delegation().allowance_for(doc.get("normalizer"))
        self.added = [t["content"] for t in doc.get("added_tokens") or []]
        self.pre = None
        if doc.get("pre_tokenizer") is not None:
            with tagpipe.delegation_disabled():
                try:
                    self.pre = tagpipe.PreTokenizer.from_json(doc["pre_tokenizer"])
                except tagpipe.DelegationError:
                    self.pre = None
        assert self.tok.native, f"{name} is not native:\n{self.tok.explain()}"

    def justify(self, text: str, what: str) -> None:
        """A per-call delegation of `text` must be one the rules justify."""
        why = self.allowance.reason(text) if self.allowance is not None else None
        if why is None:
            raise AssertionError(f"{self.name} {what} delegated {text!r} with no evidence that it needs it")


_TARGETS: dict[str, Target] = {}


def shared_dir() -> Path:
    env = os.environ.get("TAGPIPE_TEST_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"


def target(name: str) -> Target:
    if name not in _TARGETS:
        _TARGETS[name] = Target(name, shared_dir())
    return _TARGETS[name]


def outcome(fn):
    """(True, value) or (False, the exception): an exception is a result too."""
    try:
        return True, fn()
    except Exception as e:  # noqa: BLE001 - compared, not swallowed
        return False, e


def _surrogate(texts: list[str]):
    """(text index, char index, code point) of the first lone surrogate, or None."""
    for k, text in enumerate(texts):
        for i, c in enumerate(text):
            if 0xD800 <= ord(c) <= 0xDFFF:
                return k, i, ord(c)
    return None


def same_outcome(where: str, kind: str, texts: list[str], want, got) -> None:
    """tagpipe's outcome `got` against the oracle's `want` (each from `outcome`) of a call of
    `kind` ("encode" or "batch")."""
    (ok_o, w), (ok_t, g) = want, got
    if ok_o and ok_t:
        if g != w:
            raise AssertionError(f"{where} differs on {texts!r}:\n  tagpipe {g}\n  oracle  {w}")
        return
    if ok_o or ok_t:
        raise AssertionError(f"{where} on {texts!r}: {'tagpipe' if ok_o else 'oracle'} raised {g if ok_o else w!r}")
    bad = _surrogate(texts)
    if bad is not None:
        _, i, cp = bad
        if not (isinstance(w, TypeError) and ORACLE_SURROGATE[kind] in str(w)):
            raise AssertionError(f"{where}: the oracle's error for a lone surrogate changed: {w!r}")
        if not (isinstance(g, ValueError) and f"U+{cp:04X} at index {i}" in str(g)):
            raise AssertionError(f"{where}: tagpipe raised {g!r}, not a ValueError naming U+{cp:04X} at index {i}")
        return
    if type(g) is not type(w) or str(g) != str(w):
        raise AssertionError(f"{where} on {texts!r}: tagpipe raised {g!r}, the oracle {w!r}")


def native(t: Target, texts: list[str], call, what: str):
    """`call(tok, texts)` on `t.tok` under delegation_disabled; after a DelegationError, every
    text that delegates on its own must be justified, and the call is made on `t.outside`."""
    import tagpipe

    with tagpipe.delegation_disabled():
        ok, value = outcome(lambda: call(t.tok, texts))
        if ok or not isinstance(value, tagpipe.DelegationError):
            return ok, value
        alone = [x for x in texts if isinstance(outcome(lambda: call(t.tok, [x]))[1], tagpipe.DelegationError)]
    if not alone:
        raise AssertionError(f"{t.name} {what} delegated {texts!r}, but no text delegates on its own")
    for x in alone:
        t.justify(x, what)
    return outcome(lambda: call(t.outside, texts))


def check_text(t: Target, text: str, flags: int) -> None:
    for add in (True, False):
        want = outcome(lambda: t.oracle.encode(text, add_special_tokens=add).ids)
        got = native(t, [text], lambda tok, xs: tok.encode(xs[0], add_special_tokens=add), "encode")
        same_outcome(f"{t.name} encode(add_special_tokens={add})", "encode", [text], want, got)
    # encode_batch_flat on 2 threads: the text, its halves (a cut anywhere) and an empty text
    cut = (flags * 131) % (len(text) + 1)
    texts = [text[cut:], text, "", text[:cut]]
    add = bool(flags & 1)

    def flat(tok, xs):
        ids, offsets = tok.encode_batch_flat(xs, add_special_tokens=add, num_threads=2)
        assert ids.dtype == np.uint32 and offsets[-1] == len(ids)
        return [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(xs))]

    want = outcome(lambda: [e.ids for e in t.oracle.encode_batch(texts, add_special_tokens=add)])
    got = native(t, texts, flat, "encode_batch_flat")
    same_outcome(f"{t.name} encode_batch_flat(add_special_tokens={add})", "batch", texts, want, got)


def check_bytes(t: Target, data: bytes) -> None:
    import tagpipe
    from tagpipe import _core

    # classify: every kernel == scalar, every alphabet; any bytes
    for alphabet in tagpipe.alphabets():
        ref = _core.classify(data, alphabet, "scalar")
        for kernel in tagpipe.kernels().available:
            tags, starts = _core.classify(data, alphabet, kernel)
            if tags.tobytes() != ref[0].tobytes() or starts.tobytes() != ref[1].tobytes():
                raise AssertionError(f"classify kernel {kernel} != scalar, alphabet {alphabet}, data {data!r}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None  # (no oracle for ill-formed UTF-8: the native stages must only not crash)
    # the native pre-tokenizer and encoder take any bytes; valid UTF-8 must match the oracle
    if t.pre is not None and t.pre.native:
        t.pre._native.run(data)
        if text is not None:
            got = t.pre.pre_tokenize_str(text)
            want = t.oracle.pre_tokenizer.pre_tokenize_str(text)
            if got != want:
                raise AssertionError(
                    f"{t.name} pre_tokenize_str differs on {text!r}:\n  tagpipe {got}\n  oracle  {want}"
                )
    for add in (True, False):
        ids = t.tok._native.encode(data, add)
        if text is None:
            continue
        post = t.tok._post  # (truncation and padding run on the native ids, in tagpipe.plan.post_processors)
        if ids is not None and post.active:
            offsets = np.array([0, len(ids)], dtype=np.int64)
            ids = None if post.failing(np.diff(offsets), add)[0] else post.pad(*post.truncate(ids, offsets, add))[0]
        want = t.oracle.encode(text, add_special_tokens=add).ids
        if ids is None:  # the native encoder asks for the oracle: justified, and then exact
            t.justify(text, "the native encoder of bytes")
            ids = t.outside.encode_to_numpy(text, add)
        if ids.tolist() != want:
            raise AssertionError(
                f"{t.name} native encode of bytes differs on {text!r}:\n  tagpipe {ids.tolist()}\n  oracle  {want}"
            )
