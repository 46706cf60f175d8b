"""MetaspaceRuns (tagpipe.plan.metaspace): active where the proof holds, absent where it fails,
and exact either way.

Each proof condition gets a tiny tokenizer on which the condition fails *and* cutting
before the runs of ``▁`` really changes the oracle's ids (computed here from the oracle's
own normalizer and model, so the counterexample is checked, not assumed); tagpipe must
then take the whole-span path and stay exact.
"""

from __future__ import annotations

import json
import re

import pytest
import tokenizers
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tagpipe
from tagpipe import _core

from support.data import CORPORA, SHARED, corpus_ids, needs_shared

MARK = "▁"
PREPEND_REPLACE = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": MARK},
        {"type": "Replace", "pattern": {"String": " "}, "content": MARK},
    ],
}


def bpe_json(vocab, merges=(), *, normalizer=PREPEND_REPLACE, pre_tokenizer=None, **model) -> str:
    m = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": {t: i for i, t in enumerate(vocab)},
        "merges": [list(p) for p in merges],
    }
    m.update(model)
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": None,
            "model": m,
        }
    )


def cut_ids(oracle: tokenizers.Tokenizer, text: str) -> list[int]:
    """What cutting before each run of the mark would give: the oracle's model on each part."""
    normalized = oracle.normalizer.normalize_str(text)
    parts = [p for p in re.split(f"(?={MARK}+)(?<!{MARK})", normalized) if p]
    return [t.id for p in parts for t in oracle.model.tokenize(p)]


def both(json_text: str):
    return tagpipe.Tokenizer.from_str(json_text), tokenizers.Tokenizer.from_str(json_text)


# -- each proof condition: the counterexample is real, and tagpipe does not cut ----------

COUNTEREXAMPLES = {
    # the issue's: the oracle gives ▁ ab ▁ ab, cutting gives ▁ab ▁ab
    "ignore_merges": (
        bpe_json([MARK, "a", "b", "ab", MARK + "ab"], [("a", "b")], ignore_merges=True),
        "ab ab",
        "ignore_merges",
    ),
    # whole span: ▁ a ▁ b</w>; cut: ▁ a</w> | ▁ b</w>
    "end_of_word_suffix": (
        bpe_json([MARK, "a", "b", "a</w>", "b</w>", MARK + "</w>"], end_of_word_suffix="</w>"),
        "a b",
        "end_of_word_suffix",
    ),
    # whole span: ▁ ##a ##▁ ##b; cut: ▁ ##a | ▁ ##b
    "continuing_subword_prefix": (
        bpe_json([MARK, "a", "b", "##" + MARK, "##a", "##b"], continuing_subword_prefix="##"),
        "a b",
        "continuing_subword_prefix",
    ),
    # the mark unknown, unk fused: whole span: <unk>(▁é▁) x; cut: <unk>(▁é) | <unk>(▁) x
    "mark_not_in_vocab": (
        bpe_json(["<unk>", "x"], unk_token="<unk>", fuse_unk=True),
        "é x",
        "is not in the vocabulary",
    ),
    # a dropped character (no unk, no byte fallback) lets the marks around it meet: ▁▁
    "dropped_char_joins_marks": (
        bpe_json([MARK, "a", "b", "ab", MARK + "a", MARK + MARK], [("a", "b"), (MARK, "a"), (MARK, MARK)]),
        "ab x ab",
        "is dropped",
    ),
    # too many crossing pieces to guard (a▁ joins the cut in "a b")
    "too_many_crossing": (
        bpe_json([MARK, "a", "b", "a" + MARK] + [f"{chr(0x4E00 + i)}{MARK}" for i in range(300)], [("a", MARK)]),
        "a b",
        "after another character",
    ),
}


@pytest.mark.parametrize("name", sorted(COUNTEREXAMPLES))
def test_failed_condition_takes_the_whole_span_path(name):
    json_text, text, reason = COUNTEREXAMPLES[name]
    tok, oracle = both(json_text)
    want = oracle.encode(text).ids
    assert cut_ids(oracle, text) != want, "not a counterexample: cutting would be exact here"
    assert tok.native
    assert not tok.metaspace_runs
    line = next(s for s in tok.plan.steps if s.path == "MetaspaceRuns")
    assert "not used" in line.how and reason in line.how, line
    assert tok.encode(text) == want


def test_dropout_is_delegated_not_cut():
    tok = tagpipe.Tokenizer.from_str(bpe_json([MARK, "a", "b", "ab"], [("a", "b")], dropout=0.5))
    assert not tok.native and not tok.metaspace_runs
    assert "dropout" in tok.explain()


def test_one_crossing_piece_is_guarded_and_exact():
    json_text = bpe_json([MARK, "a", "b", "a" + MARK, MARK + "b"], [("a", MARK), (MARK, "b")])
    tok, oracle = both(json_text)
    assert tok.metaspace_runs
    assert "1 crossing piece(s) guarded" in tok.explain()
    assert cut_ids(oracle, "a b") != oracle.encode("a b").ids  # a plain cut would be wrong
    for text in ["a b", "a  b", "b a", "aa bb", " a", "a ", "ba b a b", "a\tb", "", " ", "a" * 40 + " b"]:
        assert tok.encode(text) == oracle.encode(text).ids, text


def test_without_guards_needed_the_cut_is_exact():
    # (with an unk token: without one a dropped character would let two marks meet, above)
    json_text = bpe_json(
        [MARK, "a", "b", MARK + "a", "ab", MARK + MARK, "<unk>"],
        [(MARK, "a"), ("a", "b"), (MARK, MARK)],
        unk_token="<unk>",
    )
    tok, oracle = both(json_text)
    assert tok.metaspace_runs
    for text in ["a b", "ab  ab", "   a", "a   ", "b\na b", "aaa  bbb   ab", "ab x ab", "a xx  b"]:
        assert cut_ids(oracle, text) == oracle.encode(text).ids  # the proof's claim, on these
        assert tok.encode(text) == oracle.encode(text).ids, text


# -- the probe: decided by behaviour ------------------------------------------------------


@pytest.mark.parametrize(
    "pre, normalizer",
    [
        ({"type": "Metaspace", "replacement": MARK, "prepend_scheme": "always", "split": True}, None),
        ({"type": "Whitespace"}, PREPEND_REPLACE),
        (None, None),  # no mark written at all
        (None, {"type": "Lowercase"}),
    ],
)
def test_pipelines_that_cut_or_write_no_mark_are_not_candidates(pre, normalizer):
    tok = tagpipe.Tokenizer.from_str(bpe_json([MARK, "a", "b"], normalizer=normalizer, pre_tokenizer=pre))
    assert not tok.metaspace_runs
    assert "MetaspaceRuns" not in tok.explain()


def test_metaspace_split_false_is_a_candidate():
    pre = {"type": "Metaspace", "replacement": MARK, "prepend_scheme": "first", "split": False}
    tok, oracle = both(bpe_json([MARK, "a", "b", MARK + "a"], [(MARK, "a")], normalizer=None, pre_tokenizer=pre))
    assert tok.metaspace_runs
    for text in ["a b", " a  b", "ab a"]:
        assert tok.encode(text) == oracle.encode(text).ids


REPLACE_ONLY = {"type": "Replace", "pattern": {"String": " "}, "content": MARK}
STARVED_VOCAB = [MARK, "a", "b", "x", " ", MARK + "a", "a" + MARK, " a", "x "]
STARVED_MERGES = [(MARK, "a"), ("a", MARK), (" ", "a"), ("x", " ")]


@pytest.mark.parametrize(
    "normalizer, split, skipped",
    [
        # gemma-3's pipeline: no ' ' is left for the Split
        (
            REPLACE_ONLY,
            {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
            True,
        ),
        (REPLACE_ONLY, {"type": "Split", "pattern": {"String": "a "}, "behavior": "Isolated", "invert": False}, True),
        # (an inverted Split is kept: not proved)
        (REPLACE_ONLY, {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": True}, False),
        # counterexamples: the last step brings a ' ' back, or writes one
        (
            {"type": "Sequence", "normalizers": [REPLACE_ONLY, {"type": "Prepend", "prepend": " "}]},
            {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
            False,
        ),
        (
            {"type": "Replace", "pattern": {"String": " "}, "content": "x "},
            {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": False},
            False,
        ),
    ],
)
def test_a_split_the_normalizer_starves_is_skipped(normalizer, split, skipped):
    # skipped only where the normalizer's last step leaves no byte the literal needs; exact
    # either way
    tok, oracle = both(bpe_json(STARVED_VOCAB, STARVED_MERGES, normalizer=normalizer, pre_tokenizer=split))
    assert tok.native, tok.explain()
    assert ("skipped: it never matches" in tok.explain()) == skipped, tok.explain()
    texts = ["a b", "a  b", " a", "b ", "ab a b  a", "   ", "a\tb a"]
    for text in texts:
        assert tok.encode(text) == oracle.encode(text).ids, (text, tok.explain())
    if not skipped and not split["invert"]:  # the counterexample is real: without the Split the ids change
        unsplit = tokenizers.Tokenizer.from_str(bpe_json(STARVED_VOCAB, STARVED_MERGES, normalizer=normalizer))
        assert any(unsplit.encode(t).ids != oracle.encode(t).ids for t in texts)


def test_disabled_by_option():
    tok = tagpipe.Tokenizer.from_str(bpe_json([MARK, "a"]), metaspace_runs=False)
    assert not tok.metaspace_runs
    assert "disabled" in tok.explain()


# -- the real tokenizers ---------------------------------------------------------------------

NEVER_CUT = ["llama2", "mistral-7b-v0.1", "gemma3"]

EDGE_TEXTS = [
    "a\n    x",
    "def f():\n        return  1\n\n\n            x",
    "a\t\tb  \t c",
    "  \n\n  \n",
    "x> </y",
    "<a> </b>  </c>",
    "end with spaces   ",
    "   start with spaces",
    " " * 40 + "x",
    "中文 没有空格的文本中文",
    "▁already▁marked ▁▁ x",
    "\r\n\r\n  \r\n",
    "a" * 300 + " " + "b" * 300,
]


@pytest.fixture(scope="module", params=NEVER_CUT)
def never_cut(request):
    if SHARED is None:
        pytest.skip("TAGPIPE_TEST_DATA / ../shared not found")
    path = SHARED / "tokenizers" / request.param / "tokenizer.json"
    return request.param, tagpipe.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))


@needs_shared
def test_metaspace_runs_active(never_cut):
    name, tok, _ = never_cut
    assert tok.native and tok.metaspace_runs, tok.explain()
    if name == "gemma3":
        assert "guarded ('>▁</')" in tok.explain()


@needs_shared
def test_edge_texts(never_cut):
    _, tok, oracle = never_cut
    for text in EDGE_TEXTS:
        assert tok.encode(text) == oracle.encode(text).ids, text


@needs_shared
def test_named_oracle_results():
    llama2 = SHARED / "tokenizers" / "llama2" / "tokenizer.json"
    tok, oracle = tagpipe.Tokenizer.from_file(llama2), tokenizers.Tokenizer.from_file(str(llama2))
    ids = tok.encode("a\n    x", add_special_tokens=False)
    assert [oracle.id_to_token(i) for i in ids] == ["▁a", "<0x0A>", "▁▁▁", "▁x"]
    gemma = SHARED / "tokenizers" / "gemma3" / "tokenizer.json"
    tok, oracle = tagpipe.Tokenizer.from_file(gemma), tokenizers.Tokenizer.from_file(str(gemma))
    ids = tok.encode("x> </y", add_special_tokens=False)
    assert [oracle.id_to_token(i) for i in ids] == ["x", ">▁</", "y"]


@needs_shared
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
def test_corpora_equal_whole_span_and_oracle(never_cut, corpus):
    """MetaspaceRuns and the whole-span path give the oracle's ids on every corpus."""
    name, tok, oracle = never_cut
    whole = tagpipe.Tokenizer.from_file(SHARED / "tokenizers" / name / "tokenizer.json", metaspace_runs=False)
    text = corpus.read_text(encoding="utf-8")[:60_000]
    want = oracle.encode(text).ids
    assert tok.encode(text) == want
    assert whole.encode(text) == want


SPACEY = st.lists(
    st.sampled_from([" ", "  ", "\t", "\n", MARK, "a", "x", ">", "</", "中", "é", "😀"]), max_size=40
).map("".join)
# A piece of 256+ bytes mostly outside ASCII is left whole by MetaspaceRuns when the BPE cuts
# long pieces itself (both exact; whole is faster there): text on both sides of that line.
DENSE = st.lists(
    st.sampled_from(["中", "文", "ж", "é", " ", "  ", MARK, "\n", "x", "ab", "> </", "😀"]), min_size=60, max_size=200
).map("".join)


@needs_shared
@settings(max_examples=210, deadline=None)
@given(text=SPACEY | DENSE)
def test_generated_runs(never_cut, text):
    _, tok, oracle = never_cut
    assert tok.encode(text) == oracle.encode(text).ids


@pytest.mark.parametrize(
    "model",
    [{}, {"unk_token": "<unk>"}, {"byte_fallback": True}],
    ids=["chars-dropped-no-model-cuts", "unk", "byte-fallback"],
)
def test_dense_pieces_exact_with_and_without_model_cuts(model):
    vocab = ["<unk>", MARK, "a", "b", "ab", MARK + "a", "中", "文", "中文"] + [f"<0x{b:02X}>" for b in range(256)]
    tok, oracle = both(bpe_json(vocab, [("a", "b"), (MARK, "a"), ("中", "文")], **model))
    assert tok.native and tok.metaspace_runs, tok.explain()
    for text in ["中文 ab" * 60, "中文中" * 100 + "  a b", "文" * 120 + " ab  ab " + "ж" * 90, "x" * 300 + " 中文"]:
        assert tok.encode(text) == oracle.encode(text).ids, text[:40]


# -- pair cuts ---------------------------------------------------------------------------------


def test_pair_cuts_follow_the_vocabulary():
    from tagpipe.plan.metaspace import ascii_cut_pairs

    vocab = {t: i for i, t in enumerate([MARK, "a", "b", ".", "a.", "\n", "<unk>", "<0x09>", "<0x0B><0x0B>", "<0x0B>"])}
    pairs = ascii_cut_pairs(vocab, byte_fallback=True)
    at = lambda x, y: pairs[ord(x) * 128 + ord(y)]  # noqa: E731
    assert at(".", "b") and at("\n", "a") and at("a", "\n") and at("b", "\t")  # \t known by byte fallback
    assert not at("a", ".")  # the piece "a." joins them
    assert not at("a", "z") and not at("z", "a")  # z unknown: its unk could fuse across
    assert not at("a", "\x0b")  # its byte token is merged into a longer piece
    assert not any(ascii_cut_pairs(vocab, byte_fallback=False)[9 * 128 + y] for y in range(128))


def _pairs_one_by_one(vocab: dict[str, int], byte_fallback: bool) -> bytes:
    """ascii_cut_pairs' definition, piece by piece (the form it had before it went columnar)."""
    byte_token = {f"<0x{b:02X}>" for b in range(128)}
    known = [chr(c) in vocab or (byte_fallback and f"<0x{c:02X}>" in vocab) for c in range(128)]
    joined = bytearray(128 * 128)
    for token in vocab:
        if token in byte_token:
            continue
        for run in re.findall(r"[\x00-\x7f]{2,}", token):
            for x, y in zip(run, run[1:]):
                joined[ord(x) * 128 + ord(y)] = 1
        for m in re.findall(r"<0x([0-9A-F]{2})>", token):
            if int(m, 16) < 128:
                known[int(m, 16)] = known[int(m, 16)] and chr(int(m, 16)) in vocab
    return bytes(int(known[x] and known[y] and not joined[x * 128 + y]) for x in range(128) for y in range(128))


def test_pair_cuts_columnar_equal_one_by_one():
    """The pieces end to end must not join the last character of one to the first of the
    next: "a" then "b" is no "ab" (nor "<0x" then "0A>" a byte token); a piece that is only
    a byte token, an empty piece, NULs, a lone surrogate and non-ASCII between ASCII."""
    from tagpipe.plan.metaspace import ascii_cut_pairs

    pieces = [
        "a",
        "b",
        "",
        "<0x",
        "0A>",
        "<0x0A>",
        "\x00",
        "x\x00y",
        "<0x0B>",
        "q<0x0C>",
        "\ud800z",
        "é.",
        ".é,",
        "€;",
        MARK,
        MARK + "k",
        "<0x09>",
        "\t",
    ]
    for fallback in (True, False):
        for order in (pieces, pieces[::-1], pieces[1:]):
            vocab = {t: i for i, t in enumerate(order)}
            assert ascii_cut_pairs(vocab, fallback) == _pairs_one_by_one(vocab, fallback), (order, fallback)
    if SHARED is not None:
        for name in ("llama2", "mistral-7b-v0.1", "gemma3", "t5-small"):
            model = json.loads((SHARED / "tokenizers" / name / "tokenizer.json").read_text())["model"]
            vocab = (
                model["vocab"]
                if isinstance(model["vocab"], dict)
                else {t: i for i, (t, _) in enumerate(model["vocab"])}
            )
            assert ascii_cut_pairs(vocab, True) == _pairs_one_by_one(vocab, True), name


@pytest.mark.parametrize("fuse", [True, False])
def test_pair_cuts_exact_with_unknown_characters(fuse):
    vocab = [MARK, "<unk>", "a", "b", ".", "a.", MARK + "a", "\n"]
    json_text = bpe_json(vocab, [("a", "."), (MARK, "a")], unk_token="<unk>", fuse_unk=fuse)
    tok, oracle = both(json_text)
    assert tok.metaspace_runs
    for text in ["a.b", "xy", "a.\n\nxy.b", "b.a.\nq", "a\n\nb", "zz..zz", "a. b.\n a"]:
        assert tok.encode(text) == oracle.encode(text).ids, text


# -- the MetaspaceRuns stage's cuts against its specification -------------------------------

Stage = _core.PreTokenizerStage


def metaspace_runs(mark: str, guards: list[bytes], pairs: bytes) -> _core.PreTokenizerStage:
    return Stage(kind=Stage.Kind.MetaspaceRuns, literal=mark, guards=guards, pairs=pairs)


def spec_metaspace_runs(data: bytes, guards: list[bytes], pairs: bytes) -> list[int]:
    """The cut positions of MetaspaceRunsStage::cut_at, written out plainly: before a run of
    marks that no guard spans (a guard g spans position p if g occurs at p - k where g has a
    mark after another character at k), or between two ASCII bytes `pairs` allows that are
    not both letters."""
    mark = MARK.encode()
    spans = []
    for g in guards:
        for k in range(1, len(g) - 2):
            if g[k : k + 3] == mark and not (k >= 3 and g[k - 3 : k] == mark):
                spans.append((g, k))
    cuts = []
    for p in range(1, len(data)):
        run = data[p : p + 3] == mark and not (p >= 3 and data[p - 3 : p] == mark)
        if run and not any(p >= k and data[p - k : p - k + len(g)] == g for g, k in spans):
            cuts.append(p)
        elif (
            data[p - 1] < 0x80
            and data[p] < 0x80
            and pairs[data[p - 1] * 128 + data[p]]
            and not bytes(data[p - 1 : p + 1]).isalpha()
        ):
            cuts.append(p)
    return cuts


MARKED = st.lists(
    st.sampled_from([MARK, MARK * 2, "a", "b.", "\n", ">", "</", "中", "é", " ", "xyz", "Q7", "-_"]), max_size=90
).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=MARKED, pair_seed=st.integers(0, 3), guarded=st.integers(0, 2))
def test_metaspace_runs_cuts_follow_the_specification(text, pair_seed, guarded):
    import random

    rng = random.Random(pair_seed)
    pairs = bytes(rng.random() < 0.5 for _ in range(128 * 128)) if pair_seed else bytes(128 * 128)
    # (two guards: different bytes before their mark, one of them two-byte)
    guards = [f">{MARK}</".encode(), f"é{MARK}{MARK}b".encode()][:guarded]
    data = text.encode()
    stage = metaspace_runs(MARK, guards, pairs)
    _, _, pieces, _ = _core.PreTokenizer([stage]).run(data)
    cuts = [int(b) for b, _ in pieces[1:]]
    assert cuts == spec_metaspace_runs(data, guards, pairs), (text, pieces.tolist())


@settings(max_examples=300, deadline=None)
@given(text=MARKED, pair_seed=st.integers(0, 3), guarded=st.integers(0, 3), cut=st.sampled_from(["\n", ">", "y"]))
@example(text=f"ab\n-_xyz{MARK}xyz{MARK}", pair_seed=0, guarded=3, cut="\n")
def test_metaspace_runs_cuts_each_piece_by_the_specification(text, pair_seed, guarded, cut):
    """MetaspaceRuns after a stage that cut the text into many short pieces (gemma-3's lines, which
    Encoder::encode_gaps splits in one run): each piece is cut as if alone -- a guard that would
    span a cut only with the piece before ("\\n-_xyz▁" over "\\n" "-_xyz▁") does not."""
    import random

    rng = random.Random(pair_seed)
    pairs = bytes(rng.random() < 0.5 for _ in range(128 * 128)) if pair_seed else bytes(128 * 128)
    guards = [f">{MARK}</".encode(), f"é{MARK}{MARK}b".encode(), f"\n-_xyz{MARK}".encode()][:guarded]
    data = text.encode()
    stages = [
        Stage(kind=Stage.Kind.Literal, literal=cut, behavior=_core.Behavior.Isolated, invert=False),
        metaspace_runs(MARK, guards, pairs),
    ]
    _, _, pieces, _ = _core.PreTokenizer(stages).run(data)
    want, at = [], 0
    for part in re.split(f"({re.escape(cut)})", text):
        b = part.encode()
        if b:
            want += [at] + [at + c for c in spec_metaspace_runs(b, guards, pairs)]
            at += len(b)
    assert [int(b) for b, _ in pieces] == want, (text, pieces.tolist())


def spec_left_whole(data: bytes) -> bool:
    """With the model cutting long pieces itself, MetaspaceRuns leaves a piece of 256+ bytes whole
    when its first kilobyte is mostly outside ASCII, the marks in it that are part of a run
    of two or more marks counted as ASCII (code's indentation)."""
    if len(data) < 256:
        return False
    mark = MARK.encode()
    head = data[:1024]
    starts = {k for k in range(len(data) - 2) if data[k : k + 3] == mark}
    runs = [k for k in starts if k + 3 <= len(head) and (k - 3 in starts or k + 3 in starts)]
    return 2 * (sum(b < 0x80 for b in head) + 3 * len(runs)) < len(head)


DENSE = st.lists(
    st.sampled_from([MARK, MARK * 2, MARK * 8, "中文", "жж", "ab", "\n", "é"]), min_size=60, max_size=400
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=DENSE)
def test_metaspace_runs_leaves_dense_pieces_whole_by_the_specification(text):
    data = text.encode()
    stage = metaspace_runs(MARK, [], bytes(128 * 128))
    _, _, pieces, _ = _core.PreTokenizer([stage], model_cuts=True).run(data)
    cuts = [int(b) for b, _ in pieces[1:]]
    assert cuts == ([] if spec_left_whole(data) else spec_metaspace_runs(data, [], bytes(128 * 128))), text[:60]


def test_indented_code_is_cut_dense_text_left_whole():
    code = "".join(f"{MARK * 12}x=f(y)\n" for _ in range(40)).encode()  # 36 of a line's 43 bytes are marks
    russian = MARK.join(["слово"] * 60).encode()
    chinese = ("中文" * 200).encode()
    spaced = (f"a{MARK}" * 100).encode()  # a single mark is not ASCII: 1 byte in 4 is
    stage = metaspace_runs(MARK, [], bytes(128 * 128))
    count = lambda d, cuts: len(_core.PreTokenizer([stage], model_cuts=cuts).run(d)[2])  # noqa: E731
    assert count(code, True) == count(code, False) == 40
    assert count(russian, True) == 1 and count(russian, False) == 60
    assert count(chinese, True) == count(chinese, False) == 1
    assert count(spaced, True) == 1 and count(spaced, False) == 101
