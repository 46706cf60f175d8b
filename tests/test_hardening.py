"""Hardening: many Python threads on one tokenizer, concurrent loading, and the word cache
budget.  Every result is checked against the oracle's ids; every thread is joined with a
timeout (a deadlock fails the test instead of hanging the run).  Runs with the bundled GPT-2
alone; with ../shared it also uses llama3 and mixes several tokenizers."""

from __future__ import annotations

import random
import threading

import pytest
import tokenizers

import tagpipe
from tagpipe import cli

from support.data import SHARED

TIMEOUT = 180  # seconds for every thread of one test together
SHARED_NAMES = ["gpt2", "llama2", "llama3", "gpt-4o", "qwen3", "deepseek-v3", "mistral-7b-v0.1"]


def tokenizer_json(name: str) -> str:
    if name == "bundled-gpt2":
        return cli.bundled_tokenizer_json()
    return (SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8")


def names() -> list[str]:
    if SHARED is None:
        return ["bundled-gpt2"]
    return [n for n in SHARED_NAMES if (SHARED / "tokenizers" / n / "tokenizer.json").exists()]


def unique_words(n: int, seed: int) -> list[str]:
    """Texts of words that (nearly) never repeat: every piece is a cache miss."""
    rnd = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzéßø"
    out = []
    for _ in range(n):
        words = ["".join(rnd.choice(letters) for _ in range(rnd.randint(3, 24))) for _ in range(rnd.randint(1, 40))]
        out.append(" ".join(words) + rnd.choice(["", ".", "\n", " 12345"]))
    return out


def run_threads(fn, args_list):
    """Runs fn(*args) on one thread each; returns their results, re-raises the first error."""
    results, errors = {}, []

    def body(k, args):
        try:
            results[k] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k, a), daemon=True) for k, a in enumerate(args_list)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "deadlock: a thread never finished"
    if errors:
        raise errors[0]
    return [results[k] for k in range(len(args_list))]


@pytest.fixture(scope="module")
def shared_tok():
    name = "llama3" if "llama3" in names() else "bundled-gpt2"
    text = tokenizer_json(name)
    docs = cli.stdlib_documents(0.3) + unique_words(150, seed=3)
    oracle = tokenizers.Tokenizer.from_str(text)
    want = {add: [e.ids for e in oracle.encode_batch(docs, add_special_tokens=add)] for add in (True, False)}
    return tagpipe.Tokenizer.from_str(text, cache_bytes=4 << 20), docs, want


def test_many_threads_share_one_tokenizer(shared_tok):
    """12 Python threads on one Tokenizer, each a different mix of encode, encode_to_numpy,
    encode_batch and encode_batch_flat (1-3 native threads each), with and without special
    tokens, in its own order: every result is the oracle's."""
    tok, docs, want = shared_tok

    def work(k):
        rnd = random.Random(k)
        checked = 0
        for _ in range(6):
            add = rnd.random() < 0.5
            order = list(range(len(docs)))
            rnd.shuffle(order)
            order = order[: rnd.randint(1, len(order))]
            how = (k + checked) % 4
            if how == 0:
                got = [tok.encode(docs[i], add_special_tokens=add) for i in order[:40]]
                order = order[:40]
            elif how == 1:
                got = [tok.encode_to_numpy(docs[i], add_special_tokens=add).tolist() for i in order[:40]]
                order = order[:40]
            elif how == 2:
                got = tok.encode_batch([docs[i] for i in order], add_special_tokens=add, num_threads=1 + k % 3)
            else:
                ids, off = tok.encode_batch_flat([docs[i] for i in order], add_special_tokens=add, num_threads=2)
                got = [ids[off[j] : off[j + 1]].tolist() for j in range(len(order))]
            expect = [want[add][i] for i in order]
            assert got == expect, f"thread {k}, way {how}: ids differ from the oracle's"
            checked += 1
        return checked

    assert run_threads(work, [(k,) for k in range(12)]) == [6] * 12


def test_concurrent_loading_of_different_tokenizers():
    """Threads each load a tokenizer (several load the same one) and encode at once."""
    pool = names()
    jsons = {n: tokenizer_json(n) for n in pool}
    text = "Hello wörld! 東京 naïve  12345 <|endoftext|> <s> it's\n\n  end▁▁x"
    docs = [text, text * 3, "", " ", *unique_words(20, seed=9)]
    want = {n: [e.ids for e in tokenizers.Tokenizer.from_str(j).encode_batch(docs)] for n, j in jsons.items()}
    jobs = [(pool[k % len(pool)],) for k in range(max(6, 2 * len(pool)))]

    def load_and_encode(name):
        tok = tagpipe.Tokenizer.from_str(jsons[name])
        assert tok.native, tok.explain()
        got_one = [tok.encode(d) for d in docs]
        got_batch = tok.encode_batch(docs, num_threads=2)
        assert got_one == want[name] and got_batch == want[name], name
        return name

    assert run_threads(load_and_encode, jobs) == [j[0] for j in jobs]


@pytest.mark.parametrize("budget", [0, 1 << 10, 64 << 10, 256 << 10, 1 << 20, 8 << 20])
def test_cache_budget_is_enforced(budget):
    """After lots of unique words from several Python threads and native threads, the word
    caches together hold no more than the budget -- at every step, also for budgets smaller
    than one cache's fixed parts -- and the ids stay the oracle's."""
    text = tokenizer_json("bundled-gpt2")
    tok = tagpipe.Tokenizer.from_str(text, cache_bytes=budget)
    oracle = tokenizers.Tokenizer.from_str(text)
    assert tok.cache_bytes == budget
    batches = [unique_words(120, seed=100 + k) for k in range(8)]
    want = [[e.ids for e in oracle.encode_batch(b)] for b in batches]
    peaks = []

    def work(k):
        for r in range(3):
            b = (k + r) % len(batches)
            if (k + r) % 2:
                assert tok.encode_batch(batches[b], num_threads=1 + (k + r) % 3) == want[b]
            else:
                assert [tok.encode(t) for t in batches[b][:30]] == want[b][:30]
            peaks.append(tok.cache_used)
        return True

    run_threads(work, [(k,) for k in range(4)])
    peaks.append(tok.cache_used)
    assert max(peaks) <= budget, f"the word caches hold {max(peaks)} bytes, budget {budget}"


def test_cache_is_used_when_it_has_room():
    """The other side of the budget test: with room, the cache does hold words (so the
    measurement above measures something)."""
    tok = tagpipe.Tokenizer.from_str(tokenizer_json("bundled-gpt2"), cache_bytes=64 << 20)
    assert tok.cache_used == 0
    tok.encode_batch(unique_words(200, seed=5), num_threads=2)
    assert 0 < tok.cache_used <= 64 << 20


def test_cache_stays_small_for_a_few_words():
    """A tokenizer used for a few words keeps its word cache's first table (32 KiB, and the
    128 KiB table of recent hits): the jump to the 4 MiB table comes only past 512 distinct
    pieces (WordCache::kJump) -- and then stays within the budget."""
    tok = tagpipe.Tokenizer.from_str(tokenizer_json("bundled-gpt2"))
    tok.encode("Hello world, a few words and a number: 12345.")
    assert 0 < tok.cache_used <= 256 << 10, tok.cache_used
    tok.encode(" ".join(unique_words(1000, seed=7)))
    assert 256 << 10 < tok.cache_used <= tok.cache_bytes


BATCH_MEMORY = r"""
import json, sys
from pathlib import Path
import tagpipe

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
       "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
       "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "<unk>": 2}, "unk_token": "<unk>"}}
tok = tagpipe.Tokenizer.from_str(json.dumps(doc), cache_bytes=1 << 20)
texts = ["a b " * 250_000] * 40  # one 1 MB string 40 times: 20 M ids, 80 MB of output
tok.encode_batch_flat(texts[:2], num_threads=2)  # (threads and scratch exist before the baseline)
base = status("VmRSS")
Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
ids, offsets = tok.encode_batch_flat(texts, num_threads=2)
assert len(ids) == 20_000_000 and (ids[:4] == [0, 1, 0, 1]).all()
print(status("VmHWM") - base, ids.nbytes + offsets.nbytes)
"""


def test_a_batch_holds_its_ids_once(tmp_path):
    """encode_batch_flat's resident growth: its output once, plus one round of the threads'
    buffers (~4 MiB of text) -- not the per-thread buffers and the joined ids side by side."""
    import os
    import subprocess
    import sys

    if not os.access("/proc/self/clear_refs", os.W_OK):
        pytest.skip("no /proc/self/clear_refs to reset the peak RSS")
    if "libasan" in os.environ.get("LD_PRELOAD", ""):  # (scripts/sanitize.sh)
        pytest.skip("under AddressSanitizer freed memory waits in quarantine: RSS says nothing about the assembly")
    out = subprocess.run(
        [sys.executable, "-c", BATCH_MEMORY], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert out.returncode == 0, out.stderr
    growth, output = map(int, out.stdout.split())
    assert growth <= output + (40 << 20), f"RSS grew by {growth >> 20} MiB for {output >> 20} MiB of ids"
