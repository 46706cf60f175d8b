"""Tokenizer: a tokenizer.json encoded natively, id for id with `tokenizers`.

    >>> tok = tagpipe.Tokenizer.from_file("tokenizer.json")
    >>> tok.encode("Hello world")             # list[int], the same ids as tokenizers
    >>> tok.encode_to_numpy("Hello world")    # uint32 array, no Python list
    >>> tok.encode_batch_flat(texts)          # (ids uint32[N], offsets int64[n+1]), all cores
    >>> tok.encode_arrow(pa_string_array)     # Arrow list<uint32>; Arrow/numpy/pandas input
    >>> print(tok.explain())                  # every stage: native or delegated, and why

Every stage runs in C++ when tagpipe runs all of them exactly; otherwise the whole call
goes to `tokenizers` (correct first) and `explain()` says why.  Under
`tagpipe.delegation_disabled()` (or TAGPIPE_DELEGATION=error) a delegation raises
instead.  A text whose normalization tagpipe cannot prove to be the identity (NFC on a
text that is not NFC-inert) is delegated per call.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from tagpipe import _core
from tagpipe._delegate import DelegationError, delegation_allowed, oracle
from tagpipe.metaspace import metaspace_runs
from tagpipe.plan import Plan, Step, plan_pre_tokenizer
from tagpipe.postprocess import PostProcess, plan_post_process
from tagpipe.pretokenizer import _utf8
from tagpipe.spec import TokenizerJsonError

DEFAULT_CACHE_BYTES = 128 << 20  # the word cache budget, all threads of one Tokenizer together
ENV_CACHE = "TAGPIPE_CACHE_BYTES"


def _default_cache_bytes() -> int:
    value = os.environ.get(ENV_CACHE)
    if value is None:
        return DEFAULT_CACHE_BYTES
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"{ENV_CACHE}={value!r} is not a number of bytes") from None
    if n < 0:
        raise ValueError(f"{ENV_CACHE}={value!r} must not be negative")
    return n


def _canonical(text: str) -> dict[str, Any]:
    """The file as the oracle would write it back: every default explicit, legacy forms
    resolved -- but a BPE model's vocab and merges as the oracle encodes with them: the file's
    vocab as it is, and the merges as their (left, right, result) ids (`BPE.merge_ids`).
    Raises TokenizerJsonError (a ValueError naming the JSON path)."""
    from tagpipe import spec

    loaded = spec.load_tokenizer_json(text)
    canon = loaded.to_json(model=False)
    model = loaded.model
    if isinstance(model, spec.BPE):
        # Duplicate ids: the oracle *writes* one token per id, but encodes with every token of
        # the file (each with its id) and merges by those tokens' ids.  (Nor is writing them
        # out free: 300,000 merges took half a second.)
        canon["model"] = {**model.settings_json(), "vocab": model.vocab, "merges": model.merge_ids}
    else:
        canon["model"] = model.to_json()
    return canon


# -- the plan: which stages are native -----------------------------------------------------------


def _plan_normalizer(node: Optional[dict[str, Any]], path: str, plan: Plan, steps: list) -> None:
    if node is None:
        return
    kind = node["type"]
    if kind == "Sequence":
        for i, child in enumerate(node["normalizers"]):
            _plan_normalizer(child, f"{path}.normalizers[{i}]", plan, steps)
        return
    if kind == "Prepend":
        steps.append(("prepend", node["prepend"], ""))
        plan.steps.append(Step(path, f"Prepend({node['prepend']!r})", True, "native"))
    elif kind == "Replace" and "String" in node["pattern"] and node["pattern"]["String"]:
        steps.append(("replace", node["pattern"]["String"], node["content"]))
        plan.steps.append(Step(path, f"Replace({node['pattern']['String']!r} -> {node['content']!r})", True,
                               "literal search"))
    elif kind == "Replace" and node["pattern"].get("Regex") == " {2,}":
        steps.append(("space_runs", "", node["content"]))
        plan.steps.append(Step(path, f"Replace(Regex(' {{2,}}') -> {node['content']!r})", True,
                               "runs of two or more spaces"))
    elif kind == "NFC":
        steps.append(("nfc", "", ""))
        plan.steps.append(Step(path, "NFC", True, "identity on NFC-inert text (quick check); "
                                                   "other texts are delegated per call"))
    elif kind == "NFKC":
        steps.append(("nfkc", "", ""))
        plan.steps.append(Step(path, "NFKC", True, "identity on NFKC-inert text (quick check); "
                                                    "other texts are delegated per call"))
    elif kind in _UNICODE_NORMALIZERS:
        _add_unicode(steps, _UNICODE_NORMALIZERS[kind])
        plan.steps.append(Step(path, kind, True, "oracle-derived character tables"))
    elif kind == "BertNormalizer":
        lowercase = bool(node.get("lowercase", True))
        strip = node.get("strip_accents")
        strip = lowercase if strip is None else bool(strip)  # strip_accents.unwrap_or(lowercase)
        options = {"clean_text": bool(node.get("clean_text", True)),
                   "chinese": bool(node.get("handle_chinese_chars", True)),
                   "lowercase": lowercase}
        if strip:
            options |= {"decompose": "nfd", "drop": "bert_mn"}
        _add_unicode(steps, options)
        flags = ", ".join(k for k, v in (("clean_text", options["clean_text"]), ("chinese", options["chinese"]),
                                         ("strip_accents", strip), ("lowercase", lowercase)) if v)
        plan.steps.append(Step(path, f"BertNormalizer({flags})", True, "oracle-derived character tables"))
    elif kind == "Strip":
        left, right = bool(node.get("strip_left", True)), bool(node.get("strip_right", True))
        steps.append(("strip", "", "", {"left": left, "right": right}))
        plan.steps.append(Step(path, f"Strip(left={left}, right={right})", True, "native"))
    elif kind == "Precompiled" and int.from_bytes((blob := _charsmap(
            node.get("precompiled_charsmap"), f"{path}.precompiled_charsmap"))[:4], "little") < 4:
        plan.steps.append(Step(path, "Precompiled", False, "the charsmap's trie is empty (the oracle "
                                                             "panics on every text)"))
    elif kind == "Precompiled":
        steps.append(("precompiled", blob, ""))
        plan.steps.append(Step(path, f"Precompiled({len(blob)} bytes)", True,
                               "character by character; a text where a grapheme cluster could "
                               "change the result is delegated per call"))
    else:
        plan.steps.append(Step(path, kind, False, f"no native {kind} normalizer yet"))


# Normalizers that are one unicode pass of cpp/normalize (its options).
_UNICODE_NORMALIZERS: dict[str, dict[str, Any]] = {
    "Lowercase": {"lowercase": True},
    "StripAccents": {"drop_after": "mark"},
    "NFD": {"decompose": "nfd"},
    "NFKD": {"decompose": "nfkd"},
}
# The order of the stages inside one unicode pass (cpp/normalize/normalize.h UnicodeOptions).
_UNICODE_STAGES = ["clean_text", "chinese", "decompose", "drop", "lowercase", "drop_after"]


def _add_unicode(steps: list, options: dict[str, Any]) -> None:
    """Appends a unicode pass, fused into the previous one when all its stages come after
    that one's (NFD, Lowercase, StripAccents: one pass that does the three in order)."""
    def stages(o: dict[str, Any]) -> list[int]:
        return [_UNICODE_STAGES.index(k) for k, v in o.items() if v] or [-1]

    if steps and steps[-1][0] == "unicode":
        prev = steps[-1][3]
        if min(stages(options)) > max(stages(prev)):
            steps[-1] = ("unicode", "", "", {**prev, **options})
            return
    steps.append(("unicode", "", "", dict(options)))


def _charsmap(value: Any, path: str) -> bytes:
    """The decoded precompiled_charsmap, checked as spm_precompiled checks it at load
    (tagpipe.spec has checked a whole file already; this guards direct callers)."""
    if not isinstance(value, str):
        raise ValueError(f"{path}: expected a base64 string, got {type(value).__name__}")
    try:
        blob = base64.b64decode(value, validate=True)
    except binascii.Error as e:
        raise ValueError(f"{path}: not base64 ({e})") from None
    if len(blob) < 4:
        raise ValueError(f"{path}: shorter than its trie size")
    trie = int.from_bytes(blob[:4], "little") // 4 * 4
    if len(blob) - 4 < trie:
        raise ValueError(f"{path}: trie size {trie} does not fit in {len(blob) - 4} bytes")
    try:
        blob[4 + trie:].decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: replacement strings are not UTF-8 ({e})") from None
    return blob


def _post_ids(node: Optional[dict[str, Any]], path: str, plan: Plan) -> tuple[list[int], list[int]]:
    """The special-token ids the post-processor puts around one sequence."""
    if node is None:
        return [], []
    kind = node["type"]
    if kind == "ByteLevel":
        return [], []
    if kind in ("BertProcessing", "RobertaProcessing"):
        return [node["cls"][1]], [node["sep"][1]]
    if kind == "TemplateProcessing":
        before, after, seen = [], [], False
        for piece in node["single"]:
            if "Sequence" in piece:
                seen = True
                continue
            ids = node["special_tokens"][piece["SpecialToken"]["id"]]["ids"]
            (after if seen else before).extend(ids)
        return before, after
    if kind == "Sequence":
        before, after = [], []
        for i, child in enumerate(node["processors"]):
            b, a = _post_ids(child, f"{path}.processors[{i}]", plan)
            before, after = b + before, after + a
        return before, after
    plan.steps.append(Step(path, kind, False, f"no native {kind} post-processor yet"))
    return [], []


def _added_tokens(tokens: list[dict[str, Any]], vocab: dict[str, int], vocab_size: Optional[int] = None
                  ) -> list[tuple[dict[str, Any], int]]:
    """The added tokens and their ids, as AddedVocabulary::add_tokens assigns them at load
    (the "id" in the file is only checked, with a warning): a content already known keeps
    its id (added tokens first, then the model's vocabulary), a new one takes the next id
    from the model's get_vocab_size() (`vocab_size`, default len(vocab)); an exact duplicate
    is ignored; a later token replaces an earlier one with the same id."""
    by_content: dict[str, int] = {}
    by_id: dict[int, dict[str, Any]] = {}
    next_id = len(vocab) if vocab_size is None else vocab_size
    for t in tokens:
        token = {k: t[k] for k in ("content", "single_word", "lstrip", "rstrip", "normalized", "special")}
        content = token["content"]
        if not content:
            continue
        if content in by_content and by_id.get(by_content[content]) == token:
            continue
        new_id = by_content.get(content, vocab.get(content))
        if new_id is None:
            new_id, next_id = next_id, next_id + 1
        by_content[content] = new_id
        by_id[new_id] = token
    return [(t, i) for i, t in by_id.items()]


# -- the model ----------------------------------------------------------------------------------


def _plan_model(model: dict[str, Any], pre_stages: list[dict[str, Any]], cache_bytes: int, plan: Plan) -> None:
    """The explain() line of the model: native, or delegated and why."""
    kind = model["type"]
    cache = f"word cache {cache_bytes >> 20} MiB"
    if kind != "BPE" and any(st.get("kind") == "byte_level" for st in pre_stages):
        # (the native ByteLevel pre-tokenizer hands raw bytes to BPE, which maps them itself)
        plan.steps.append(Step("model", kind, False, "a ByteLevel pre-tokenizer before a non-BPE model "
                                                     "is not native"))
    elif kind == "BPE":
        if model.get("dropout"):
            plan.steps.append(Step("model", "BPE", False, "dropout is random: delegated"))
        elif model.get("unk_token") is not None and model["unk_token"] not in model["vocab"]:
            plan.steps.append(Step("model", "BPE", False, "unk_token is not in the vocabulary (the oracle "
                                                           "fails on the first unknown character)"))
        else:
            plan.steps.append(Step("model", f"BPE({len(model['vocab'])} tokens, {len(model['merges'])} merges)",
                                   True, "native, " + cache))
    elif kind == "WordPiece":
        plan.steps.append(Step("model", f"WordPiece({len(model['vocab'])} tokens, "
                                        f"prefix {model['continuing_subword_prefix']!r}, "
                                        f"max {model['max_input_chars_per_word']} chars)",
                               True, "greedy longest match on a byte trie, " + cache + _unk_note(model)))
    elif kind == "WordLevel":
        plan.steps.append(Step("model", f"WordLevel({len(model['vocab'])} tokens)", True,
                               "vocabulary lookup, " + cache + _unk_note(model)))
    elif kind == "Unigram":
        extra = ", byte_fallback" if model.get("byte_fallback") else ""
        plan.steps.append(Step("model", f"Unigram({len(model['vocab'])} pieces, unk_id {model.get('unk_id')}{extra})",
                               True, "Viterbi on a byte trie (the oracle's encode_optimized), " + cache))
    else:
        plan.steps.append(Step("model", kind, False, f"no native {kind} model"))


def _unk_note(model: dict[str, Any]) -> str:
    if model["unk_token"] in model["vocab"]:
        return ""
    return (f"; unk_token {model['unk_token']!r} is not in the vocabulary: a text with an unknown piece "
            "is delegated, and the oracle raises")


def _model_vocab(model: dict[str, Any]) -> tuple[dict[str, int], int]:
    """The model's token -> id map (a repeated Unigram piece: its last id) and its
    get_vocab_size() (Unigram: the number of pieces, repeats included)."""
    if model["type"] == "Unigram":
        pieces = model["vocab"]
        return {p: i for i, (p, _) in enumerate(pieces)}, len(pieces)
    return model["vocab"], len(model["vocab"])


def _model_spec(model: dict[str, Any], vocab: dict[str, int]) -> dict[str, Any]:
    """The model's part of the native spec: "vocab", "merges", "bpe" (the BPE slot: empty for
    the other models) and, for WordPiece / WordLevel / Unigram, "model"."""
    kind = model["type"]
    none_bpe = {"unk_id": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                "prefix": "", "suffix": ""}
    if kind == "BPE":
        unk = model.get("unk_token")
        return {"vocab": vocab, "merges": model["merges"],
                "bpe": {**none_bpe, "unk_id": vocab[unk] if unk is not None else None,
                        "fuse_unk": bool(model.get("fuse_unk")), "byte_fallback": bool(model.get("byte_fallback")),
                        "ignore_merges": bool(model.get("ignore_merges")),
                        "prefix": model.get("continuing_subword_prefix") or "",
                        "suffix": model.get("end_of_word_suffix") or ""}}
    empty = {"vocab": [], "merges": np.zeros((0, 3), dtype=np.uint32), "bpe": none_bpe}
    if kind == "WordPiece":
        native = {"type": "WordPiece", "vocab": vocab, "unk_id": vocab.get(model["unk_token"]),
                  "prefix": model["continuing_subword_prefix"], "max_chars": model["max_input_chars_per_word"]}
    elif kind == "WordLevel":
        native = {"type": "WordLevel", "vocab": vocab, "unk_id": vocab.get(model["unk_token"])}
    else:
        native = {"type": "Unigram", "pieces": [(p, float(s)) for p, s in model["vocab"]],
                  "unk_id": model.get("unk_id"), "byte_fallback": bool(model.get("byte_fallback"))}
    return {**empty, "model": native}


def _build(canon: dict[str, Any], cache_bytes: int, use_metaspace_runs: bool = True
           ) -> tuple[Plan, Optional[dict[str, Any]], PostProcess]:
    """The plan, the native encoder's spec (None: delegated) and the truncation and padding."""
    plan = Plan()
    norm_steps: list = []
    _plan_normalizer(canon.get("normalizer"), "normalizer", plan, norm_steps)
    pre = plan_pre_tokenizer(canon.get("pre_tokenizer"))
    plan.steps.extend(pre.steps)
    model = canon["model"]
    _plan_model(model, pre.stages, cache_bytes, plan)
    prefix_ids, suffix_ids = _post_ids(canon.get("post_processor"), "post_processor", plan)
    post = plan_post_process(canon, prefix_ids, suffix_ids, plan)
    if not plan.native:
        return plan, None, post
    runs, lines = metaspace_runs(canon, norm_steps, pre.stages)
    if runs and not use_metaspace_runs:
        runs, lines = None, [Step("MetaspaceRuns", "off", True, "disabled (metaspace_runs=False): "
                                  "the whole-span path")]
    plan.steps.extend(lines)
    pre_stages = pre.stages + ([runs] if runs else [])
    vocab, vocab_size = _model_vocab(model)
    raw, normalized = [], []
    for token, token_id in _added_tokens(canon.get("added_tokens") or [], vocab, vocab_size):
        entry = [token["content"], token_id, token["single_word"], token["lstrip"], token["rstrip"]]
        if token["normalized"]:
            form = _core.normalize(norm_steps, token["content"])
            if form is None:
                plan.steps.append(Step("added_tokens", token["content"], False,
                                       "its normalized form needs a normalization tagpipe does not run"))
                return plan, None, post
            entry[0] = form
            normalized.append(tuple(entry))
        else:
            raw.append(tuple(entry))
    spec = {
        "normalizer": norm_steps,
        "pre_tokenizer": pre_stages,
        **_model_spec(model, vocab),
        "raw_tokens": raw,
        "normalized_tokens": normalized,
        "prefix_ids": prefix_ids,
        "suffix_ids": suffix_ids,
        "cache_bytes": cache_bytes,
    }
    return plan, spec, post


def _unpickle(version: int, json_text: str, options: dict[str, Any]) -> "Tokenizer":
    if version != 1:
        raise ValueError(f"a tagpipe.Tokenizer pickled by a newer tagpipe (format {version})")
    return Tokenizer(json_text, **options)


def _id_bound(canon: dict[str, Any]) -> int:
    """One more than the largest id the tokenizer can produce (model vocabulary and added
    tokens): what `tokenizers`' get_vocab_size(with_added_tokens=True) is for dense vocabularies."""
    vocab = canon["model"].get("vocab") or {}
    top = max(vocab.values(), default=-1) if isinstance(vocab, dict) else len(vocab) - 1  # Unigram: a list
    return max([top] + [t["id"] for t in canon.get("added_tokens") or []]) + 1


# -- the tokenizer -----------------------------------------------------------------------------


class Tokenizer:
    """A tokenizer.json, encoded natively where every stage is native."""

    def __init__(self, json_text: str, *, cache_bytes: Optional[int] = None, metaspace_runs: bool = True):
        """`cache_bytes`: the word cache budget (default 128 MiB, or TAGPIPE_CACHE_BYTES);
        `metaspace_runs=False` keeps a never-cutting pipeline whole (tagpipe.metaspace)."""
        self._json = json_text
        canon = _canonical(json_text)
        self._options = {"cache_bytes": cache_bytes, "metaspace_runs": metaspace_runs}
        self._cache_bytes = _default_cache_bytes() if cache_bytes is None else int(cache_bytes)
        if self._cache_bytes < 0:
            raise ValueError("cache_bytes must not be negative")
        self.plan, spec, self._post = _build(canon, self._cache_bytes, metaspace_runs)
        self._vocab_size = _id_bound(canon)
        self._native = _core.Encoder(spec) if spec is not None else None
        # (the post-processor's tokens around one sequence, when native: tagpipe.accelerate)
        self._special_ids = (list(spec["prefix_ids"]), list(spec["suffix_ids"])) if spec is not None else ([], [])
        self._runs = spec is not None and any(st.get("kind") == "mark_runs" for st in spec["pre_tokenizer"])
        self._oracle = None
        if self._native is None and not delegation_allowed():
            raise DelegationError("this tokenizer would be delegated to tokenizers: " + "; ".join(self.plan.reasons()))

    def __reduce__(self):
        """Pickles as its tokenizer.json and options (small, rebuilt natively where unpickled:
        worker processes of datasets, Ray or Spark get the same ids)."""
        return (_unpickle, (1, self._json, dict(self._options)))

    # -- loading --
    @classmethod
    def from_file(cls, path: Union[str, os.PathLike], **kw) -> "Tokenizer":
        raw = Path(path).read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:  # the oracle refuses these files too
            raise TokenizerJsonError("", f"{path}: not UTF-8 (byte 0x{raw[e.start]:02X} at offset {e.start})") from None
        del raw  # (not held through the load: a big file would be in memory twice)
        return cls(text, **kw)

    @classmethod
    def from_str(cls, json_text: str, **kw) -> "Tokenizer":
        return cls(json_text, **kw)

    @classmethod
    def from_hf(cls, obj: Any, **kw) -> "Tokenizer":
        """From a `tokenizers.Tokenizer` or a transformers fast tokenizer."""
        backend = getattr(obj, "backend_tokenizer", obj)
        if not hasattr(backend, "to_str"):
            raise TypeError(f"from_hf expects a tokenizers.Tokenizer or a transformers fast tokenizer, "
                            f"got {type(obj).__name__}")
        return cls(backend.to_str(), **kw)

    # -- what runs where --
    @property
    def native(self) -> bool:
        return self._native is not None

    @property
    def metaspace_runs(self) -> bool:
        """Whether MetaspaceRuns cuts this tokenizer's never-cutting pipeline (see
        tagpipe.metaspace; explain() says why not)."""
        return self._runs

    def explain(self) -> str:
        head = "tagpipe: " + ("native" if self.native else "DELEGATED to tokenizers")
        return "\n".join([head] + ["  " + str(s) for s in self.plan.steps])

    def _oracle_tokenizer(self):
        if not delegation_allowed():  # checked on every call, not only the first
            raise DelegationError("this call would be delegated to tokenizers: " + "; ".join(self.plan.reasons())
                                  if not self.native else "this text needs a normalization tagpipe does not run, "
                                  "or an unknown piece meets a model without its unk token (the oracle raises)")
        if self._oracle is None:
            self._oracle = oracle().Tokenizer.from_str(self._json)
        return self._oracle

    def _delegate(self, text: str, add_special_tokens: bool) -> list[int]:
        try:
            return self._oracle_tokenizer().encode(text, add_special_tokens=add_special_tokens).ids
        except TypeError:  # tokenizers' word for a lone surrogate; ours names it
            _utf8(text)
            raise

    # -- encoding --
    def encode_to_numpy(self, text: str, add_special_tokens: bool = True) -> np.ndarray:
        """The ids of one text as a uint32 array (no Python list is built)."""
        if not isinstance(text, str):
            raise TypeError(f"encode expects str, got {type(text).__name__}")
        if self._native is not None:
            cut = self._post.native(add_special_tokens)
            try:
                ids = self._native.encode(text, add_special_tokens, *(cut or (-1, False)))
            except UnicodeEncodeError:
                _utf8(text)  # raises the clear ValueError
                raise
            if ids is not None and self._post.active:
                offsets = np.array([0, len(ids)], dtype=np.int64)
                if cut is None and self._post.failing(np.diff(offsets), add_special_tokens)[0]:
                    ids = None  # the oracle's error: it raises it
                else:
                    if cut is None:
                        ids, offsets = self._post.truncate(ids, offsets, add_special_tokens)
                    ids, _ = self._post.pad(ids, offsets)
            if ids is not None:
                return ids
        return np.asarray(self._delegate(text, add_special_tokens), dtype=np.uint32)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """The ids of one text, as tokenizers' ``encode(text).ids``."""
        return self.encode_to_numpy(text, add_special_tokens).tolist()

    def encode_batch_flat(self, texts: Sequence[str], add_special_tokens: bool = True,
                          num_threads: Optional[int] = None, *, nulls: str = "error"
                          ) -> tuple[np.ndarray, np.ndarray]:
        """All ids of many texts: (ids uint32[N], offsets int64[len(texts) + 1]); text i is
        ids[offsets[i]:offsets[i + 1]].  Runs on `num_threads` native threads (default: every
        core; one inside a data engine's worker process, see docs/distributed.md) with the
        GIL released.

        `texts`: a sequence of str, a numpy array of str (object or <U), a pandas Series,
        or a pyarrow StringArray / LargeStringArray / ChunkedArray -- Arrow columns are read
        from their buffers, with no Python str per row.  A null Arrow row raises ValueError
        naming it, unless ``nulls="null"``: then it has no ids (see `encode_arrow`)."""
        from tagpipe.integrations._columns import ArrowText, text_column

        column = text_column(texts, nulls)
        if isinstance(column, ArrowText):
            return self._encode_arrow_text(column, add_special_tokens, num_threads)
        texts = list(column)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"encode_batch expects str items, item {i} is {type(t).__name__}")
        threads = self._threads(num_threads)
        if self._native is None:
            return self._post.pad(*self._delegate_all(texts, add_special_tokens))
        cut = self._post.native(add_special_tokens)
        try:
            ids, offsets, delegate = self._native.encode_batch(texts, add_special_tokens, threads,
                                                               *(cut or (-1, False)))
        except UnicodeEncodeError:
            for t in texts:
                _utf8(t)
            raise
        return self._finish(ids, offsets, delegate, texts.__getitem__, add_special_tokens, cut=cut)

    @staticmethod
    def _threads(num_threads: Optional[int]) -> int:
        """None: every core -- or 1 inside a data engine's worker process (Spark, Ray, a
        process pool such as datasets' num_proc), where the engine already uses every core."""
        if num_threads is None:
            from tagpipe.integrations.base import default_threads

            return default_threads()
        threads = int(num_threads)
        if threads < 1:
            raise ValueError("num_threads must be at least 1")
        return threads

    def _delegate_all(self, texts: Sequence[str], add_special_tokens: bool) -> tuple[np.ndarray, np.ndarray]:
        parts = [np.asarray(self._delegate(t, add_special_tokens), dtype=np.uint32) for t in texts]
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=offsets[1:])
        return (np.concatenate(parts) if parts else np.zeros(0, np.uint32)), offsets

    def _finish(self, ids, offsets, delegate, text_of, add_special_tokens, live=None, cut=None):
        """A native batch's truncation (unless the encoder did it: `cut`, from
        PostProcess.native), its delegated texts' oracle ids (the oracle truncates and pads
        each), then the padding of the batch (rows not `live` -- null -- stay empty)."""
        if self._post.active and cut is None:
            delegate = delegate.astype(bool) | self._post.failing(np.diff(offsets), add_special_tokens)
            ids, offsets = self._post.truncate(ids, offsets, add_special_tokens)
        ids, offsets = self._splice_delegated(ids, offsets, delegate, text_of, add_special_tokens)
        return self._post.pad(ids, offsets, live)

    def _splice_delegated(self, ids, offsets, delegate, text_of, add_special_tokens):
        """Rare: texts whose normalization is not native come back empty and flagged; their
        oracle ids are spliced in (text_of(i) gives text i as a str)."""
        if not delegate.any():
            return ids, offsets
        parts = [ids[offsets[i]:offsets[i + 1]] if not delegate[i]
                 else np.asarray(self._delegate(text_of(i), add_special_tokens), dtype=np.uint32)
                 for i in range(len(delegate))]
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=offsets[1:])
        return (np.concatenate(parts) if parts else np.zeros(0, np.uint32)), offsets

    def _encode_arrow_text(self, column, add_special_tokens: bool, num_threads: Optional[int]):
        threads = self._threads(num_threads)
        live = None if column.null_mask is None else ~column.null_mask
        if self._native is None:
            rows = range(len(column)) if live is None else np.flatnonzero(live)
            texts = {int(i): column.text(int(i)) for i in rows}
            parts = [np.asarray(self._delegate(texts[i], add_special_tokens), dtype=np.uint32) if i in texts
                     else np.zeros(0, np.uint32) for i in range(len(column))]
            offsets = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum([len(p) for p in parts], out=offsets[1:])
            return self._post.pad(np.concatenate(parts) if parts else np.zeros(0, np.uint32), offsets, live)
        cut = self._post.native(add_special_tokens)
        ids, offsets, delegate = self._native.encode_spans(column.data, column.starts, column.ends,
                                                           add_special_tokens, threads, *(cut or (-1, False)))
        if live is not None and live.size and not live.all():  # null rows: no ids, not even specials
            lengths = np.diff(offsets)
            keep = np.repeat(live, lengths)
            ids = ids[keep]
            lengths[~live] = 0
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            delegate = delegate & live
        return self._finish(ids, offsets, delegate, column.text, add_special_tokens, live, cut=cut)

    def encode_arrow(self, texts: Any, add_special_tokens: bool = True, num_threads: Optional[int] = None,
                     *, nulls: str = "error") -> Any:
        """The ids of a text column as an Arrow ``list<uint32>`` array (``large_list`` past
        2**31 - 1 ids), built from the flat ids and offsets without a copy per row: what
        datasets, Ray Data and Spark store as is.  `texts` as for `encode_batch_flat`; with
        ``nulls="null"`` a null text gives a null row."""
        import pyarrow as pa

        from tagpipe.integrations._columns import ArrowText, text_column

        column = text_column(texts, nulls)
        ids, offsets = (self._encode_arrow_text(column, add_special_tokens, num_threads)
                        if isinstance(column, ArrowText)
                        else self.encode_batch_flat(column, add_special_tokens, num_threads))
        mask = None
        if isinstance(column, ArrowText) and column.null_mask is not None:
            mask = pa.array(column.null_mask)
        values = pa.array(ids, type=pa.uint32())
        if offsets[-1] <= np.iinfo(np.int32).max:
            return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, mask=mask)
        return pa.LargeListArray.from_arrays(pa.array(offsets), values, mask=mask)

    def encode_batch(self, texts: Sequence[str], add_special_tokens: bool = True,
                     num_threads: Optional[int] = None) -> list[list[int]]:
        """The ids of each text (a list per text); `texts` as for `encode_batch_flat`."""
        ids, offsets = self.encode_batch_flat(texts, add_special_tokens, num_threads)
        flat = ids.tolist()
        return [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Delegated to tokenizers (decoding is not native yet)."""
        return self._oracle_tokenizer().decode(list(ids), skip_special_tokens=skip_special_tokens)

    def profile(self, texts: Sequence[str], add_special_tokens: bool = True) -> dict[str, float]:
        """Nanoseconds per byte of each stage -- normalize, split (added tokens and
        pre-tokenizer) and model (the word cache and the model: BPE, WordPiece, WordLevel or
        Unigram) -- encoding `texts` on one thread; and of the model's pieces, the share that
        missed the word cache (`miss_rate`) and the nanoseconds one such miss took
        (`ns_per_miss`: the model and the cache insert)."""
        if self._native is None:
            raise DelegationError("a delegated tokenizer has no native stages to profile")
        texts = list(texts)
        nbytes = max(1, sum(len(_utf8(t)) for t in texts))
        ns = self._native.profile(texts, add_special_tokens)
        out = {k: ns[k] / nbytes for k in ("normalize", "split", "model")}
        out["miss_rate"] = ns["misses"] / max(1, ns["pieces"])
        out["ns_per_miss"] = ns["miss_ns"] / max(1, ns["misses"])
        return out

    @property
    def vocab_size(self) -> int:
        """One more than the largest id an encode can return (vocabulary and added tokens)."""
        return self._vocab_size

    @property
    def cache_bytes(self) -> int:
        """The word cache budget (all threads together); ``cache_used`` is what it holds now."""
        return self._cache_bytes

    @property
    def cache_used(self) -> int:
        return self._native.cache_used if self._native is not None else 0
