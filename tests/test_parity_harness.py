"""The parity harness can fail: support.parity.run_and_compare and support.delegation's rules.

The parity tests pass when tagpipe equals the oracle, so a harness that lets a broken path
through would pass them too.  Each test here hands the harness a broken tagpipe stand-in (a
batch path that raises or is wrong while single calls work, a delegation the rules do not
justify, too many justified ones) and checks that it reports a failure.
"""

from __future__ import annotations

import json

import pytest

import tagpipe

from support.data import SHARED, needs_shared
from support.delegation import MIN_TEXTS_FOR_SHARE, PrecompiledRule, allowance_for
from support.parity import Report, run_and_compare

TEXTS = ["hello world", "the end", "", "a b c"]


class Oracle:
    """A stand-in for the oracle: the ids of a text are its code points."""

    def encode(self, text, add_special_tokens=True):
        return type("E", (), {"ids": [ord(c) for c in text]})()

    def id_to_token(self, i):
        return chr(i)


def ids(text):
    return [ord(c) for c in text]


class Tok:
    """A tagpipe stand-in: single calls right; the batch as ``batch`` says; the texts in
    ``delegates`` raise DelegationError under delegation_disabled."""

    def __init__(self, batch=None, delegates=()):
        self.batch, self.delegates = batch, set(delegates)

    def _check(self, texts):
        if any(t in self.delegates for t in texts) and not tagpipe._delegate.delegation_allowed():
            raise tagpipe.DelegationError("delegated (test double)")

    def encode(self, text, add_special_tokens=True):
        self._check([text])
        return ids(text)

    def encode_batch(self, texts, add_special_tokens=True):
        self._check(texts)
        return self.batch(texts) if self.batch else [ids(t) for t in texts]


def run(tok, texts=TEXTS, allowance=None, outside=None):
    report = Report("stand-in", tok, Oracle(), outside or Tok())
    run_and_compare(report, tok, texts, True, allowance=allowance, want=[ids(t) for t in texts], do_shrink=False)
    return report


def broken_batch(texts):
    raise RuntimeError("the pool lost a text")


def test_a_working_stand_in_passes():
    assert run(Tok()).count == 0


def test_a_batch_that_raises_fails_even_where_single_calls_work():
    assert run(Tok(batch=broken_batch)).count > 0


def test_a_wrong_batch_fails():
    assert run(Tok(batch=lambda texts: [ids(t)[:-1] for t in texts])).count > 0


class Always:
    """An allowance that justifies every delegation (what is left to check is the batch)."""

    max_share = {"NFC": 1.0}

    def kind(self, text):
        return "NFC", "test double"


def test_the_native_texts_batch_is_checked_after_a_delegation():
    """One text delegates (justified): the others still go through the batch path, compared."""
    tok = Tok(batch=lambda texts: [ids(t)[:-1] for t in texts], delegates=["the end"])
    assert run(tok, allowance=Always()).count > 0
    tok = Tok(delegates=["the end"])
    assert run(tok, allowance=Always()).count == 0


def test_the_spliced_batch_is_checked_after_a_delegation():
    """The delegated text is compared in a batch with delegation allowed, too."""
    outside = Tok(batch=broken_batch)
    assert run(Tok(delegates=["the end"]), allowance=Always(), outside=outside).count > 0


def test_a_delegation_without_an_allowance_fails():
    assert run(Tok(delegates=["the end"])).count > 0


@needs_shared
@pytest.mark.parametrize("name", ["t5-small", "marian-ortx-nmt"])
def test_precompiled_rule_does_not_count_category_sk(name):
    """``^`` and a backtick are category Sk but join no grapheme: no reason to delegate code."""
    node = json.loads((SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))["normalizer"]
    allowance = allowance_for(node)
    assert allowance is not None and set(allowance.max_share) == {"Precompiled"}
    assert allowance.reason("x = a ^ b; `echo` ´ ¨ ˜ ゛") is None
    assert allowance.reason("if (a^b) { return `s`; }") is None


@needs_shared
def test_precompiled_rule_names_a_cluster_the_oracle_joins():
    node = json.loads((SHARED / "tokenizers" / "t5-small" / "tokenizer.json").read_text(encoding="utf-8"))
    rule = PrecompiledRule(node["normalizer"]["precompiled_charsmap"])
    assert "U+1100 U+1161" in rule("\u1100\u1161")  # a Hangul L + V: one cluster, a charsmap key
    assert rule("plain ascii, no key joins") is None


@needs_shared
def test_the_share_of_precompiled_delegations_is_capped_apart_from_nfc():
    """A file with NFC and a charsmap: charsmap delegations count against the charsmap's own
    (tight) cap, not NFC's."""
    node = json.loads((SHARED / "tokenizers" / "t5-small" / "tokenizer.json").read_text(encoding="utf-8"))
    allowance = allowance_for({"type": "Sequence", "normalizers": [{"type": "NFC"}, node["normalizer"]]})
    assert allowance.max_share["Precompiled"] < 0.1 <= allowance.max_share["NFC"]
    joined = "\uff71\uff9e"  # halfwidth A + voiced mark: NFC leaves it, the charsmap's cluster
    assert allowance.kind(joined)[0] == "Precompiled"
    n = MIN_TEXTS_FOR_SHARE * 2
    texts = [f"text {i}" for i in range(n - 6)] + [f"{joined} {i}" for i in range(6)]
    report = run(Tok(delegates=texts[-6:]), texts=texts, allowance=allowance)
    assert report.count == 1 and "by Precompiled (at most 5%)" in report.failures[0], report.failures
    report = run(Tok(delegates=texts[-2:]), texts=texts, allowance=allowance)
    assert report.count == 0, report.failures
