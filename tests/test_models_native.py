"""The WordPiece, WordLevel and Unigram models, natively: ids equal the pinned oracle's.

* **Stripped variants** of the shared files (all-minilm-l6-v2, bert-wiki, t5-small,
  marian-ortx-nmt, rwkv-midi-wordlevel): the same tokenizer.json with ``normalizer``,
  ``truncation`` and ``padding`` set to null, given to BOTH the oracle and tagpipe (the
  normalizers are made native separately; what is tested here is the model with the
  pre-tokenizer, added tokens and post-processor around it).  Built and encoded under
  ``tagpipe.delegation_disabled()``: native means native, no per-call delegation.
  Every corpus (~10 kB cuts and random lengths), with and without special tokens;
  hypothesis text; edge cases (unknown characters, words over max_input_chars_per_word,
  CJK, accents, controls, empty).
* **Each model's rules on tiny hand-made vocabularies** (a WhitespaceSplit pre-tokenizer and
  nothing else): greedy WordPiece corner cases, Unigram ties, unk fusing, byte_fallback,
  repeated pieces, missing unk tokens (the oracle raises: tagpipe delegates the text, so
  that it raises the same way), plus random vocabularies against random text.
"""

from __future__ import annotations

import functools
import json
import random

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

import tagpipe

from support import strategies as S
from support.data import CORPORA, SHARED, corpus_ids, needs_shared
from support.parity import HYPOTHESIS, Report, corpus_docs, run_and_compare

FAMILIES = ["all-minilm-l6-v2", "bert-wiki", "t5-small", "marian-ortx-nmt", "rwkv-midi-wordlevel"]
MODEL_TYPE = {
    "all-minilm-l6-v2": "WordPiece",
    "bert-wiki": "WordPiece",
    "t5-small": "Unigram",
    "marian-ortx-nmt": "Unigram",
    "rwkv-midi-wordlevel": "WordLevel",
}
RANDOM_VOCABS = 40  # random tiny vocabularies per model type ...
RANDOM_VOCAB_TEXTS = 60  # ... each against this many random texts


# ---------------------------------------------------------------------------------------
# The stripped variants of the shared files
# ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def stripped_json(name: str) -> str:
    data = json.loads((SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))
    data["normalizer"] = None
    data["truncation"] = None
    data["padding"] = None
    return json.dumps(data)


@functools.lru_cache(maxsize=None)
def oracle_stripped(name: str) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(stripped_json(name))


@functools.lru_cache(maxsize=None)
def tagpipe_stripped(name: str) -> tagpipe.Tokenizer:
    with tagpipe.delegation_disabled():
        return tagpipe.Tokenizer.from_str(stripped_json(name))


def report_for(name: str) -> Report:
    return Report(f"{name} (stripped)", tagpipe_stripped(name), oracle_stripped(name))


@needs_shared
@pytest.mark.parametrize("name", FAMILIES)
def test_stripped_variant_is_native(name):
    tok = tagpipe_stripped(name)
    assert tok.native, tok.explain()
    assert "DELEGATED" not in tok.explain()
    assert f"model: {MODEL_TYPE[name]}(" in tok.explain()


@needs_shared
@pytest.mark.parametrize("add_special", [True, False], ids=["special", "nospecial"])
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
@pytest.mark.parametrize("name", FAMILIES)
def test_corpus_documents(name, corpus, add_special):
    docs = corpus_docs(corpus, name)
    report = report_for(name)
    run_and_compare(
        report,
        tagpipe_stripped(name),
        [d.text for d in docs],
        add_special,
        labels=[d.label for d in docs],
    )
    report.check()


def _edge_texts(name: str) -> list[str]:
    long_word = "pneumonoultramicroscopicsilicovolcanoconiosis"
    texts = [
        "",
        " ",
        "   ",
        "\n\t",
        "a",
        "Hello world",
        "HELLO World",
        "hello, world!",
        "café naïve résumé Ångström Łódź",
        "e\u0301 a\u0300 o\u0308",
        "ﬁ ﬂ Ⅻ ½ ²",
        "日本語のテキスト 中文文本 한국어",
        "混合mixed文本text",
        "🙂😀👍🏽 👨‍👩‍👧",
        "\u200b\u200d\ufeff",
        "\x00\x01\x1f\x7f\x85 ctrl",
        "\ue000\U000f0000 private",
        "\U0001d400\U0001d41a math",
        "x" * 99,
        "x" * 100,
        "x" * 101,
        "é" * 100,
        "é" * 101,
        "日" * 101,
        long_word * 3,
        "a" * 5000,
        ("word " * 200).strip(),
        "tab\tsep\tvalues",
        "line\r\nbreaks\u2028here",
        "▁ ▁▁ ▁x x▁",
        "<unk> [UNK] </s> <s> <pad> [CLS] [SEP]",
        "##a ##",
        "a##b",
        "0123456789 3.14 1,000",
        "\u0378\u0380 unassigned",
        "\U0010ffff\U000e0001",
        "Zürich-Straße 1–2 — “quoted” «guillemets»",
    ]
    return texts + [t.upper() for t in texts] + [t + " " + t for t in texts[:20]]


@needs_shared
@pytest.mark.parametrize("add_special", [True, False], ids=["special", "nospecial"])
@pytest.mark.parametrize("name", FAMILIES)
def test_edge_cases(name, add_special):
    report = report_for(name)
    run_and_compare(report, tagpipe_stripped(name), _edge_texts(name), add_special)
    report.check()


@needs_shared
@pytest.mark.parametrize("name", FAMILIES)
def test_edge_cases_one_by_one(name):
    """encode (one text, the single-call path) as well as encode_batch."""
    tok, oracle = tagpipe_stripped(name), oracle_stripped(name)
    with tagpipe.delegation_disabled():
        for text in _edge_texts(name):
            for special in (True, False):
                assert tok.encode(text, special) == oracle.encode(text, add_special_tokens=special).ids, text


@needs_shared
@pytest.mark.parametrize("name", FAMILIES)
@HYPOTHESIS
@given(data=st.data())
def test_hypothesis_text(name, data):
    needles = [t["content"] for t in json.loads(stripped_json(name))["added_tokens"]][:20]
    text = data.draw(st.one_of(S.text(), S.text_with(needles)), label="text")
    report = report_for(name)
    for add_special in (True, False):
        want = oracle_stripped(name).encode(text, add_special_tokens=add_special).ids
        run_and_compare(report, tagpipe_stripped(name), [text], add_special, do_shrink=False, want=[want])
    report.check()


@needs_shared
@pytest.mark.parametrize("name", FAMILIES)
def test_threads_and_cache(name):
    """The same ids from a cold cache, a warm one and 2 threads."""
    tok, oracle = tagpipe_stripped(name), oracle_stripped(name)
    texts = [d.text for d in corpus_docs(CORPORA[0], name)][:20]
    want = [e.ids for e in oracle.encode_batch(texts)]
    with tagpipe.delegation_disabled():
        tok._native.clear_cache()
        assert tok.encode_batch(texts, num_threads=1) == want
        assert tok.encode_batch(texts, num_threads=1) == want
        assert tok.encode_batch(texts, num_threads=2) == want


# ---------------------------------------------------------------------------------------
# Tiny hand-made vocabularies
# ---------------------------------------------------------------------------------------


def _tokenizer_json(model: dict, added: list | None = None, pre: dict | None = None) -> str:
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added or [],
            "normalizer": None,
            "pre_tokenizer": pre if pre is not None else {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": model,
        }
    )


def wordpiece(vocab: list[str], unk: str = "[UNK]", prefix: str = "##", max_chars: int = 100) -> str:
    return _tokenizer_json(
        {
            "type": "WordPiece",
            "unk_token": unk,
            "continuing_subword_prefix": prefix,
            "max_input_chars_per_word": max_chars,
            "vocab": {t: i for i, t in enumerate(vocab)},
        }
    )


def wordlevel(vocab: list[str], unk: str = "[UNK]") -> str:
    return _tokenizer_json({"type": "WordLevel", "vocab": {t: i for i, t in enumerate(vocab)}, "unk_token": unk})


def unigram(pieces: list[tuple[str, float]], unk_id=0, byte_fallback: bool = False) -> str:
    return _tokenizer_json(
        {"type": "Unigram", "unk_id": unk_id, "vocab": [[p, s] for p, s in pieces], "byte_fallback": byte_fallback}
    )


def _oracle_result(oracle, text):
    """The oracle's ids of `text`, or the exception it raises."""
    try:
        return oracle.encode(text).ids
    except Exception as e:  # noqa: BLE001 - the oracle's error (a missing unk token)
        return e


def assert_same(json_text: str, texts: list[str]) -> None:
    """Every text: tagpipe's ids equal the oracle's; where the oracle raises, tagpipe (native,
    under delegation_disabled) refuses with DelegationError and, delegating, raises too."""
    oracle = tokenizers.Tokenizer.from_str(json_text)
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_str(json_text)
    outside = tagpipe.Tokenizer.from_str(json_text)
    bad = []
    for text in texts:
        want = _oracle_result(oracle, text)
        if isinstance(want, list):
            with tagpipe.delegation_disabled():
                got = tok.encode(text)
            if got != want:
                bad.append((text, want, got))
        else:
            with tagpipe.delegation_disabled():
                with pytest.raises(tagpipe.DelegationError):
                    tok.encode(text)
            with pytest.raises(type(want)) as info:  # the oracle's own error, delegated to it
                outside.encode(text)
            assert not isinstance(info.value, tagpipe.DelegationError)
            assert type(info.value) is type(want) and str(info.value) == str(want)
    with tagpipe.delegation_disabled():  # the batch path, on the texts the oracle encodes
        ok = [t for t in texts if isinstance(_oracle_result(oracle, t), list)]
        if ok:
            assert tok.encode_batch(ok, num_threads=2) == [oracle.encode(t).ids for t in ok]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


def test_wordpiece_greedy_corner_cases():
    vocab = ["[UNK]", "a", "ab", "abc", "##b", "##bc", "##c", "##d", "b", "c", "##", "###", "é", "##é", "日", "##本"]
    assert_same(
        wordpiece(vocab),
        [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcc",
            "abd",
            "abx",
            "ac",
            "bc",
            "##",
            "###",
            "##b",
            "a##",
            "aé",
            "éé",
            "日本",
            "日本本",
            "本",
            "abcabc",
            "x",
            "",
            "a b c",
            "ab##c",
            "abcdd",
        ],
    )


def test_wordpiece_whole_word_unk_and_max_chars():
    vocab = ["[UNK]", "a", "##a", "é", "##é"]
    texts = ["a" * k for k in (1, 4, 5, 6, 7)] + ["é" * k for k in (4, 5, 6)] + ["aaab", "baaa", "aéaé"]
    assert_same(wordpiece(vocab, max_chars=5), texts)
    assert_same(wordpiece(vocab, max_chars=0), texts + ["", " "])


def test_wordpiece_prefixes():
    vocab = ["[UNK]", "un", "▁able", "▁ab", "##le", "able", "le", "u", "▁n"]
    texts = ["unable", "unle", "un", "able", "ule", "un▁able", "unn"]
    for prefix in ("##", "▁", "", "un"):
        assert_same(wordpiece(vocab, prefix=prefix), texts)


def test_wordpiece_missing_unk_raises_like_the_oracle():
    assert_same(wordpiece(["a", "##b"], unk="[UNK]"), ["a", "ab", "a ab", "b", "a c", "x" * 200])


def test_wordlevel():
    assert_same(
        wordlevel(["[UNK]", "hello", "world", "日本", "é"]),
        ["hello world", "Hello", "日本 日本語", "é e\u0301", "", "hello  world  x"],
    )
    assert_same(wordlevel(["hello", "world"], unk="[UNK]"), ["hello world", "hello there", "", "world"])
    assert_same(wordlevel(["hello", "<unk>"], unk="<unk>"), ["hello x", "<unk>"])


def test_unigram_ties_and_scores():
    pieces = [
        ("<unk>", 0.0),
        ("a", -1.0),
        ("b", -1.0),
        ("ab", -2.0),
        ("ba", -2.0),
        ("aba", -3.0),
        ("abab", -4.0),
        ("c", -1.5),
        ("bc", -2.5),
        ("abc", -3.5),
    ]
    texts = ["a", "ab", "aba", "abab", "ababab", "bab", "abc", "abcabc", "cba", "ba"]
    assert_same(unigram(pieces), texts)
    # f64 accumulation: sums that differ only in the last bits
    fine = [
        ("<unk>", 0.0),
        ("a", 0.1),
        ("b", 0.2),
        ("ab", 0.30000000000000004),
        ("c", 0.3),
        ("bc", 0.5),
        ("abc", 0.6000000000000001),
    ]
    assert_same(unigram(fine), ["ab", "abc", "bc", "abcabc", "cab"])


def test_unigram_unknown_characters_fuse():
    pieces = [("<unk>", -5.0), ("a", -1.0), ("b", -1.0), ("xy", -0.5), ("日", -2.0)]
    texts = ["axyb", "x", "xx", "xyz", "axb", "a日本b", "本本本", "zzzaaazzz", "x日y", "<unk>", "a<unk>b", "yx"]
    assert_same(unigram(pieces), texts)
    # the unk token is not the first piece; an unk id pointing at a real piece
    assert_same(unigram([("a", -1.0), ("<unk>", -2.0), ("b", -1.0)], unk_id=1), ["ab", "aXb", "XX", "<unk>X"])
    assert_same(unigram([("a", -1.0), ("b", -1.0)], unk_id=1), ["ab", "aXb", "XbX", "bb"])


def test_unigram_fused_unknowns_can_form_a_piece():
    # "xy" is a piece, but neither "x" nor "y": x and y are each also offered as unk; when
    # the two unk nodes win, their fused string "xy" is looked up -- and found.
    pieces = [("<unk>", 0.0), ("xy", -100.0), ("a", -1.0)]
    assert_same(unigram(pieces), ["xy", "axy", "xya", "xyxy", "x"])


def test_unigram_byte_fallback():
    bytes_ = [(f"<0x{b:02X}>", -10.0) for b in range(256)]
    pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -1.0)] + bytes_
    texts = ["ab", "aéb", "日本", "a🙂", "\x00", "zz"]
    assert_same(unigram(pieces, byte_fallback=True), texts)
    partial = [("<unk>", 0.0), ("a", -1.0), ("<0xC3>", -1.0), ("<0xA9>", -1.0)]  # é's bytes only
    assert_same(unigram(partial, byte_fallback=True), ["aé", "aè", "éé", "a"])
    assert_same(unigram(pieces, byte_fallback=False), texts)


def test_unigram_without_unk_id():
    pieces = [("a", -1.0), ("b", -1.0), ("ab", -1.5), ("abc", -2.0)]
    # "c" alone has no piece: raises when its unk offer would be taken, not when "abc" covers it
    assert_same(unigram(pieces, unk_id=None), ["ab", "abc", "c", "abcc", "aab", "", "ab ab"])


def test_odd_but_valid_files():
    assert_same(wordpiece(["[UNK]", "a", "##a"], max_chars=2**64 - 1), ["a" * 300, "ab"])
    assert_same(wordpiece([], unk="[UNK]"), ["a", ""])
    assert_same(wordlevel([], unk="[UNK]"), ["a", ""])
    assert_same(unigram([], unk_id=None), ["a", "", "ab"])
    assert_same(unigram([("a", 0.0), ("b", 0.0), ("ab", 0.0)], unk_id=None), ["ab", "abab", "ba"])
    assert_same(unigram([("<unk>", 1e300), ("a", -1e300), ("b", 5e-324)]), ["ab", "abx", "xx"])


def test_unigram_repeated_pieces():
    pieces = [("<unk>", 0.0), ("a", -1.0), ("ab", -3.0), ("b", -1.0), ("ab", -0.5), ("a", -4.0)]
    assert_same(unigram(pieces), ["ab", "a", "aab", "ba", "abab"])


def _random_strings(rng: random.Random, alphabet: str, n: int, max_len: int) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, max_len))) for _ in range(n)]


def _random_texts(rng: random.Random, alphabet: str) -> list[str]:
    return [" ".join(_random_strings(rng, alphabet, rng.randint(1, 6), 14)) for _ in range(RANDOM_VOCAB_TEXTS)]


@pytest.mark.parametrize("seed", range(RANDOM_VOCABS))
def test_random_wordpiece(seed):
    rng = random.Random(f"wordpiece:{seed}")
    alphabet = rng.choice(["ab", "abc", "abé", "a日b", "ab#"])
    words = _random_strings(rng, alphabet, rng.randint(1, 30), 5)
    vocab = list(dict.fromkeys(([] if seed % 5 == 0 else ["[UNK]"]) + words + ["##" + w for w in words[::2]]))
    rng.shuffle(vocab)
    prefix = rng.choice(["##", "##", "#", ""])
    assert_same(wordpiece(vocab, prefix=prefix, max_chars=rng.choice([100, 8, 3])), _random_texts(rng, alphabet))


@pytest.mark.parametrize("seed", range(RANDOM_VOCABS))
def test_random_unigram(seed):
    rng = random.Random(f"unigram:{seed}")
    alphabet = rng.choice(["ab", "abc", "abé", "a日b", "ab▁"])
    words = _random_strings(rng, alphabet, rng.randint(1, 30), 5)
    scores = [-1.0, -2.0, -3.0, -0.5, -1.5] if seed % 2 else [-rng.random() * 10 for _ in range(8)]
    pieces = [(w, rng.choice(scores)) for w in words]  # repeats possible
    unk_id = None if seed % 7 == 0 else rng.randrange(len(pieces) + 1)
    if unk_id is not None:
        pieces.insert(unk_id, ("<unk>", rng.choice(scores)))
    byte_fallback = seed % 3 == 0
    if byte_fallback:
        pieces += [(f"<0x{b:02X}>", -5.0) for b in range(256) if rng.random() < 0.9]
    assert_same(unigram(pieces, unk_id=unk_id, byte_fallback=byte_fallback), _random_texts(rng, alphabet + "xé"))


@pytest.mark.parametrize("seed", range(10))
def test_random_wordlevel(seed):
    rng = random.Random(f"wordlevel:{seed}")
    words = _random_strings(rng, "abc", 20, 3)
    vocab = list(dict.fromkeys(words + ([] if seed % 3 == 0 else ["[UNK]"])))
    assert_same(wordlevel(vocab), _random_texts(rng, "abc"))


def test_explain_lines():
    tok = tagpipe.Tokenizer.from_str(wordpiece(["[UNK]", "a"]))
    assert "model: WordPiece(2 tokens, prefix '##', max 100 chars) -> native" in tok.explain()
    tok = tagpipe.Tokenizer.from_str(wordlevel(["a"]))
    assert "not in the vocabulary" in tok.explain() and tok.native
    tok = tagpipe.Tokenizer.from_str(unigram([("<unk>", 0.0), ("a", -1.0)]))
    assert "model: Unigram(2 pieces, unk_id 0) -> native" in tok.explain()
    # a ByteLevel pre-tokenizer before a non-BPE model: delegated, and said so
    bl = json.loads(wordpiece(["[UNK]", "a"]))
    bl["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tok = tagpipe.Tokenizer.from_str(json.dumps(bl))
    assert not tok.native and "ByteLevel pre-tokenizer before a non-BPE model" in tok.explain()
    assert tok.encode("a a") == tokenizers.Tokenizer.from_str(json.dumps(bl)).encode("a a").ids
