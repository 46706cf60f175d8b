"""Exactness of tagpipe's pre-tokenizers: ``tagpipe.PreTokenizer.from_json(section)
.pre_tokenize_str(text)`` must equal ``tokenizers`` 0.23.3's ``pre_tokenize_str`` for the same
``"pre_tokenizer"`` section, piece for piece (strings after byte-level mapping / metaspace
replacement, char offsets into the original text).

* every section of the shared tokenizer.json files, built with delegation disabled (a silent
  fallback to the oracle fails), on corpus documents, hypothesis text, every Unicode scalar
  value, random bulk text and hand-written edge cases;
* synthetic sections for every type, behaviour and option the fixtures miss;
* delegation of an unrecognised regex, visibly (``native``/``explain()``) and exactly;
* ``test_harness_*``: self-checks of the oracle side and the strategies. They need no
  tagpipe and pass today; if one fails, the test suite is wrong, not the implementation.

``tagpipe.PreTokenizer`` is referenced lazily so that this module collects before it exists.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import strategies as S
from support.data import CORPORA, SHARED, corpus_ids, needs_shared
from support.strategies import oracle_pre_tokenize, oracle_pre_tokenizer

# ---------------------------------------------------------------------------------------
# Budgets (oracle cost is ~1-4 us per short string; tagpipe should be faster)
# ---------------------------------------------------------------------------------------

HYPOTHESIS_FIXTURE_EXAMPLES = 300  # per fixture section
HYPOTHESIS_FAMILY_EXAMPLES = 100  # per synthetic family (each example checks every member)
RANDOM_TEXTS_FIXTURE = 1500  # deterministic random texts per fixture section
RANDOM_TEXTS_SYNTHETIC = 250  # ... per synthetic section
CORPUS_DOCS_PER_FILE = 120  # documents (10 B .. 20 kB) per corpus file per section
SCALARS_PER_STRING = 2048  # "a"+c+"b" triples per string in the scalar sweep
ALONE_DENSE = (0x00000, 0x1FFFF)  # swept char-by-char in full for "c alone" (planes 0-1) ...
ALONE_DENSE_TAGS = (0xE0000, 0xE01FF)  # ... and the tags / variation selectors supplement;
ALONE_STRIDE = 16  # ... elsewhere every 16th scalar (all are covered between letters)

HYPOTHESIS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

# ---------------------------------------------------------------------------------------
# The regex spellings tagpipe must run natively (exactly these strings, from the fixtures,
# plus GPT-2's ByteLevel built-in and tiktoken's cl100k spelling with the possessive form).
# ---------------------------------------------------------------------------------------

KNOWN_REGEXES = {
    "gpt2": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "cl100k": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "o200k": r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "deepseek_digits": r"\p{N}{1,3}",
    "deepseek_cjk": "[一-龥\u3040-ゟ゠-ヿ]+",
    # Note: real CR and LF characters inside the classes (that is how the file spells it).
    "deepseek_main": "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?"
    "[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
    "falcon_digits": "[0-9][0-9][0-9]",
}
UNRECOGNISED_REGEX = "[aeiou]+(?<=[aeiou])"  # [aeiou]+ with a look-behind the regex compiler does not run
REGEX_NEEDLES = [
    "'s",
    "'S",
    "'ſ",
    "'T",
    "'re",
    "'RE",
    "'ll",
    "''",
    "123456",
    "1234567",
    "\r\n",
    "  \n",
    "   ",
    " /",
    "//",
    "HTTPServer's",
    "DON'T",
    "中文",
    "カタカナー",
    "ー",
]

BEHAVIOURS = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]

# ---------------------------------------------------------------------------------------
# Hand-written edge cases
# ---------------------------------------------------------------------------------------

EDGE_CASES = {
    "empty": "",
    "space": " ",
    "only_whitespace": " \t\n\r\n\x0b\x0c\xa0\u2028\u3000 ",
    "10000_spaces": " " * 10_000,
    "10000_spaces_then_x": " " * 10_000 + "x",
    "single_letter": "a",
    "single_digit": "7",
    "single_punct": ".",
    "contraction_at_start": "'s going",
    "contraction_at_end": "it's",
    "contraction_alone": "'re",
    "contractions_all": "'s 'S 'ſ 'T 're 'RE 've 'm 'll 'd 'M 'D 'Ll",
    "contractions_glued": "we'll've'd'ssss'tt",
    "double_apostrophe": "''s ''",
    "apostrophe_at_start": "'tis",
    "apostrophe_at_end": "dogs'",
    "apostrophe_before_digits": "'90s '1 '123456",
    "apostrophe_before_space": "' s ' \n'",
    "curly_apostrophe": "it’s don’t ‘quoted’",
    "long_s": "'ſ",
    "long_s_t": "x'ſt",
    "HTTPServer": "HTTPServer's",
    "DONT": "DON'T",
    "indented_line": "a\n    x",
    "blank_lines_indent": "  \n\n  x",
    "trailing_spaces": "x  ",
    "leading_spaces": "   x",
    "crlf_crlf": "\r\n\r\n",
    "crlf_mixed": "a\r\nb\rc\n\rd\r\r\n\n",
    "spaces_around_newlines": "a  \n  \n b \n",
    "tabs": "\t\tx\t y\t",
    "final_newline": "text\n",
    "only_newlines": "\n\n\n",
    "digits_6": "123456",
    "digits_7": "1234567",
    "digits_mixed": "a1b22c333d4444e55555",
    "digits_other_scripts": "٠١٢٣٤ ۰۱۲ ०१२३ ๑๒๓ ０１２３ 𝟎𝟏",
    "digits_numeric_not_Nd": "²³ ½ ¼ Ⅻ ⅻ ① 〇 ¹²³⁴",
    "digits_unicode17": "\U00011de0\U00011de1\U00011de2\U00011de3 \U00016ff4\U00016ff5\U00016ff6 x\U00011de9",
    "zwj": "ab\u200dcd",
    "zwnj": "ab\u200ccd",
    "zwsp": "ab\u200bcd",
    "acute_decomposed": "ab\u0301cd",
    "many_marks": "a\u0301\u0302\u0303\u0323b \u0301\u0302",
    "mark_at_start": "\u0301abc",
    "emoji_zwj": "👨‍👩‍👧‍👦 family 🏳️‍🌈! 👁️‍🗨️",
    "emoji_keycap_flags": "1️⃣ #️⃣ 🇫🇷🇺🇸 🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "variation_selectors": "❤️ ☺︎ 葛\U000e0100 a\ufe0fb",
    "slashes": "a/b//c",
    "url": "https://example.com/a//b?c=1&d=%20#x",
    "metaspace_chars": "▁a ▁▁b▁ ▁",
    "underscores": "_a __b_ snake_case",
    "nbsp": "a\xa0b \xa0 c",
    "line_separators": "a\u2028b\u2029c",
    "ideographic_space": "中\u3000文\u3000 x",
    "ogham_space": "a\u1680b",
    "vt_ff_nel": "a\x0bb\x0cc\x85d",
    "file_separators": "a\x1cb\x1dc\x1ed\x1fe",
    "controls": "\x00a\x01\x1fb\x7f\x80\x9f",
    "private_use": "\ue000x\uf8ff\U000f0000\U0010fffd",
    "unassigned": "a\u0378b\U00040000c\u2fe0",
    "noncharacters": "\ufdd0\ufffe\uffff\U0001fffe\U0010ffff",
    "leading_unknown_script": "\ue000\u0378 \U00011de0 x \ue000",
    "lone_private_use": "\ue000",
    "cjk_kana": "日本語のテキストとカタカナーです。ｶﾀｶﾅ",
    "chouon_alone": "ー",
    "hangul": "한국어 텍스트입니다 각",
    "thai": "ภาษาไทยง่ายนิดเดียว",
    "devanagari": "हिन्दी में लिखा है।",
    "arabic": "العربية ١٢٣ مرحبًا",
    "hebrew": "עִבְרִית שָׁלוֹם",
    "greek_cyrillic": "Ελληνικά Русский",
    "mixed_scripts": "Hello世界Привет١٢٣abc",
    "punct_runs": "!!!???...---",
    "unicode_punct": "«Bonjour»—dit-il… ¿Qué? ¡Sí!",
    "symbols": "€100 + $5 = ¥? © ™ ±2",
    "supplementary": "𝐀𝑎 𠀀𪚥 𐐀𐐨 😀🫠",
    "recent_unicode": "".join(S.RECENT_UNICODE),
    "code": "def f(x):\n    return x**2  # square\n\n\tif a != b: pass\r\n",
    "casefold_oddities": "'K 'Å 'ẞ 'ﬆ 'İ 'ı K'S",
}

# ---------------------------------------------------------------------------------------
# Fixture sections
# ---------------------------------------------------------------------------------------


def _read_pre_tokenizer(path: Path):
    """The "pre_tokenizer" value of a tokenizer.json, without parsing the whole vocabulary."""
    text = path.read_text(encoding="utf-8")
    key = text.find('"pre_tokenizer"')
    if 0 <= key < text.find('"model"'):
        i = key + len('"pre_tokenizer"')
        while text[i] in " \t\r\n:":
            i += 1
        try:
            value, _ = json.JSONDecoder().raw_decode(text, i)
            if value is None or (isinstance(value, dict) and "type" in value):
                return value
        except ValueError:
            pass
    return json.loads(text)["pre_tokenizer"]


def _fixture_sections():
    """[(id, section)] for every distinct (JSON-identical) non-null section; id joins the names."""
    if SHARED is None:
        return []
    groups: dict[str, list[str]] = {}
    sections = {}
    for path in sorted((SHARED / "tokenizers").glob("*/tokenizer.json")):
        section = _read_pre_tokenizer(path)
        if section is None:
            continue
        key = json.dumps(section, sort_keys=True, ensure_ascii=False)
        groups.setdefault(key, []).append(path.parent.name)
        sections[key] = section
    return [("+".join(names), sections[key]) for key, names in groups.items()]


def _canonical_groups(fixtures):
    """Fixture sections merged where the oracle reads them identically (e.g. use_regex omitted)."""
    groups: dict[str, list] = {}
    for name, section in fixtures:
        key = json.dumps(S.oracle_canonical_section(section), sort_keys=True)
        groups.setdefault(key, []).append((name, section))
    return [("+".join(n for n, _ in members), members[0][1]) for members in groups.values()]


FIXTURES = _fixture_sections()
FIXTURE_IDS = [name for name, _ in FIXTURES]
FIXTURE_SECTIONS = [section for _, section in FIXTURES]
SWEEP = _canonical_groups(FIXTURES)

# ---------------------------------------------------------------------------------------
# Synthetic sections
# ---------------------------------------------------------------------------------------


def split(pattern, behavior="Isolated", invert=False, regex=False):
    return {
        "type": "Split",
        "pattern": {"Regex" if regex else "String": pattern},
        "behavior": behavior,
        "invert": invert,
    }


def byte_level(add_prefix_space=False, use_regex=True, trim_offsets=True):
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }


def metaspace(replacement="▁", prepend_scheme="always", split=True):
    return {"type": "Metaspace", "replacement": replacement, "prepend_scheme": prepend_scheme, "split": split}


def sequence(*members):
    return {"type": "Sequence", "pretokenizers": list(members)}


SPLIT_STRINGS = {
    "space": " ",
    "newline": "\n",
    "slash": "/",
    "aa": "aa",
    "ab": "ab",
    "metaspace": "▁",
    "emoji": "🙂",
    "crlf": "\r\n",
    "e_acute_nfd": "e\u0301",
}


def _synthetic():
    """[(id, section, family, needles)]."""
    out = []
    for name, pat in SPLIT_STRINGS.items():
        for b in BEHAVIOURS:
            for inv in (False, True):
                out.append(
                    (
                        f"split-str-{name}-{b}-{'invert' if inv else 'plain'}",
                        split(pat, b, inv),
                        f"split-str-{name}",
                        [pat],
                    )
                )
    for name, pat in KNOWN_REGEXES.items():
        for b in BEHAVIOURS:
            for inv in (False, True):
                out.append(
                    (
                        f"split-re-{name}-{b}-{'invert' if inv else 'plain'}",
                        split(pat, b, inv, regex=True),
                        f"split-re-{name}",
                        REGEX_NEEDLES,
                    )
                )
    punct = ["!", "?!", "...", "--", "¿", "«»", "$", "€", "+", "_", "'"]
    out.append(("punctuation-default", {"type": "Punctuation"}, "punctuation", punct))
    for b in BEHAVIOURS:
        out.append((f"punctuation-{b}", {"type": "Punctuation", "behavior": b}, "punctuation", punct))
    digits = ["123456", "٣٤", "²½Ⅻ", "\U00011de0\U00011de1", "1a2"]
    for ind in (True, False):
        out.append(
            (
                f"digits-{'individual' if ind else 'grouped'}",
                {"type": "Digits", "individual_digits": ind},
                "digits",
                digits,
            )
        )
    for name, d in {"space": " ", "comma": ",", "x": "x", "metaspace": "▁", "emoji": "🙂"}.items():
        out.append((f"chardelim-{name}", {"type": "CharDelimiterSplit", "delimiter": d}, "chardelim", [d]))
    for n in (1, 2, 5, 7):
        out.append((f"fixedlength-{n}", {"type": "FixedLength", "length": n}, "fixedlength", []))
    out.append(("fixedlength-default", {"type": "FixedLength"}, "fixedlength", []))
    for t in ("UnicodeScripts", "Whitespace", "WhitespaceSplit", "BertPreTokenizer"):
        out.append((t.lower(), {"type": t}, "simple", ["ー", "\u200d", "_", "  "]))
    ms_needles = ["▁", "_", " ", "  ", "🙂"]
    for rep, rep_name in (("▁", "lowline-block"), ("_", "underscore")):
        for scheme in ("always", "first", "never"):
            for sp in (True, False):
                out.append(
                    (
                        f"metaspace-{rep_name}-{scheme}-{'split' if sp else 'nosplit'}",
                        metaspace(rep, scheme, sp),
                        "metaspace",
                        ms_needles,
                    )
                )
    legacy = {
        "metaspace-emoji-first-split": metaspace("🙂", "first", True),
        "metaspace-space-replacement": metaspace(" ", "always", True),
        "metaspace-legacy-t5": {"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "add_prefix_space": True},
        "metaspace-legacy-prefix-true": {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
        "metaspace-legacy-prefix-true-first": {
            "type": "Metaspace",
            "replacement": "▁",
            "add_prefix_space": True,
            "prepend_scheme": "first",
        },
        "metaspace-legacy-prefix-false-never": {
            "type": "Metaspace",
            "replacement": "▁",
            "add_prefix_space": False,
            "prepend_scheme": "never",
        },
        "metaspace-legacy-str-rep-differs": {
            "type": "Metaspace",
            "replacement": "▁",
            "str_rep": "_",
            "add_prefix_space": True,
        },
        "metaspace-replacement-only": {"type": "Metaspace", "replacement": "▁"},
        "metaspace-first-split-default": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"},
    }
    for name, section in legacy.items():
        out.append((name, section, "metaspace", ms_needles))
    bl_needles = [" ", "  ", "\t", "\xa0", "\n"]
    for aps in (False, True):
        for ur in (True, False):
            for tr in (True, False):
                out.append(
                    (
                        f"bytelevel-{'prefix' if aps else 'noprefix'}-{'regex' if ur else 'noregex'}-"
                        f"{'trim' if tr else 'notrim'}",
                        byte_level(aps, ur, tr),
                        "bytelevel",
                        bl_needles,
                    )
                )
        out.append(
            (
                f"bytelevel-legacy-{'prefix' if aps else 'noprefix'}-no-use_regex",
                {"type": "ByteLevel", "add_prefix_space": aps, "trim_offsets": True},
                "bytelevel",
                bl_needles,
            )
        )
    seqs = {
        "seq-split-space-then-bytelevel-prefix": sequence(split(" "), byte_level(True, False)),
        "seq-split-removed-then-bytelevel-prefix-regex": sequence(split("-", "Removed"), byte_level(True, True)),
        "seq-llama3-then-bytelevel-prefix": sequence(
            split(KNOWN_REGEXES["llama3"], regex=True), byte_level(True, False)
        ),
        "seq-cl100k-then-bytelevel": sequence(split(KNOWN_REGEXES["cl100k"], regex=True), byte_level(False, False)),
        "seq-o200k-removed-invert-then-bytelevel-prefix": sequence(
            split(KNOWN_REGEXES["o200k"], "Removed", True, regex=True), byte_level(True, False, False)
        ),
        "seq-falcon-like": sequence(
            {"type": "Punctuation", "behavior": "Contiguous"},
            byte_level(False, True),
            {"type": "Digits", "individual_digits": False},
            split(KNOWN_REGEXES["falcon_digits"], regex=True),
        ),
        "seq-falcon-like-isolated-individual": sequence(
            {"type": "Punctuation", "behavior": "Isolated"},
            byte_level(True, True),
            {"type": "Digits", "individual_digits": True},
            split(KNOWN_REGEXES["falcon_digits"], regex=True),
        ),
        "seq-whitespacesplit-metaspace-always": sequence({"type": "WhitespaceSplit"}, metaspace("▁", "always")),
        "seq-whitespacesplit-metaspace-first": sequence({"type": "WhitespaceSplit"}, metaspace("▁", "first")),
        "seq-whitespacesplit-metaspace-never-nosplit": sequence(
            {"type": "WhitespaceSplit"}, metaspace("▁", "never", False)
        ),
        "seq-metaspace-nosplit-then-split-mergednext": sequence(
            metaspace("▁", "first", False), split("▁", "MergedWithNext")
        ),
        "seq-empty": sequence(),
        "seq-nested": sequence(sequence({"type": "Whitespace"}), {"type": "Digits", "individual_digits": True}),
        "seq-bert-digits": sequence({"type": "BertPreTokenizer"}, {"type": "Digits", "individual_digits": True}),
        "seq-unicodescripts-whitespace": sequence({"type": "UnicodeScripts"}, {"type": "Whitespace"}),
        "seq-digits-then-bytelevel-regex": sequence(
            {"type": "Digits", "individual_digits": True}, byte_level(False, True)
        ),
        "seq-whitespacesplit-fixedlength": sequence({"type": "WhitespaceSplit"}, {"type": "FixedLength", "length": 2}),
        "seq-chardelim-punctuation-mergednext": sequence(
            {"type": "CharDelimiterSplit", "delimiter": "▁"}, {"type": "Punctuation", "behavior": "MergedWithNext"}
        ),
        "seq-deepseek-parts-then-metaspace": sequence(
            split(KNOWN_REGEXES["deepseek_cjk"], regex=True), metaspace("▁", "first", True)
        ),
        # A stage whose matches start only at some tags passes the pieces without one on whole
        # (pipeline.cpp with_starts): after a stage that makes many pieces, in each fold --
        # inverted and removed, a piece without a match is itself the match and goes.
        "seq-whitespacesplit-numbers-removed-invert": sequence(
            {"type": "WhitespaceSplit"}, split(KNOWN_REGEXES["deepseek_digits"], "Removed", True, regex=True)
        ),
        "seq-whitespace-numbers-mergedprevious": sequence(
            {"type": "Whitespace"}, split(KNOWN_REGEXES["deepseek_digits"], "MergedWithPrevious", regex=True)
        ),
        "seq-whitespacesplit-cjk-removed-invert": sequence(
            {"type": "WhitespaceSplit"}, split(KNOWN_REGEXES["deepseek_cjk"], "Removed", True, regex=True)
        ),
        "seq-bytelevel-triples-mergednext-invert": sequence(
            byte_level(False, True), split(KNOWN_REGEXES["falcon_digits"], "MergedWithNext", True, regex=True)
        ),
        "seq-split-space-punctuation-removed": sequence(split(" "), {"type": "Punctuation", "behavior": "Removed"}),
        "seq-split-space-whitespacesplit": sequence(split(" "), {"type": "WhitespaceSplit"}),
        "seq-bytelevel-digits-grouped": sequence(
            byte_level(False, True), {"type": "Digits", "individual_digits": False}
        ),
    }
    for name, section in seqs.items():
        out.append((name, section, "sequence", REGEX_NEEDLES[:8] + ["▁", "-", "!!", "  "]))
    return out


SYNTHETIC = _synthetic()
SYNTHETIC_IDS = [s[0] for s in SYNTHETIC]
FAMILIES: dict[str, list] = {}
for _id, _section, _family, _needles in SYNTHETIC:
    FAMILIES.setdefault(_family, []).append((_id, _section, _needles))

# Sections the oracle refuses to load (tagpipe must refuse them too), with the JSON path
# tagpipe's TokenizerJsonError names.
INVALID_SECTIONS = {
    "metaspace-prefix-false-default-scheme": (
        {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},
        "pre_tokenizer.add_prefix_space",
    ),
    "metaspace-prefix-false-always": (
        {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "always"},
        "pre_tokenizer.add_prefix_space",
    ),
    "metaspace-two-char-replacement": (
        {"type": "Metaspace", "replacement": "ab", "prepend_scheme": "always"},
        "pre_tokenizer.replacement",
    ),
    "metaspace-no-replacement": ({"type": "Metaspace"}, "pre_tokenizer.replacement"),
    "digits-no-individual_digits": ({"type": "Digits"}, "pre_tokenizer.individual_digits"),
    "bytelevel-no-trim_offsets": ({"type": "ByteLevel", "add_prefix_space": False}, "pre_tokenizer.trim_offsets"),
    "chardelim-two-chars": ({"type": "CharDelimiterSplit", "delimiter": "ab"}, "pre_tokenizer.delimiter"),
    "split-bad-behavior": (
        {"type": "Split", "pattern": {"String": " "}, "behavior": "Nope", "invert": False},
        "pre_tokenizer.behavior",
    ),
    "unknown-type": ({"type": "NoSuchPreTokenizer"}, "pre_tokenizer.type"),
    "seq-split-bad-behavior": (
        sequence(byte_level(), {"type": "Split", "pattern": {"String": " "}, "behavior": "Nope", "invert": False}),
        "pre_tokenizer.pretokenizers[1].behavior",
    ),
}

# ---------------------------------------------------------------------------------------
# The tagpipe side, and reporting
# ---------------------------------------------------------------------------------------


def tp():
    import tagpipe

    return tagpipe


def native(section):
    """tagpipe's pre-tokenizer for ``section``, built with delegation disabled."""
    mod = tp()
    with mod.delegation_disabled():
        return mod.PreTokenizer.from_json(section)


def _show_text(text: str, at: int | None) -> str:
    if len(text) <= 400 or at is None:
        shown = repr(text) if len(text) <= 4000 else repr(text[:4000]) + " ...(cut)"
        return f"text ({len(text)} chars): {shown}"
    lo, hi = max(0, at - 120), min(len(text), at + 120)
    return f"text ({len(text)} chars), around char {at} [{lo}:{hi}]: {text[lo:hi]!r}\ntext starts: {text[:120]!r}"


def mismatch_report(section, text, got, want, label=None) -> str:
    lines = ["tagpipe and tokenizers disagree"]
    if label:
        lines.append(f"input: {label}")
    lines.append("section: " + json.dumps(section, ensure_ascii=False))
    if not isinstance(got, list) or not all(isinstance(p, tuple) for p in got):
        lines.append(_show_text(text, None))
        lines.append(f"tagpipe returned {type(got).__name__} {got!r:.600}, expected list of (str, (int, int)) tuples")
        return "\n".join(lines)
    i = next((k for k, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    at = None
    for p in (want[i] if i < len(want) else None, got[i] if i < len(got) else None):
        if p is not None:
            at = p[1][0] if isinstance(p[1], tuple) else None
            break
    lines.append(_show_text(text, at))
    lines.append(f"first difference at piece #{i} (tagpipe {len(got)} pieces, oracle {len(want)}):")
    lines.append(f"  tagpipe: {got[i]!r}" if i < len(got) else "  tagpipe: <no more pieces>")
    lines.append(f"  oracle:  {want[i]!r}" if i < len(want) else "  oracle:  <no more pieces>")
    if i:
        lines.append(f"  (pieces before, equal: ...{got[max(0, i - 3) : i]!r})")
    return "\n".join(lines)


def check_texts(section, texts, pt=None, labels=None):
    """Every text: tagpipe == oracle; the first mismatch is reported in full."""
    pt = pt if pt is not None else native(section)
    oracle = oracle_pre_tokenizer(section)
    texts = list(texts)
    want = list(map(oracle.pre_tokenize_str, texts))
    got = list(map(pt.pre_tokenize_str, texts))
    if got != want:
        k = next(k for k, (g, w) in enumerate(zip(got, want)) if g != w)
        raise AssertionError(mismatch_report(section, texts[k], got[k], want[k], labels[k] if labels else None))


_NATIVE_CACHE: dict[str, object] = {}


def native_cached(section):
    key = json.dumps(section, sort_keys=True, ensure_ascii=False)
    if key not in _NATIVE_CACHE:
        _NATIVE_CACHE[key] = native(section)
    return _NATIVE_CACHE[key]


# ---------------------------------------------------------------------------------------
# Fixture sections
# ---------------------------------------------------------------------------------------

fixture_params = pytest.mark.parametrize("section", FIXTURE_SECTIONS, ids=FIXTURE_IDS)


@needs_shared
@fixture_params
def test_fixture_section_is_native(section):
    pt = native(section)
    assert pt.native is True, pt.explain()
    assert isinstance(pt.explain(), str) and pt.explain()


@needs_shared
@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_ids(CORPORA))
@fixture_params
def test_fixture_on_corpus_documents(section, corpus):
    docs = S.corpus_documents(CORPUS_DOCS_PER_FILE, seed=1, paths=[corpus])
    check_texts(section, [d.text for d in docs], pt=native_cached(section), labels=[d.label for d in docs])


@needs_shared
@pytest.mark.parametrize("edge", list(EDGE_CASES), ids=list(EDGE_CASES))
@fixture_params
def test_fixture_on_edge_case(section, edge):
    check_texts(section, [EDGE_CASES[edge]], pt=native_cached(section), labels=[edge])


@needs_shared
@fixture_params
def test_fixture_on_random_texts(section):
    check_texts(section, S.random_texts(RANDOM_TEXTS_FIXTURE, seed=7, needles=REGEX_NEEDLES), pt=native_cached(section))


@needs_shared
@fixture_params
@settings(HYPOTHESIS, max_examples=HYPOTHESIS_FIXTURE_EXAMPLES)
@given(text=S.text())
def test_fixture_on_hypothesis_text(section, text):
    check_texts(section, [text], pt=native_cached(section))


def _alone_set() -> list[str]:
    out = []
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        dense = ALONE_DENSE[0] <= c <= ALONE_DENSE[1] or ALONE_DENSE_TAGS[0] <= c <= ALONE_DENSE_TAGS[1]
        if dense or c % ALONE_STRIDE == 0 or (c & 0xFFFF) >= 0xFFFE:
            out.append(chr(c))
    seen = set(out)
    out += [c for c in S.RECENT_UNICODE + S.PRIVATE_USE + S.UNASSIGNED if c not in seen]
    return out


@needs_shared
@pytest.mark.parametrize("section", [s for _, s in SWEEP], ids=[n for n, _ in SWEEP])
def test_every_scalar_between_letters(section):
    """Every scalar value c as "a" + c + "b", many per string; a mismatch is narrowed to one c."""
    pt, oracle = native_cached(section), oracle_pre_tokenizer(section)
    scalars = S.all_scalars()
    for i in range(0, len(scalars), SCALARS_PER_STRING):
        chunk = scalars[i : i + SCALARS_PER_STRING]
        text = "".join("a" + c + "b" for c in chunk)
        if pt.pre_tokenize_str(text) != oracle.pre_tokenize_str(text):
            for c in chunk:  # narrow down to the first scalar that fails on its own
                check_texts(section, ["a" + c + "b"], pt=pt, labels=[f'"a" + U+{ord(c):04X} + "b"'])
            check_texts(
                section, [text], pt=pt, labels=[f'"a"+c+"b" for c in U+{ord(chunk[0]):04X}..U+{ord(chunk[-1]):04X}']
            )


@needs_shared
@pytest.mark.parametrize("section", [s for _, s in SWEEP], ids=[n for n, _ in SWEEP])
def test_every_scalar_alone(section):
    """Scalar values alone: all of planes 0-1 and U+E0000..E01FF, every 16th elsewhere, plus noncharacters."""
    pt, oracle = native_cached(section), oracle_pre_tokenizer(section)
    chars = _alone_set()
    want = list(map(oracle.pre_tokenize_str, chars))
    got = list(map(pt.pre_tokenize_str, chars))
    if got != want:
        k = next(k for k, (g, w) in enumerate(zip(got, want)) if g != w)
        raise AssertionError(mismatch_report(section, chars[k], got[k], want[k], f"U+{ord(chars[k]):04X} alone"))


# ---------------------------------------------------------------------------------------
# Synthetic sections
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,section,needles", [(i, s, n) for i, s, _, n in SYNTHETIC], ids=SYNTHETIC_IDS)
def test_synthetic_section(name, section, needles):
    """Native, and exact on the edge cases, bulk random text salted with its needles, and a few documents."""
    pt = native_cached(section)
    assert pt.native is True, pt.explain()
    check_texts(section, list(EDGE_CASES.values()), pt=pt, labels=list(EDGE_CASES))
    check_texts(section, S.random_texts(RANDOM_TEXTS_SYNTHETIC, seed=3, needles=needles), pt=pt)
    docs = S.corpus_documents(12, seed=5)
    check_texts(section, [d.text for d in docs], pt=pt, labels=[d.label for d in docs])


def _family_text(family):
    needles = sorted({n for _, _, ns in FAMILIES[family] for n in ns})
    return S.text_with(needles) if needles else S.text()


FAMILY_TEXT = {family: _family_text(family) for family in FAMILIES}


@pytest.mark.parametrize("family", list(FAMILIES), ids=list(FAMILIES))
@settings(HYPOTHESIS, max_examples=HYPOTHESIS_FAMILY_EXAMPLES)
@given(data=st.data())
def test_synthetic_family_on_hypothesis_text(family, data):
    """One hypothesis text per example, checked against every section of the family."""
    text = data.draw(FAMILY_TEXT[family], label="text")
    for _, section, _ in FAMILIES[family]:
        check_texts(section, [text], pt=native_cached(section))


# ---------------------------------------------------------------------------------------
# Delegation
# ---------------------------------------------------------------------------------------

DELEGATED = {
    "split-unrecognised-regex": split(UNRECOGNISED_REGEX, "Isolated", regex=True),
    "sequence-with-unrecognised-regex": sequence(
        split(UNRECOGNISED_REGEX, "MergedWithNext", regex=True), byte_level(True, False)
    ),
}


@pytest.mark.parametrize("section", list(DELEGATED.values()), ids=list(DELEGATED))
def test_unrecognised_regex_is_delegated_visibly_and_exactly(section):
    mod = tp()
    pt = mod.PreTokenizer.from_json(section)
    assert pt.native is False
    explanation = pt.explain()
    assert UNRECOGNISED_REGEX in explanation and "delegat" in explanation.lower(), explanation
    check_texts(section, list(EDGE_CASES.values()), pt=pt, labels=list(EDGE_CASES))
    check_texts(section, S.random_texts(300, seed=11, needles=["a", "ei", "ou", "aeiou"]), pt=pt)


@pytest.mark.parametrize("section", list(DELEGATED.values()), ids=list(DELEGATED))
def test_unrecognised_regex_raises_when_delegation_disabled(section):
    mod = tp()
    with mod.delegation_disabled():
        with pytest.raises(mod.DelegationError):
            mod.PreTokenizer.from_json(section)
    # the switch is scoped: outside the block delegation works again, even after an error inside
    with pytest.raises(ZeroDivisionError):
        with mod.delegation_disabled():
            1 / 0
    assert mod.PreTokenizer.from_json(section).native is False


# ---------------------------------------------------------------------------------------
# API shape
# ---------------------------------------------------------------------------------------


def test_from_json_accepts_dict_and_json_text():
    section = sequence(split(KNOWN_REGEXES["llama3"], regex=True), byte_level(False, False))
    mod = tp()
    with mod.delegation_disabled():
        a = mod.PreTokenizer.from_json(section)
        b = mod.PreTokenizer.from_json(json.dumps(section))
    text = "Hello, wörld! It's 12345 — ok?\n"
    assert a.pre_tokenize_str(text) == b.pre_tokenize_str(text) == oracle_pre_tokenize(section, text)


def test_result_types_are_exact():
    pieces = native(byte_level()).pre_tokenize_str("héllo world")
    assert type(pieces) is list
    for piece in pieces:
        assert type(piece) is tuple and len(piece) == 2
        s, (start, end) = piece
        assert type(s) is str and type(piece[1]) is tuple and type(start) is int and type(end) is int


@pytest.mark.parametrize("name", list(INVALID_SECTIONS))
def test_sections_the_oracle_rejects_are_rejected(name):
    """tagpipe refuses with its documented error (a ValueError) naming the JSON path."""
    section, path = INVALID_SECTIONS[name]
    with pytest.raises(Exception):
        oracle_pre_tokenizer(section)
    with pytest.raises(tp().spec.TokenizerJsonError) as info:
        tp().PreTokenizer.from_json(section)
    assert isinstance(info.value, ValueError) and info.value.path == path
    assert str(info.value).startswith(path + ": ") and info.value.message in str(info.value)


# ---------------------------------------------------------------------------------------
# Harness self-checks (oracle side and strategies only; these pass without tagpipe)
# ---------------------------------------------------------------------------------------


def split_string_reference(text: str, pattern: str, behavior: str, invert: bool):
    """A plain-Python Split(String) for checking the oracle harness (char offsets)."""
    segs, prev, pos = [], 0, 0
    while pattern:
        j = text.find(pattern, pos)
        if j < 0:
            break
        if j > prev:
            segs.append((prev, j, False))
        segs.append((j, j + len(pattern), True))
        prev = pos = j + len(pattern)
    if prev < len(text):
        segs.append((prev, len(text), False))
    if invert:
        segs = [(a, b, not m) for a, b, m in segs]
    out: list[list] = []
    if behavior == "Removed":
        out = [[a, b] for a, b, m in segs if not m]
    elif behavior == "Isolated":
        out = [[a, b] for a, b, _ in segs]
    elif behavior == "Contiguous":
        last = False
        for a, b, m in segs:
            if out and m == last:
                out[-1][1] = b
            else:
                out.append([a, b])
            last = m
    elif behavior == "MergedWithPrevious":
        last = False
        for a, b, m in segs:
            if m and not last and out:
                out[-1][1] = b
            else:
                out.append([a, b])
            last = m
    elif behavior == "MergedWithNext":
        last = False
        for a, b, m in reversed(segs):
            if m and not last and out:
                out[-1][0] = a
            else:
                out.append([a, b])
            last = m
        out.reverse()
    return [(text[a:b], (a, b)) for a, b in out if b > a]


def test_harness_split_string_matches_python_reference():
    for name, pat in SPLIT_STRINGS.items():
        texts = list(EDGE_CASES.values()) + S.random_texts(150, seed=3, needles=[pat]) + ["xaaaaay aab aa", "aaa"]
        for b in BEHAVIOURS:
            for inv in (False, True):
                section = split(pat, b, inv)
                for t in texts:
                    want = split_string_reference(t, pat, b, inv)
                    assert oracle_pre_tokenize(section, t) == want, (section, t)


def test_harness_gpt2_regex_is_the_bytelevel_builtin():
    texts = list(EDGE_CASES.values()) + S.random_texts(400, seed=9, needles=REGEX_NEEDLES)
    by_split = sequence(split(KNOWN_REGEXES["gpt2"], regex=True), byte_level(False, False))
    for t in texts:
        assert oracle_pre_tokenize(by_split, t) == oracle_pre_tokenize(byte_level(False, True), t), t


@needs_shared
def test_harness_known_regexes_cover_every_fixture_regex():
    def regexes(section):
        if section.get("type") == "Sequence":
            for member in section["pretokenizers"]:
                yield from regexes(member)
        elif section.get("type") == "Split" and "Regex" in section["pattern"]:
            yield section["pattern"]["Regex"]

    found = {r for s in FIXTURE_SECTIONS for r in regexes(s)}
    assert found and found <= set(KNOWN_REGEXES.values()), found - set(KNOWN_REGEXES.values())


@needs_shared
def test_harness_minimal_wrapper_is_faithful():
    """The oracle built from the section alone behaves like the full tokenizer's pre_tokenizer."""
    import tokenizers

    texts = list(EDGE_CASES.values())[:40] + S.random_texts(100, seed=13)
    seen = set()
    for path in sorted((SHARED / "tokenizers").glob("*/tokenizer.json"), key=lambda p: p.stat().st_size):
        section = _read_pre_tokenizer(path)
        key = json.dumps(section, sort_keys=True)
        if section is None or key in seen:
            continue
        seen.add(key)
        whole = json.loads(path.read_text(encoding="utf-8"))
        assert section == whole["pre_tokenizer"], path
        if path.stat().st_size > 3_000_000:  # keep it quick: everything but the big vocabulary
            whole["model"] = json.loads(S.minimal_tokenizer_json(None))["model"]
        full = tokenizers.Tokenizer.from_str(json.dumps(whole)).pre_tokenizer
        for t in texts:
            assert full.pre_tokenize_str(t) == oracle_pre_tokenize(section, t), (path, t)
    assert len(seen) == len(FIXTURES)


def test_harness_synthetic_and_invalid_sections_load_as_expected():
    for name, section, _, _ in SYNTHETIC:
        oracle_pre_tokenizer(section)  # raises if the oracle does not accept it
    for name, section in DELEGATED.items():
        oracle_pre_tokenizer(section)
    assert len(set(SYNTHETIC_IDS)) == len(SYNTHETIC_IDS)


@settings(HYPOTHESIS, max_examples=150)
@given(text=S.text())
def test_harness_text_strategy_is_valid_input(text):
    text.encode("utf-8")  # no surrogates
    oracle_pre_tokenize(split(KNOWN_REGEXES["llama3"], regex=True), text)


@needs_shared
def test_harness_corpus_documents():
    docs = S.corpus_documents(60, seed=2)
    assert docs == S.corpus_documents(60, seed=2) and len(docs) == 60
    assert {d.source for d in docs} == {p.name for p in CORPORA}
    for d in docs:
        raw = (SHARED / "corpora" / d.source).read_bytes()
        n = len(d.text.encode())
        assert raw[d.start : d.start + n] == d.text.encode()
        assert 10 <= n <= 20_000 + 3 or d.start + n == len(raw)
        for cut in (d.start, d.start + n):
            assert cut == len(raw) or (raw[cut] & 0xC0) != 0x80
