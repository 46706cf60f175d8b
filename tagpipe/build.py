"""From a tokenizer.json to the native encoder: which stages run natively -- the `Plan` that
`Tokenizer.explain()` prints, with the reason for each delegated stage -- and the spec the C++
`Encoder` is built from (normalizer steps, pre-tokenizer stages, model, added tokens, the
post-processor's special tokens), with the truncation and padding `tagpipe.postprocess` applies.

One function per stage of the file, in pipeline order: `plan_normalizer`, the pre-tokenizer
(`tagpipe.plan`), `_plan_model`, `_post_ids`, `_added_tokens`; `build` puts them together.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any, Optional

import numpy as np

from tagpipe import _core
from tagpipe.metaspace import metaspace_runs
from tagpipe.plan import Plan, Step, plan_pre_tokenizer
from tagpipe.postprocess import PostProcess, plan_post_process


def canonical(text: str) -> dict[str, Any]:
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


def plan_normalizer(node: Optional[dict[str, Any]], path: str, plan: Plan, steps: list) -> None:
    if node is None:
        return
    kind = node["type"]
    if kind == "Sequence":
        for i, child in enumerate(node["normalizers"]):
            plan_normalizer(child, f"{path}.normalizers[{i}]", plan, steps)
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


def _absent_char(norm_steps: list) -> Optional[str]:
    """A character no normalized text holds: the normalizer's last step replaces every one
    of it by a string without it (gemma-3: Replace(' ' -> '▁')); None if there is none."""
    if not norm_steps or norm_steps[-1][0] != "replace":
        return None
    _, gone, written = norm_steps[-1]
    return gone if len(gone) == 1 and gone not in written else None


def build(canon: dict[str, Any], cache_bytes: int, use_metaspace_runs: bool = True
           ) -> tuple[Plan, Optional[dict[str, Any]], PostProcess]:
    """The plan, the native encoder's spec (None: delegated) and the truncation and padding."""
    plan = Plan()
    norm_steps: list = []
    plan_normalizer(canon.get("normalizer"), "normalizer", plan, norm_steps)
    pre = plan_pre_tokenizer(canon.get("pre_tokenizer"), absent=_absent_char(norm_steps))
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


def id_bound(canon: dict[str, Any]) -> int:
    """One more than the largest id the tokenizer can produce (model vocabulary and added
    tokens): what `tokenizers`' get_vocab_size(with_added_tokens=True) is for dense vocabularies."""
    vocab = canon["model"].get("vocab") or {}
    top = max(vocab.values(), default=-1) if isinstance(vocab, dict) else len(vocab) - 1  # Unigram: a list
    return max([top] + [t["id"] for t in canon.get("added_tokens") or []]) + 1
