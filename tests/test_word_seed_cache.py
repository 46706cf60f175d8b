"""The word seed as the word cache's starting content (cpp/model/word_seed.h,
WordCache::take_seed): past its first small table a cache holds every vocabulary string that
is its own token, verified at load by the exact BPE, so such a piece is a hit and never goes
to the model.  The ids must stay the oracle's for every vocabulary string of 1..15 bytes --
those in the seed (answered by the seeded table) and those not in it (a seeded cache's miss
goes to BPE without asking the seed again) -- for every shared BPE tokenizer; after an
explicit clear, and through wipes the budget forces.

Each vocabulary string is made a piece of its own: the tokenizer's pre-tokenizer becomes a
Split on a separator character (then ByteLevel without its regex, for byte-level models),
with no normalizer or post-processor, on both sides.
"""

from __future__ import annotations

import json
import random

import pytest
import tokenizers

import tagpipe
from tagpipe.pretokenizer import BYTE_CHARS

from support.data import SHARED, needs_shared

SEP = "\x01"
BPE_MODELS = [
    "gpt2",
    "gpt2-new-format",
    "llama3",
    "gpt-4o",
    "qwen3",
    "deepseek-v3",
    "falcon-7b",
    "gpt-neox-20b",
    "phi-2",
    "roberta-base",
    "llama2",
    "mistral-7b-v0.1",
    "gemma3",
    "wiki-bpe-whitespace",
]


def _has_byte_level(step) -> bool:
    if not step:
        return False
    if step.get("type") == "ByteLevel":
        return True
    return any(_has_byte_level(s) for s in step.get("pretokenizers", []))


def _one_piece_per_string(doc: dict) -> tuple[str, bool]:
    """The tokenizer.json with a pre-tokenizer that makes each SEP-separated string a piece."""
    byte_level = _has_byte_level(doc.get("pre_tokenizer"))
    split = {"type": "Split", "pattern": {"String": SEP}, "behavior": "Removed", "invert": False}
    steps = [split]
    if byte_level:
        steps.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    doc = dict(doc, normalizer=None, post_processor=None, pre_tokenizer={"type": "Sequence", "pretokenizers": steps})
    return json.dumps(doc), byte_level


def _vocab_texts(doc: dict, byte_level: bool) -> list[str]:
    """Every vocabulary string of 1..15 bytes as the text that is that piece (byte-level
    strings whose bytes are not UTF-8 cannot be a text's piece: left out)."""
    byte_of = {c: b for b, c in enumerate(BYTE_CHARS)}
    out = []
    for s in sorted(doc["model"]["vocab"]):
        if byte_level:
            if any(c not in byte_of for c in s):
                continue
            try:
                s = bytes(byte_of[c] for c in s).decode("utf-8")
            except UnicodeDecodeError:
                continue
        if 1 <= len(s.encode()) <= 15 and SEP not in s:
            out.append(s)
    return out


def _docs(texts: list[str], per_doc: int = 4000) -> list[str]:
    return [SEP.join(texts[i : i + per_doc]) for i in range(0, len(texts), per_doc)]


def _load(name: str, **kwargs):
    doc = json.loads((SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))
    if doc["model"].get("type", "BPE") != "BPE" or "merges" not in doc["model"]:
        pytest.skip(f"{name}: not BPE")
    text, byte_level = _one_piece_per_string(doc)
    oracle = tokenizers.Tokenizer.from_str(text)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(text, **kwargs)
    return tok, oracle, _docs(_vocab_texts(doc, byte_level))


@needs_shared
@pytest.mark.parametrize("name", BPE_MODELS)
def test_every_short_vocabulary_string_through_a_seeded_cache(name):
    tok, oracle, docs = _load(name)
    assert tok._native.seed_size > 0
    want = [e.ids for e in oracle.encode_batch(docs, add_special_tokens=False)]
    with tagpipe.delegation_disabled():
        # (one thread, one cache: past the first few hundred strings it holds the seed)
        assert tok.encode_batch(docs, add_special_tokens=False, num_threads=1) == want
        assert tok.encode_batch(docs, add_special_tokens=False, num_threads=1) == want  # (now all hits)
        tok._native.clear_cache()  # (starts small, takes the seed again as it grows)
        assert [tok.encode(d, add_special_tokens=False) for d in reversed(docs)] == want[::-1]
        assert tok.encode_batch(docs, add_special_tokens=False, num_threads=2) == want


def _random_words(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return list({"".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9))) for _ in range(n)})


@needs_shared
def test_budget_wipes_restart_from_the_seed_exactly():
    """A budget the seed fits (a quarter of it) but new words overflow: the cache is wiped
    and restarts from the seed, again and again, and every id -- of new words and of every
    vocabulary string -- stays the oracle's; the cache never holds more than the budget."""
    budget = 20 << 20
    tok, oracle, docs = _load("gpt2", cache_bytes=budget)
    words = _docs(_random_words(400_000, seed=41))
    docs = [d for pair in zip(words, docs + [""] * len(words)) for d in pair if d]
    want = [e.ids for e in oracle.encode_batch(docs, add_special_tokens=False)]
    peak = 0
    with tagpipe.delegation_disabled():
        for d, w in zip(docs, want):
            assert tok.encode(d, add_special_tokens=False) == w
            peak = max(peak, tok.cache_used)
    assert 4 << 20 < peak <= budget
