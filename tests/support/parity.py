"""The comparison machinery of the parity tests (tests/test_encode_parity.py and the tests
that compare the same way: test_models_native.py, test_char_merges.py).

* `run_and_compare` encodes texts with tagpipe (under ``delegation_disabled`` when the
  tokenizer is native), compares with the oracle's ids and records failures in a `Report`,
  which fails once at the end describing the first few: the tokenizer, the text shortened
  around the first difference, the differing ids with their tokens, and a shrunken text
  that still fails where one was found;
* `corpus_docs`: ~10 kB cuts and random-length documents of a corpus, a different
  deterministic selection per tokenizer;
* `HYPOTHESIS`: the hypothesis settings of the per-family text tests;
* small tokenizer.json builders (`bpe_json` and the sections it takes) for synthetic
  tokenizers.
"""

from __future__ import annotations

import functools
import json
import math
import random
import zlib
from pathlib import Path
from typing import Callable, Optional, Sequence

import pytest
import tokenizers
from hypothesis import HealthCheck, settings

import tagpipe

from . import strategies as S

# ---------------------------------------------------------------------------------------
# Budgets
# ---------------------------------------------------------------------------------------

CUT_DOC_BYTES = 10_000  # the "~10 kB" documents ...
CUT_DOCS_PER_CORPUS = 8  # ... this many per corpus per tokenizer (first: the file start)
RANDOM_DOCS_PER_CORPUS = 32  # + corpus_documents (10 B .. 20 kB, ~2.6 kB mean) per corpus
# => ~(80 + 85) kB x 6 corpora ~ 1 MB of text per tokenizer, each encoded with and without specials.
HYPOTHESIS_EXAMPLES = 300  # per tokenizer family
REPORT_FAILURES = 3  # texts described in full per failing test
SHRINK_BUDGET = 600  # tagpipe+oracle calls spent shrinking each described failure

HYPOTHESIS = settings(
    max_examples=HYPOTHESIS_EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.filter_too_much,
    ],
)


# ---------------------------------------------------------------------------------------
# Comparison and failure reports
# ---------------------------------------------------------------------------------------


def oracle_ids(oracle: tokenizers.Tokenizer, texts: Sequence[str], add_special: bool) -> list[list[int]]:
    """``oracle.encode(t).ids`` for each text (encode_batch when that is the same thing: it pads
    a batch when the file has padding, encode does not)."""
    if oracle.padding is None:
        return [e.ids for e in oracle.encode_batch(list(texts), add_special_tokens=add_special)]
    return [oracle.encode(t, add_special_tokens=add_special).ids for t in texts]


def _short(text: str, pos: int, radius: int = 60) -> str:
    a, b = max(0, pos - radius), min(len(text), pos + radius)
    return (
        ("…" if a else "")
        + repr(text[a:b])
        + ("…" if b < len(text) else "")
        + f"  (chars {a}..{b} of {len(text)}; the difference is at char ~{pos})"
    )


def _tok_names(oracle, ids) -> str:
    return "[" + ", ".join(f"{i}:{oracle.id_to_token(i)!r}" for i in ids) + "]"


def _first_diff(a: Sequence[int], b: Sequence[int]) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _diff_char(oracle, text: str, add_special: bool, index: int) -> int:
    try:
        offsets = oracle.encode(text, add_special_tokens=add_special).offsets
    except Exception:
        return 0
    if index < len(offsets):
        return offsets[index][0]
    return len(text)


def shrink(pred: Callable[[str], bool], text: str, pos: int, budget: int = SHRINK_BUDGET) -> Optional[str]:
    """A short text for which ``pred`` still holds: a window around ``pos``, then ddmin."""
    try:
        if not pred(text):
            return None
        for r in (4, 16, 64, 256, 1024, 4096):
            if 2 * r >= len(text):
                break
            w = text[max(0, pos - r) : pos + r]
            budget -= 1
            if pred(w):
                text = w
                break
        n = 2
        while len(text) >= 2 and budget > 0:
            chunk = math.ceil(len(text) / n)
            for k in range(n):
                cand = text[: k * chunk] + text[(k + 1) * chunk :]
                budget -= 1
                if cand != text and pred(cand):
                    text, n = cand, max(n - 1, 2)
                    break
                if budget <= 0:
                    break
            else:
                if n >= len(text):
                    break
                n = min(2 * n, len(text))
        return text
    except Exception:  # noqa: BLE001 - shrinking is best effort
        return None


def _tagpipe_differs(tok, oracle, add_special) -> Callable[[str], bool]:
    def pred(t: str) -> bool:
        want = oracle.encode(t, add_special_tokens=add_special).ids
        try:
            return tok.encode(t, add_special) != want
        except tagpipe.DelegationError:
            return False
        except Exception:  # noqa: BLE001 - a crash reproduces too
            return True

    return pred


def describe(
    name: str, tok, oracle, text: str, want, got, add_special: bool, label: str = "", do_shrink: bool = True
) -> str:
    head = f"[{name}] add_special_tokens={add_special}" + (f" {label}" if label else "")
    if isinstance(got, BaseException):
        return f"{head}: tagpipe raised {type(got).__name__}: {got}\n  text: {_short(text, 0, 100)}"
    i = _first_diff(want, got)
    pos = _diff_char(oracle, text, add_special, i)
    lines = [
        f"{head}: ids differ at index {i} (oracle {len(want)} ids, tagpipe {len(got)} ids)",
        f"  text: {_short(text, pos)}",
        f"  oracle  [{max(0, i - 2)}:]: {_tok_names(oracle, want[max(0, i - 2) : i + 6])}",
        f"  tagpipe [{max(0, i - 2)}:]: {_tok_names(oracle, got[max(0, i - 2) : i + 6])}",
    ]
    if do_shrink and tok is not None:
        small = shrink(_tagpipe_differs(tok, oracle, add_special), text, pos)
        if small is not None:
            w = oracle.encode(small, add_special_tokens=add_special).ids
            try:
                g = tok.encode(small, add_special)
            except Exception as e:  # noqa: BLE001
                g = f"raised {type(e).__name__}: {e}"
            lines.append(
                f"  shrunk: {small!r} -> oracle {_tok_names(oracle, w)}  tagpipe "
                f"{_tok_names(oracle, g) if isinstance(g, list) else g}"
            )
    return "\n".join(lines)


class Report:
    """Collects failures of one test; fails once at the end with the first few described."""

    def __init__(self, name: str, tok, oracle, outside=None):
        self.name, self.tok, self.oracle = name, tok, oracle
        self.outside = outside if outside is not None else tok  # for calls outside delegation_disabled
        self.failures: list[str] = []
        self.count = 0

    def mismatch(self, text, want, got, add_special, label="", do_shrink=True):
        self.count += 1
        if len(self.failures) < REPORT_FAILURES:
            self.failures.append(
                describe(self.name, self.outside, self.oracle, text, want, got, add_special, label, do_shrink)
            )

    def fail(self, message: str):
        self.count += 1
        if len(self.failures) < REPORT_FAILURES:
            self.failures.append(f"[{self.name}] {message}")

    def check(self):
        if self.count:
            more = f"\n... and {self.count - len(self.failures)} more" if self.count > len(self.failures) else ""
            pytest.fail(f"{self.count} failure(s):\n" + "\n\n".join(self.failures) + more, pytrace=False)


def _per_text(tok, texts, add_special):
    out = []
    for t in texts:
        try:
            out.append(tok.encode(t, add_special))
        except tagpipe.DelegationError as e:
            out.append(e)
        except Exception as e:  # noqa: BLE001 - reported with its text
            out.append(e)
    return out


def run_and_compare(
    report: Report,
    tok,
    texts: Sequence[str],
    add_special: bool,
    *,
    native: bool,
    nfc: Optional[Callable[[str], list[str]]],
    labels: Optional[Sequence[str]] = None,
    do_shrink: bool = True,
    want: Optional[list] = None,
) -> list[int]:
    """Encode ``texts`` with tagpipe (under delegation_disabled when ``native``), compare with the
    oracle, record failures in ``report``.  ``nfc``: None when the tokenizer's normalizer never
    delegates per call (then no per-call delegation is allowed), else text -> whether a per-call
    delegation of it is justified (:func:`nfc_inputs`).  Returns the indices delegated per call."""
    texts = list(texts)
    if want is None:
        want = oracle_ids(report.oracle, texts, add_special)
    labels = list(labels) if labels is not None else [""] * len(texts)
    delegated: list[int] = []
    if not native:
        try:
            got = tok.encode_batch(texts, add_special)
        except Exception:  # noqa: BLE001 - find the text
            got = _per_text(tok, texts, add_special)
    else:
        with tagpipe.delegation_disabled():
            try:
                got = tok.encode_batch(texts, add_special)
            except Exception:  # noqa: BLE001 - DelegationError (NFC per call) or a crash: per text
                got = _per_text(tok, texts, add_special)
                delegated = [i for i, g in enumerate(got) if isinstance(g, tagpipe.DelegationError)]
                keep = [i for i, g in enumerate(got) if isinstance(g, list)]
                if delegated and keep:  # the batch path too, on the texts that stay native
                    try:
                        batch = tok.encode_batch([texts[i] for i in keep], add_special)
                    except Exception as e:  # noqa: BLE001
                        report.fail(f"encode_batch of the non-delegated texts raised {type(e).__name__}: {e}")
                    else:
                        for i, b in zip(keep, batch):
                            if b != want[i]:
                                report.mismatch(
                                    texts[i], want[i], b, add_special, (labels[i] + " encode_batch").strip(), do_shrink
                                )
        for i in delegated:
            text = texts[i]
            if nfc is None:
                report.fail(
                    f"per-call delegation in a tokenizer without NFC ({got[i]}); text "
                    f"{labels[i]}: {_short(text, 0, 100)}"
                )
            elif not nfc(text):
                report.fail(
                    f"delegated a text none of whose characters the normalizer's per-call "
                    f"delegation may concern (NFC / grapheme clusters): {labels[i]} {_short(text, 0, 100)}"
                )
            try:  # the delegated result must still be exact
                got[i] = report.outside.encode(text, add_special)
            except Exception as e:  # noqa: BLE001
                got[i] = e
    for i, (w, g) in enumerate(zip(want, got)):
        if g != w:
            report.mismatch(texts[i], w, g, add_special, labels[i], do_shrink)
    return delegated


# ---------------------------------------------------------------------------------------
# Corpus documents
# ---------------------------------------------------------------------------------------


def _boundary(data: bytes, i: int) -> int:
    while i < len(data) and (data[i] & 0xC0) == 0x80:
        i += 1
    return i


@functools.lru_cache(maxsize=8)
def _corpus_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def corpus_docs(corpus: Path, name: str) -> list[S.Document]:
    """~10 kB cuts (the file's start and end, then random places) and random-length documents,
    cut at character boundaries; a different deterministic selection for each tokenizer."""
    data = _corpus_bytes(str(corpus))
    rng = random.Random(f"encode-parity:{name}:{corpus.name}")
    docs = []
    n = len(data)
    for k in range(CUT_DOCS_PER_CORPUS):
        start = 0 if k == 0 else max(0, n - CUT_DOC_BYTES) if k == 1 else rng.randrange(n)
        start = _boundary(data, start)
        end = _boundary(data, min(n, start + CUT_DOC_BYTES))
        docs.append(S.Document(corpus.name, start, data[start:end].decode("utf-8")))
    docs += S.corpus_documents(RANDOM_DOCS_PER_CORPUS, seed=zlib.crc32(name.encode()), paths=[corpus])
    return docs


# ---------------------------------------------------------------------------------------
# Synthetic tokenizer.json builders
# ---------------------------------------------------------------------------------------


def added(content, *, special=False, lstrip=False, rstrip=False, single_word=False, normalized=None):
    return {
        "content": content,
        "single_word": single_word,
        "lstrip": lstrip,
        "rstrip": rstrip,
        "normalized": (not special) if normalized is None else normalized,
        "special": special,
    }


def bpe_json(
    vocab,
    merges,
    *,
    unk=None,
    fuse_unk=False,
    byte_fallback=False,
    ignore_merges=False,
    prefix=None,
    suffix=None,
    normalizer=None,
    pre=None,
    post=None,
    added_tokens=(),
    merge_form="pairs",
) -> str:
    """A whole tokenizer.json with a BPE model. ``vocab``: list (ids in order) or dict; ``merges``:
    (a, b) pairs, written as [a, b] (``merge_form="pairs"``) or "a b" (``"strings"``)."""
    if not isinstance(vocab, dict):
        vocab = {t: i for i, t in enumerate(dict.fromkeys(vocab))}
    merges_out = [list(m) if merge_form == "pairs" else f"{m[0]} {m[1]}" for m in merges]
    toks = []
    next_id = len(vocab)
    for t in added_tokens:
        t = dict(t)
        if t["content"] in vocab:
            t["id"] = vocab[t["content"]]
        else:
            t["id"], next_id = next_id, next_id + 1
        toks.append(
            {
                "id": t["id"],
                **{k: t[k] for k in ("content", "single_word", "lstrip", "rstrip", "normalized", "special")},
            }
        )
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": toks,
            "normalizer": normalizer,
            "pre_tokenizer": pre,
            "post_processor": post,
            "decoder": None,
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": unk,
                "continuing_subword_prefix": prefix,
                "end_of_word_suffix": suffix,
                "fuse_unk": fuse_unk,
                "byte_fallback": byte_fallback,
                "ignore_merges": ignore_merges,
                "vocab": vocab,
                "merges": merges_out,
            },
        },
        ensure_ascii=False,
    )


def _with_merged(base: list[str], merges, prefix: str = "") -> list[str]:
    """``base`` plus every merge result (left + right without the continuing-subword prefix)."""
    out = list(base)
    for a, b in merges:
        m = a + (b[len(prefix) :] if prefix and b.startswith(prefix) else b)
        if m not in out:
            out.append(m)
    return out


WHITESPACE = {"type": "Whitespace"}
WHITESPACE_SPLIT = {"type": "WhitespaceSplit"}


def metaspace(scheme="always", split=True):
    return {"type": "Metaspace", "replacement": "▁", "prepend_scheme": scheme, "split": split}


def bytelevel(add_prefix_space=False, use_regex=True):
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": True, "use_regex": use_regex}


def prepend(s):
    return {"type": "Prepend", "prepend": s}


def replace(a, b):
    return {"type": "Replace", "pattern": {"String": a}, "content": b}


def seq(*ns):
    return {"type": "Sequence", "normalizers": list(ns)}


def template(vocab_ids: dict, bos="<s>", eos="</s>"):
    return {
        "type": "TemplateProcessing",
        "single": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": eos, "type_id": 0}},
        ],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {
            bos: {"id": bos, "ids": [vocab_ids[bos]], "tokens": [bos]},
            eos: {"id": eos, "ids": [vocab_ids[eos]], "tokens": [eos]},
        },
    }
