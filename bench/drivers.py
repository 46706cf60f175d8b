"""How each engine is driven: one class per engine, its fastest list-free call, timed alone.

A driver is built in a worker process (bench/worker.py) as ``Driver(path, special, threads)``
-- it raises `Skip` with the reason when it cannot load or serve the tokenizer -- and then
``run(docs, clock)`` encodes a batch and returns ``(uint32 ids, int64 offsets)``, with only
the engine's own call(s) inside ``with clock:`` (turning the output into arrays is not
timed; no engine's output is turned into Python lists).  Thread counts are per process:
RAYON_NUM_THREADS, FASTOKENS_BPE_THREADS and TOKENIZERS_PARALLELISM are set by the worker's
parent (worker.environment); `threads` is passed to the engines that take it per call.

    engine             one thread                                  N threads
    tagpipe            Tokenizer.from_file(path).encode_batch_flat(docs, add_special_tokens,
                       num_threads=1 | N)  (delegation switched off: a tokenizer tagpipe would
                       hand to tokenizers is reported, not timed)
    tagpipe-wholespan  the same with MetaspaceRuns off (metaspace_runs=False)
    tokenizers         encode_batch_fast(docs, add_special_tokens) (no offsets), Encodings'
                       ids read untimed; serial with TOKENIZERS_PARALLELISM=false
    gigatoken          Tokenizer(path).backend.encode(doc)         encode_batch_padded(docs,
                       per document                                PadTruncate(0), parallel=True)
    fastokens          Tokenizer.from_file(path).encode_batch_flat(docs, add_special_tokens)
                       (FASTOKENS_BPE_THREADS=1 | N)
    snaptokens         Tokenizer.from_json_str(text).encode_batch_flat(docs, add_special_tokens)
                       (RAYON_NUM_THREADS=1 | N)
    splintr            from_json_bytes(data).encode_flat(doc)      .encode_batch_flat(docs)
                       per document                                (RAYON_NUM_THREADS=N)
    tuetoken           Tokenizer(path).encode_ordinary_to_buffer(docs, num_threads=1 | N)
    toktok             its bundled o200k_base: encode_batch_to_numpy(docs, threads=1 | N); only
                       for a tokenizer.json with o200k's vocabulary and special tokens
    nanotoken          Tokenizer(path).encode_batch(docs, add_special_tokens=..., parallel=False
                       | True); WordPiece only
    tiktoken           an Encoding built from the tokenizer.json's own byte-level vocabulary
                       (it cannot download its encodings here); encode_to_numpy per document,
                       over a thread pool of N for N threads (as its encode_batch does)

Special tokens (SPECIAL): "both" engines take add_special_tokens; "never" ones never add a
post-processor's tokens (BOS, [CLS] ...); "always" ones always do -- splintr 0.22 applies the
template on every call (llama2's BOS, BERT's [CLS]/[SEP]).  `choose_special` picks one setting
every selected engine can run; `cannot_run` names the others (reported as n/a).
"""

from __future__ import annotations

import importlib
import json
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from tagpipe.pretokenizer import BYTE_CHARS

SPECIAL = {
    "tagpipe": "both",
    "tagpipe-wholespan": "both",
    "tokenizers": "both",
    "gigatoken": "never",
    "fastokens": "both",
    "snaptokens": "both",
    "splintr": "always",
    "tuetoken": "never",
    "toktok": "never",
    "nanotoken": "both",
    "tiktoken": "never",
}
DISTRIBUTIONS = {"splintr": "splintr-rs", "toktok": "toktok-rs", "tagpipe-wholespan": "tagpipe"}


class Skip(Exception):
    """An engine that cannot be timed here: not installed, cannot load the tokenizer, n/a."""


class Clock:
    """`with clock:` around an engine's own call; sums the wall time of those calls only, and
    the process's CPU time (all threads) over them (`cpu`: how many cores the calls used)."""

    def __init__(self) -> None:
        self.ns = self.cpu = 0

    def __enter__(self) -> "Clock":
        self.c0 = time.process_time_ns()
        self.t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc) -> None:
        self.ns += time.perf_counter_ns() - self.t0
        self.cpu += time.process_time_ns() - self.c0


def flat(arrays) -> tuple[np.ndarray, np.ndarray]:
    """Per-document id arrays as (uint32 ids, int64 offsets)."""
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=offsets[1:])
    ids = np.concatenate(arrays).astype(np.uint32, copy=False) if arrays else np.zeros(0, np.uint32)
    return ids, offsets


def from_bytes(ids: bytes, offsets: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(little-endian uint32 ids, uint64 offsets) as bytes -> arrays."""
    return np.frombuffer(ids, dtype=np.uint32), np.frombuffer(offsets, dtype=np.uint64).astype(np.int64)


def version(kind: str) -> str:
    """The installed distribution's version ("tagpipe 0.1.0 (source tree)" when run from one)."""
    dist = DISTRIBUTIONS.get(kind, kind)
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        if dist == "tagpipe":
            from tagpipe import __version__

            return f"tagpipe {__version__} (source tree)"
        return f"{dist} not installed"


def _import(name: str, dist: str = "") -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skip(f"not installed (pip install {dist or name})") from None


def _cannot_load(e: Exception) -> Skip:
    return Skip(f"cannot load this tokenizer: {type(e).__name__}: {str(e)[:120]}")


class Driver:
    """The shared part: what `run` returns, per document or per batch."""

    kind = ""

    def per_document(self, encode, docs, clock, convert=np.asarray) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for d in docs:
            with clock:
                a = encode(d)
            out.append(convert(a))
        return flat(out)


class TagpipeDriver(Driver):
    OPTIONS: dict = {}

    def __init__(self, path: str, special: bool, threads: int):
        try:
            import tagpipe
        except ImportError as e:
            raise Skip(f"missing: tagpipe does not import ({e})") from None
        try:
            with tagpipe.delegation_disabled():
                self.tok = tagpipe.Tokenizer.from_file(path, **self.OPTIONS)
        except tagpipe.DelegationError as e:
            raise Skip(f"delegates: to the oracle ({e})") from None
        except Exception as e:  # noqa: BLE001
            raise Skip(f"cannot load: {type(e).__name__}: {str(e)[:120]}") from None
        self.special, self.threads = special, threads

    def run(self, docs, clock):
        with clock:
            ids, offsets = self.tok.encode_batch_flat(docs, add_special_tokens=self.special, num_threads=self.threads)
        return np.asarray(ids, dtype=np.uint32), np.asarray(offsets, dtype=np.int64)


class WholeSpanDriver(TagpipeDriver):
    """tagpipe with MetaspaceRuns off: the same BPE and cache, only the splitter swapped."""

    OPTIONS = {"metaspace_runs": False}


class TokenizersDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        tokenizers = _import("tokenizers")
        try:
            self.tok = tokenizers.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.call = getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)
        self.special = special

    def run(self, docs, clock):
        with clock:
            encodings = self.call(docs, add_special_tokens=self.special)
        return flat([np.asarray(e.ids, dtype=np.uint32) for e in encodings])


class GigatokenDriver(Driver):
    """encode_batch (an awkward Array) spends ~0.25 ms a call in ak.unflatten, so the list-free
    forms.  parallel=True cuts a batch into chunks of at least 1 MiB: a round of ~600 kB stays
    on one core, so its N-thread column is its one-thread speed (gigatoken's property)."""

    def __init__(self, path: str, special: bool, threads: int):
        gigatoken = _import("gigatoken")
        try:
            self.tok = gigatoken.Tokenizer(path).backend
            self.pad = gigatoken.gigatoken_rs.PadTruncate(0)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.threads = threads

    def run(self, docs, clock):
        if self.threads == 1:
            return self.per_document(self.tok.encode, docs, clock)
        with clock:
            matrix, lengths = self.tok.encode_batch_padded(docs, self.pad, parallel=True)
        return flat([row[:n] for row, n in zip(matrix, lengths)])


class FastokensDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        fastokens = _import("fastokens")
        try:
            self.tok = fastokens.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.special = special

    def run(self, docs, clock):
        with clock:
            ids, offsets = self.tok.encode_batch_flat(docs, add_special_tokens=self.special)
        return from_bytes(ids, offsets)


class SnaptokensDriver(FastokensDriver):
    """A fastokens fork: the same call, its pool is rayon's."""

    def __init__(self, path: str, special: bool, threads: int):
        snaptokens = _import("snaptokens")
        try:
            self.tok = snaptokens.Tokenizer.from_json_str(Path(path).read_text(encoding="utf-8"))
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.special = special


class SplintrDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        splintr = _import("splintr", "splintr-rs")
        try:
            self.tok = splintr.from_json_bytes(Path(path).read_bytes())
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.threads = threads

    def run(self, docs, clock):
        if self.threads == 1:
            return self.per_document(self.tok.encode_flat, docs, clock, lambda b: np.frombuffer(b, dtype=np.uint32))
        with clock:
            ids, offsets = self.tok.encode_batch_flat(docs)
        return from_bytes(ids, offsets)


class TuetokenDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        tuetoken = _import("tuetoken")
        try:
            self.tok = tuetoken.Tokenizer(path)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        self.threads = threads

    def run(self, docs, clock):
        with clock:
            out = self.tok.encode_ordinary_to_buffer(docs, num_threads=self.threads)
        return np.asarray(out["data"], dtype=np.uint32), np.asarray(out["offsets"], dtype=np.int64)


def byte_level_alphabet() -> dict[str, int]:
    """Byte-level BPE's printable stand-ins: vocabulary character -> the byte it stands for
    (the inverse of tagpipe.pretokenizer.BYTE_CHARS)."""
    return {c: b for b, c in enumerate(BYTE_CHARS)}


def byte_level_ranks(spec: dict, specials: dict) -> dict[bytes, int]:
    """A byte-level BPE vocabulary as tiktoken-style ranks (token bytes -> id), or Skip."""
    alphabet = byte_level_alphabet()
    vocab = (spec.get("model") or {}).get("vocab") or {}
    try:
        return {bytes(alphabet[c] for c in token): i for token, i in vocab.items() if token not in specials}
    except KeyError:
        raise Skip("n/a (the vocabulary is not in the byte-level alphabet)") from None


class ToktokDriver(Driver):
    """toktok serves its bundled encodings only: o200k_base, when the tokenizer.json's
    vocabulary and special tokens are o200k's (the largest id, the special tokens and every
    997th token's bytes compared)."""

    def __init__(self, path: str, special: bool, threads: int):
        toktok = _import("toktok", "toktok-rs")
        try:
            self.enc = toktok._encoding("o200k_base")  # (its full encode surface; batch_count is its public one)
        except Exception as e:  # noqa: BLE001
            raise _cannot_load(e) from None
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
        specials = {t["content"]: t["id"] for t in spec.get("added_tokens") or []}
        ranks = {i: b for b, i in byte_level_ranks(spec, specials).items()}
        top = max(list(ranks) + list(specials.values()), default=-1)
        if (
            top != self.enc.max_token_value
            or dict(self.enc.special_tokens()) != specials
            or any(self.enc.decode_single_token_bytes(i) != ranks[i] for i in range(0, len(ranks), 997) if i in ranks)
        ):
            raise Skip("n/a (serves only its bundled o200k_base; this is another vocabulary)")
        self.threads = threads

    def run(self, docs, clock):
        with clock:
            ids, offsets = self.enc.encode_batch_to_numpy(docs, threads=self.threads)
        return np.asarray(ids, dtype=np.uint32), np.asarray(offsets, dtype=np.int64)


class NanotokenDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        nanotoken = _import("nanotoken")
        try:
            self.tok = nanotoken.Tokenizer(path)
        except Exception as e:  # noqa: BLE001 (UnsupportedTokenizerError: not WordPiece)
            raise _cannot_load(e) from None
        self.special, self.parallel = special, threads > 1

    def run(self, docs, clock):
        with clock:
            out = self.tok.encode_batch(docs, add_special_tokens=self.special, parallel=self.parallel)
        return np.asarray(out.ids, dtype=np.uint32), np.asarray(out.offsets, dtype=np.int64)


GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _split_pattern(spec: dict) -> str:
    """The one regex of a byte-level pre-tokenizer, as tiktoken applies it, or Skip."""
    pre = spec.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    if (
        len(steps) == 1
        and steps[0].get("type") == "ByteLevel"
        and steps[0].get("use_regex", True)
        and not steps[0].get("add_prefix_space")
    ):
        return GPT2_SPLIT
    if (
        len(steps) == 2
        and steps[0].get("type") == "Split"
        and "Regex" in (steps[0].get("pattern") or {})
        # tiktoken keeps the matches of its regex and drops the text between them
        and (steps[0].get("behavior"), bool(steps[0].get("invert"))) in {("Isolated", False), ("Removed", True)}
        and steps[1].get("type") == "ByteLevel"
        and not steps[1].get("use_regex", True)
        and not steps[1].get("add_prefix_space")
    ):
        return steps[0]["pattern"]["Regex"]
    raise Skip("n/a (the pre-tokenizer is not one regex + byte-level)")


def _merges_in_id_order(model: dict) -> None:
    """tiktoken merges by the rank (= id) of the result, tokenizers by the merge's position:
    the same when new results come in id order (later merges that make a token again, as in
    vocabularies converted from tiktoken, are its other splits); else Skip."""
    vocab, last, seen = model.get("vocab") or {}, -1, set()
    for merge in model.get("merges") or []:
        a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
        i = vocab.get(a + b)
        if i is None or (i <= last and i not in seen):
            raise Skip("n/a (the merges are not in id order)")
        last = max(last, i)
        seen.add(i)


def tiktoken_encoding(path: str):
    """A tiktoken Encoding that gives the same ids as a tokenizer.json, when the model is a
    plain byte-level BPE (no normalizer, one split regex) whose merges come in id order; else
    Skip("n/a ...")."""
    tiktoken = _import("tiktoken")
    spec = json.loads(Path(path).read_text(encoding="utf-8"))
    model = spec.get("model") or {}
    if (
        model.get("type", "BPE") != "BPE"
        or spec.get("normalizer")
        or model.get("byte_fallback")
        or model.get("dropout")
        or model.get("continuing_subword_prefix")
        or model.get("end_of_word_suffix")
    ):
        raise Skip("n/a (not a plain byte-level BPE without normalizer)")
    pattern = _split_pattern(spec)
    added = spec.get("added_tokens") or []
    if any(t.get("lstrip") or t.get("rstrip") or t.get("single_word") for t in added):
        raise Skip("n/a (added tokens with lstrip/rstrip/single_word)")
    # added tokens are matched in the text first, as tiktoken does with its special tokens
    specials = {t["content"]: t["id"] for t in added}
    ranks = byte_level_ranks(spec, specials)
    _merges_in_id_order(model)
    try:
        return tiktoken.Encoding(
            f"tagpipe-bench:{path}", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials
        )
    except Exception as e:  # noqa: BLE001
        raise _cannot_load(e) from None


class TiktokenDriver(Driver):
    def __init__(self, path: str, special: bool, threads: int):
        self.enc = tiktoken_encoding(path)
        self.pool = None
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(threads)

    def one(self, doc):
        return self.enc.encode_to_numpy(doc, allowed_special="all")

    def run(self, docs, clock):
        if self.pool is None:
            return self.per_document(self.one, docs, clock)
        with clock:
            out = list(self.pool.map(self.one, docs))
        return flat(out)


DRIVERS = {
    "tagpipe": TagpipeDriver,
    "tagpipe-wholespan": WholeSpanDriver,
    "tokenizers": TokenizersDriver,
    "gigatoken": GigatokenDriver,
    "fastokens": FastokensDriver,
    "snaptokens": SnaptokensDriver,
    "splintr": SplintrDriver,
    "tuetoken": TuetokenDriver,
    "toktok": ToktokDriver,
    "nanotoken": NanotokenDriver,
    "tiktoken": TiktokenDriver,
}
ENGINES = list(DRIVERS)
PEERS = ["gigatoken", "fastokens", "snaptokens", "splintr", "tuetoken", "toktok", "nanotoken"]  # exact, PEERS.md


def cannot_run(kind: str, special: bool, adds: bool) -> str:
    """Why `kind` cannot run add_special_tokens=`special` on a tokenizer whose post-processor
    `adds` tokens or not ("" when it can)."""
    can = SPECIAL[kind]
    if adds and can == "never" and special:
        return "n/a (cannot add the special tokens)"
    if adds and can == "always" and not special:
        return "n/a (always adds the post-processor's tokens)"
    return ""


def choose_special(kinds, adds: bool, setting: str = "auto") -> tuple[bool, str]:
    """(add_special_tokens, why) for a run in which every engine takes the same setting:
    "true" / "false", or "auto": True wherever that is the same work for every selected
    engine, else False (the engines that cannot run it are then reported as n/a)."""
    if setting != "auto":
        return setting == "true", "set with --special"
    if not adds:
        return True, "the post-processor adds nothing (True and False give the same ids)"
    never = [k for k in kinds if SPECIAL[k] == "never"]
    if not never:
        return True, "every engine adds the post-processor's tokens"
    return False, f"on every engine, because the post-processor adds tokens and {', '.join(never)} cannot"
