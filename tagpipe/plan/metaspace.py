"""MetaspaceRuns: cut a pipeline that writes a mark (▁) but never cuts -- only where the cut
provably changes no id.  A probe of the tokenizer's own normalizer and pre-tokenizer finds such
pipelines (llama-2, mistral, gemma); a scan of the vocabulary at load proves the cuts exact
(no piece joins a cut, or it is guarded).  The argument: docs/design/metaspace-runs.md.
"""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from tagpipe import _core, spec
from tagpipe.plan.steps import Step

MAX_GUARDS = 256  # more crossing pieces than this: guarding every cut costs more than it saves


def _probe_mark(normalizer: list[_core.NormalizerStep], stages: list[_core.PreTokenizerStage]) -> Optional[str]:
    """The mark this pipeline writes for a space while never cutting (None: it cuts, writes no
    mark, or is not native): it makes one piece of "a b" and has the mark in " a"."""
    b = _core.probe(normalizer, stages, "a b")
    a = _core.probe(normalizer, stages, " a")
    if a is None or b is None or len(b) != 1 or len(a) != 1:
        return None  # not native, or the pipeline cuts: nothing to do here
    piece = b[0].decode("utf-8")
    if not (piece.count("a") == 1 and piece.endswith("b") and "a" in piece):
        return None
    mark = piece[piece.index("a") + 1 : -1]
    if len(mark) != 1 or mark == " " or mark not in a[0].decode("utf-8"):
        return None  # no mark written for the space: an ordinary single-piece pipeline
    return mark


def _why_not(model: spec.Model, mark: str) -> list[str]:
    """The conditions of the proof this model fails (docs/design/metaspace-runs.md)."""
    if not isinstance(model, spec.BPE):
        return [f"the model is {model.type}, not BPE"]
    why = []
    vocab = model.vocab
    if mark not in vocab:
        why.append(f"{mark!r} is not in the vocabulary")
    if model.ignore_merges:
        why.append("ignore_merges is on")
    if model.continuing_subword_prefix or model.end_of_word_suffix:
        why.append("the model has continuing_subword_prefix / end_of_word_suffix")
    if model.dropout:
        why.append("dropout is on")
    full_fallback = model.byte_fallback and all(f"<0x{b:02X}>" in vocab for b in range(256))
    if not (model.unk_token in vocab or full_fallback) and any(mark * 2 in t for t in vocab):
        why.append(
            f"a character the vocabulary lacks is dropped (no unk token, no full byte_fallback) "
            f"and a piece holds {mark * 2!r}"
        )
    return why


def metaspace_runs(
    model: spec.Model, normalizer: list[_core.NormalizerStep], stages: list[_core.PreTokenizerStage]
) -> tuple[Optional[_core.PreTokenizerStage], list[Step]]:
    """The MetaspaceRuns stage for this tokenizer (or None), and the explain() lines."""
    where = "MetaspaceRuns"
    mark = _probe_mark(normalizer, stages)
    if mark is None:
        return None, []
    probe = f"probe: writes {mark!r} for ' ' and never cuts"
    why = _why_not(model, mark)
    crossing: list[str] = []
    if isinstance(model, spec.BPE):
        # (find first, at C speed: nearly every piece has the mark at its start or nowhere)
        crossing = [t for t in model.vocab if t.find(mark, 1) > 0 and _crosses(t, mark)]
        if len(crossing) > MAX_GUARDS:
            why.append(f"{len(crossing)} vocabulary pieces hold {mark!r} after another character")
    if why:
        return None, [Step(where, probe, True, "not used, the whole-span path (exact): " + "; ".join(why))]
    assert isinstance(model, spec.BPE)
    guards = sorted(crossing)
    how = (
        "proof: no vocabulary piece joins a cut"
        if not guards
        else (
            f"proof: {len(guards)} crossing piece(s) guarded ({', '.join(map(repr, guards[:3]))}"
            f"{', ...' if len(guards) > 3 else ''})"
        )
    )
    pairs = ascii_cut_pairs(model.vocab, model.byte_fallback)
    stage = _core.PreTokenizerStage(
        kind=_core.PreTokenizerStage.Kind.MetaspaceRuns, literal=mark, guards=guards, pairs=pairs
    )
    how += f"; and between {sum(pairs)} of the 16384 ASCII character pairs no piece holds"
    return stage, [Step(where, probe, True, "cut before each run of the mark; " + how)]


def _crosses(token: str, mark: str) -> bool:
    return any(token[i] == mark and token[i - 1] != mark for i in range(1, len(token)))


def ascii_cut_pairs(vocab: dict[str, int], byte_fallback: bool) -> bytes:
    """pairs[x * 128 + y] = 1 where a cut between ASCII characters x and y is proven exact
    (docs/design/metaspace-runs.md, pair cuts): both known, and no vocabulary piece holds x
    right before y.

    Over all pieces at once (piece by piece is slow on a big vocabulary): their UTF-8 bytes
    end to end, where two ASCII bytes side by side are two ASCII characters side by side --
    except across the end of a piece, which is masked out."""
    byte_token = {f"<0x{b:02X}>": b for b in range(128)}
    known = [chr(c) in vocab or (byte_fallback and f"<0x{c:02X}>" in vocab) for c in range(128)]
    pieces = [t for t in vocab if t not in byte_token]
    encoded = [t.encode("utf-8", "surrogatepass") for t in pieces]
    text = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    joined = np.zeros(128 * 128, dtype=bool)
    if len(text) >= 2:
        ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))
        inside = np.ones(len(text) - 1, dtype=bool)  # (pair i, i + 1 within one piece)
        inside[ends[(ends >= 1) & (ends < len(text))] - 1] = False
        x, y = text[:-1], text[1:]
        both = inside & (x < 128) & (y < 128)
        joined[x[both].astype(np.int64) * 128 + y[both]] = True
    # a byte token inside a longer piece: merges do join byte-fallback symbols ("\0" is no
    # part of the pattern, so no match runs across two pieces)
    for m in _BYTE_TOKEN.findall("\0".join(pieces)):
        b = int(m, 16)
        if b < 128:
            known[b] = known[b] and chr(b) in vocab
    ok = np.array(known, dtype=bool)
    return (ok[:, None] & ok[None, :] & ~joined.reshape(128, 128)).astype(np.uint8).tobytes()


_BYTE_TOKEN = re.compile(r"<0x([0-9A-F]{2})>")
