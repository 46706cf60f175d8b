"""Hostile-but-realistic text for the exactness tests, and the oracle side of them.

Three things live here, shared by every parity test:

* the **oracle**: :func:`oracle_pre_tokenizer` builds ``tokenizers``' own pre-tokenizer for a
  ``tokenizer.json`` ``"pre_tokenizer"`` section (through a minimal ``Tokenizer`` wrapper, the
  way a real file is loaded), :func:`oracle_pre_tokenize` runs it;
* **hypothesis strategies**: :func:`text` and the building blocks it mixes (:func:`words`,
  :func:`contractions`, :func:`numbers`, :func:`whitespace_runs`, ...), plus
  :func:`text_with` which salts the text with given needles (e.g. a Split pattern);
* **deterministic bulk text** for cheap wide sweeps: :func:`random_texts` (plain ``random``,
  same tables as the strategies), :func:`corpus_documents` (the shared corpora cut into
  documents of 10 bytes to 20 kB at character boundaries) and :func:`all_scalars`.

Every table below is data, not a claim about how any pre-tokenizer treats it: the oracle
decides.  Tables deliberately include code points whose properties changed between Unicode
versions (Rust ``std`` 17, the ``regex`` crate and Oniguruma 16, ``UnicodeScripts`` ~10).
"""

from __future__ import annotations

import functools
import json
import math
import random
import unicodedata
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from hypothesis import strategies as st

from .data import CORPORA

# ---------------------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------------------


def _section_json(section) -> str:
    """A section (dict, or JSON text) as canonical JSON text."""
    if isinstance(section, str):
        section = json.loads(section)
    return json.dumps(section, sort_keys=True, ensure_ascii=False)


def minimal_tokenizer_json(section, key: str = "pre_tokenizer") -> str:
    """The smallest tokenizer.json that carries ``section`` as its pre_tokenizer (or as its
    ``key``: "normalizer")."""
    if isinstance(section, str):
        section = json.loads(section)
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": None,
            key: section,
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
        },
        ensure_ascii=False,
    )


@functools.lru_cache(maxsize=None)
def _oracle_cached(canonical: str):
    import tokenizers

    return tokenizers.Tokenizer.from_str(minimal_tokenizer_json(canonical)).pre_tokenizer


def oracle_pre_tokenizer(section):
    """``tokenizers``' pre-tokenizer object for ``section`` (cached). Raises what the oracle raises."""
    return _oracle_cached(_section_json(section))


def oracle_pre_tokenize(section, text: str):
    """``tokenizers``' ``pre_tokenize_str`` for ``section`` on ``text``."""
    return oracle_pre_tokenizer(section).pre_tokenize_str(text)


def oracle_canonical_section(section) -> dict:
    """The section as the oracle re-serialises it (defaults filled in, legacy fields resolved)."""
    import tokenizers

    tok = tokenizers.Tokenizer.from_str(minimal_tokenizer_json(section))
    return json.loads(tok.to_str())["pre_tokenizer"]


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------

ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz"
ASCII_UPPER = ASCII_LOWER.upper()
LATIN_PRECOMPOSED = "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿßœšžłđħıĳŋ" + "ÀÁÂÄÅÆÇÉÊÑÖØÜÝŒŠŽŁİ" + "ǅǈǋ"
# Case-folding oddities: long s, Kelvin, Angstrom, capital sharp s, ligatures, dotless/dotted i.
CASEFOLD_ODDITIES = "ſKÅẞﬀﬁﬂﬅﬆİıǰΐ"
COMBINING = [
    "\u0300",
    "\u0301",
    "\u0302",
    "\u0303",
    "\u0304",
    "\u0308",
    "\u030a",
    "\u030c",
    "\u0323",
    "\u0327",
    "\u0328",
    "\u0331",
    "\u0345",
    "\u034f",
    "\u0489",
    "\u05b7",
    "\u05bc",
    "\u064b",
    "\u0650",
    "\u0670",
    "\u093c",
    "\u094d",
    "\u0951",
    "\u0e31",
    "\u0e48",
    "\u1ab0",
    "\u1dc0",
    "\u20d7",
    "\u20dd",
    "\u20e3",
    "\u302a",
    "\u3099",
    "\u309a",
    "\ufe20",
    "\U0001d165",
    "\U000e0100",
]
CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯіїєґѣѳѵ"
GREEK = "αβγδεζηθικλμνξοπρσςτυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩάέήίόύώϊϋΐΰᾈῼ"
ARABIC = "ابتثجحخدذرزسشصضطظعغفقكلمنهويءآأؤإئةى" + "\u0640"  # + tatweel (Lm)
ARABIC_MARKS = "\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652\u0670"
HEBREW = "אבגדהוזחטיכלמנסעפצקרשתךםןףץ"
HEBREW_MARKS = "\u05b0\u05b4\u05b7\u05bc\u05c1"
DEVANAGARI = "अआइईउऊएऐओऔकखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह"
DEVANAGARI_MARKS = "\u093e\u093f\u0940\u0941\u0947\u094b\u094d\u0902\u0903\u093c"
THAI = "กขคงจฉชซญดตถทธนบปผพฟภมยรลวศษสหอฮะาำเแโใไๆฯ"
THAI_MARKS = "\u0e31\u0e34\u0e35\u0e36\u0e37\u0e38\u0e39\u0e47\u0e48\u0e49\u0e4a\u0e4b\u0e4c"
CJK = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事"
    + "々〆〇𠀀𠀁𪚥𫝀"
)  # noqa: E501 (wide characters)
HIRAGANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんがぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽぁぃぅぇぉっゃゅょゝゞ"  # noqa: E501 (wide characters)
KATAKANA = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンガギグゲゴヴァィゥェォッャュョヵヶー・ヽヾｱｲｳｰﾞﾟ"  # noqa: E501 (wide characters)
HANGUL = "한국어가나다라마바사아자차카타파하읽었습니다똠방각하" + "ㄱㄴㄷㅏㅑ" + "\u1100\u1161\u11a8\u1112\u1175"
SUPPLEMENTARY_LETTERS = "𐌰𐌱𐌲𐐀𐐨𐒰𐓘𞤀𞤢𝐀𝑎𝔸𝕏𓀀𒀀𐀀𗀀𖿠"
# Code points new in Unicode 14-17: the components of the oracle see them differently.
RECENT_UNICODE = [
    "\U0001e290",
    "\U00010570",
    "\U00011f04",
    "\U00011f50",
    "\U0001e4d0",
    "\U0001e4f0",
    "\U00031350",
    "\U0002ebf0",
    "\U00010d40",
    "\U00010d50",
    "\U00016100",
    "\U00016130",
    "\U00016d40",
    "\U00016d70",
    "\U0001e5d0",
    "\U0001e5f1",
    "\U00011bc0",
    "\U00011bf0",
    "\U000105c0",
    "\U00011380",
    "\U0001cc00",
    "\U0001ccf0",
    "\U00013460",
    "\U00011de0",
    "\U00011de5",
    "\U00011de9",
    "\U00016ff4",
    "\U00016ff5",
    "\U00016ff6",
    "\U000323b0",
]

DIGITS = {
    "ascii": "0123456789",
    "arabic_indic": "٠١٢٣٤٥٦٧٨٩",
    "ext_arabic_indic": "۰۱۲۳۴۵۶۷۸۹",
    "devanagari": "०१२३४५६७८९",
    "bengali": "০১২৩৪৫",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
    "fullwidth": "０１２３４５６７８９",
    "math": "𝟎𝟏𝟐𝟑𝟘𝟙𝟶",
    "superscript": "⁰¹²³⁴⁵⁶⁷⁸⁹",
    "subscript": "₀₁₂₃₉",
    "fraction": "½⅓¼¾⅞↉",
    "roman": "ⅠⅡⅢⅣⅫⅰⅱⅻↀↈ",
    "circled": "①②⑳㉑⓪❶",
    "cjk_numeric": "〇〡〢〸",
    "unicode17_numeric": "\U00011de0\U00011de1\U00011de2\U00011de3\U00011de4\U00011de9\U00016ff4\U00016ff5\U00016ff6",
    "unicode15_16_digits": "\U00011f50\U00011f51\U0001e4f0\U00010d40\U00010d41\U00016130\U0001ccf0\U0001ccf1\U00011bf0",
}

WHITESPACE = [
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x85",
    "\xa0",
    "\u1680",
    "\u2000",
    "\u2002",
    "\u2003",
    "\u2009",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    # not White_Space, but whitespace somewhere (Python's isspace, old Unicode, editors):
    "\u180e",
    "\u200b",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
    "\ufeff",
]
ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
UNICODE_PUNCT = "¡¿«»‹›“”„‘’‚–—―…‰′″§¶·•†‡※‼⁇、。，．：；！？「」『』【】〈〉《》〔〕・｡､･־׃׳״؟،؛۔।॥๏๚"
SYMBOLS = "€£¥¢₹₽₿©®™°±×÷∞≈≠≤≥∑∏√∂∆∇←↑→↓↔⇒⇔★☆♠♣♥♦♪♫☃✓✗⌘⏎␣¬¦¨¯´¸˚˜ˇ˘" + "𝄞🀄🃏"
SPECIAL_RUNS = [
    "/",
    "//",
    "///",
    "://",
    "▁",
    "▁▁",
    "▁▁▁",
    "▁ ",
    " ▁",
    "...",
    "---",
    "==",
    "->",
    "=>",
    "::",
    "**",
    "__",
    "~~",
    "''",
    '""',
    "``",
    "<|endoftext|>",
    "\\n",
    "%%",
]
EMOJI = [
    "😀",
    "🙂",
    "👍",
    "👍🏽",
    "❤️",
    "❤",
    "☺︎",
    "☺️",
    "👨‍👩‍👧‍👦",
    "👩‍💻",
    "🧑🏿‍💻",
    "🏳️‍🌈",
    "👁️‍🗨️",
    "🇫🇷",
    "🇺🇸🇯🇵",
    "1️⃣",
    "#️⃣",
    "*️⃣",
    "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "🫠",
    "🦖",
    "✈️",
    "©️",
    "\U0001f1e6",  # a lone regional indicator
]
VARIATION_SELECTORS = ["\ufe0e", "\ufe0f", "\ufe00", "\U000e0100", "\U000e01ef", "\u180b"]
JOINERS = [
    "\u200d",
    "\u200c",
    "\u200b",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u034f",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u061c",
]
CONTROLS = (
    [chr(c) for c in range(0x00, 0x09)]
    + [chr(c) for c in range(0x0E, 0x20)]
    + ["\x7f", "\x80", "\x84", "\x86", "\x9b", "\x9f"]
)
PRIVATE_USE = ["\ue000", "\ue8ff", "\uf8ff", "\U000f0000", "\U000ffffd", "\U00100000", "\U0010fffd"]
UNASSIGNED = [
    "\u0378",
    "\u0379",
    "\u0380",
    "\u0383",
    "\u2fe0",
    "\ufdd0",
    "\ufdef",
    "\ufffe",
    "\uffff",
    "\U0001fffe",
    "\U0002fffe",
    "\U0003fffd",
    "\U00040000",
    "\U0007a5a5",
    "\U000c1234",
    "\U000e0080",
    "\U000efffd",
    "\U0010ffff",
]

APOSTROPHES = ["'", "'", "'", "’", "‘", "ʼ", "`", "''", "´", "＇"]
CONTRACTION_SUFFIXES = [
    "s",
    "S",
    "ſ",
    "t",
    "T",
    "re",
    "RE",
    "Re",
    "rE",
    "ve",
    "VE",
    "m",
    "M",
    "ll",
    "LL",
    "lL",
    "d",
    "D",
    "ſt",
    "ﬆ",
    "st",
    "res",
    "dve",
    "",
    "1",
    "12",
    " ",
    "\n",
    "'",
    "é",
    "ß",
]
CONTRACTION_WORDS = [
    "",
    "",
    "it",
    "It",
    "IT",
    "don",
    "DON",
    "can",
    "we",
    "they",
    "I",
    "you",
    "HTTPServer",
    "O",
    "rock",
    "n",
    "l",
    "1",
    "2024",
    "é",
    "ſ",
    "Привет",
    "中",
    " ",
    "  ",
    "\n",
    "x'y",
]

SCRIPTS = {
    "latin": ASCII_LOWER + ASCII_UPPER,
    "latin_accented": LATIN_PRECOMPOSED + ASCII_LOWER,
    "casefold": CASEFOLD_ODDITIES + ASCII_LOWER,
    "cyrillic": CYRILLIC,
    "greek": GREEK,
    "arabic": ARABIC + ARABIC_MARKS,
    "hebrew": HEBREW + HEBREW_MARKS,
    "devanagari": DEVANAGARI + DEVANAGARI_MARKS,
    "thai": THAI + THAI_MARKS,
    "cjk": CJK,
    "hiragana": HIRAGANA + "ー",
    "katakana": KATAKANA,
    "kana_cjk": HIRAGANA[:20] + KATAKANA[:20] + CJK[:20] + "ーーー",
    "hangul": HANGUL,
    "supplementary": SUPPLEMENTARY_LETTERS,
}

# ---------------------------------------------------------------------------------------
# Hypothesis strategies
# ---------------------------------------------------------------------------------------


def _nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def words(scripts: Sequence[str] | None = None, max_size: int = 12) -> st.SearchStrategy[str]:
    """A word from one script (all of :data:`SCRIPTS` unless narrowed), sometimes decomposed."""
    names = list(scripts) if scripts is not None else sorted(SCRIPTS)
    word = st.sampled_from(names).flatmap(lambda name: st.text(alphabet=SCRIPTS[name], min_size=1, max_size=max_size))
    return st.one_of(word, word.map(_nfd))


def latin_words() -> st.SearchStrategy[str]:
    """ASCII words in every casing: lower, UPPER, Title, camelCase, HTTPServer-like runs."""
    lower = st.text(alphabet=ASCII_LOWER, min_size=1, max_size=8)
    return st.one_of(
        lower,
        lower.map(str.upper),
        lower.map(str.title),
        st.tuples(lower, lower.map(str.title)).map("".join),
        st.tuples(lower.map(str.upper), lower.map(str.title)).map("".join),
        st.sampled_from(["HTTPServer", "XMLHttpRequest", "iPhone", "McDonald", "DON", "I", "a"]),
    )


def accented_words() -> st.SearchStrategy[str]:
    """Latin words with accents, precomposed (NFC) or decomposed (NFD)."""
    w = st.text(alphabet=LATIN_PRECOMPOSED + ASCII_LOWER, min_size=1, max_size=10)
    return st.one_of(w, w.map(_nfd))


def combining_sequences() -> st.SearchStrategy[str]:
    """A base (letter, digit, space, symbol, nothing) followed by 1-5 combining marks."""
    base = st.sampled_from(["a", "e", "Z", "ı", "α", "д", "ש", "क", "ก", "1", " ", "", "中", "😀", "▁", "-", "'", "\n"])
    marks = st.lists(st.sampled_from(COMBINING), min_size=1, max_size=5).map("".join)
    return st.tuples(base, marks).map("".join)


def emoji_sequences() -> st.SearchStrategy[str]:
    """Emoji: plain, skin tones, ZWJ families, flags, keycaps, tags, with variation selectors."""
    single = st.sampled_from(EMOJI)
    zwj = st.lists(single, min_size=2, max_size=4).map("\u200d".join)
    with_vs = st.tuples(single, st.sampled_from(VARIATION_SELECTORS)).map("".join)
    return st.one_of(single, zwj, with_vs)


def joiners() -> st.SearchStrategy[str]:
    """ZWJ/ZWNJ/ZWSP/word joiner/BOM/soft hyphen/bidi controls, alone or between letters."""
    j = st.sampled_from(JOINERS + VARIATION_SELECTORS)
    return st.one_of(
        j,
        st.tuples(
            st.sampled_from(["ab", "a", "क", "ب", "1", " "]), j, st.sampled_from(["cd", "b", "ष", "ت", "2", " "])
        ).map("".join),
    )


def contractions() -> st.SearchStrategy[str]:
    """Apostrophes in every context: 's 'S 'ſ 'T 're 'RE 've 'm 'll 'd, '', at start/end, before
    digits/spaces, curly."""
    return st.tuples(
        st.sampled_from(CONTRACTION_WORDS),
        st.sampled_from(APOSTROPHES),
        st.sampled_from(CONTRACTION_SUFFIXES),
        st.sampled_from(["", "", "", "a", "x", "ve", "ll", " ", "\n", "1", "'", ".", "s"]),
    ).map("".join)


def numbers() -> st.SearchStrategy[str]:
    """Digit runs (1-14 long) from one script, or mixed across scripts, with separators."""
    one_script = st.sampled_from(sorted(DIGITS)).flatmap(lambda k: st.text(alphabet=DIGITS[k], min_size=1, max_size=14))
    mixed = st.text(alphabet="".join(DIGITS.values()), min_size=1, max_size=8)
    separated = st.lists(st.text(alphabet="0123456789", min_size=1, max_size=4), min_size=2, max_size=4).flatmap(
        lambda parts: st.sampled_from([",", ".", " ", "_", "/", ":", "-", "\u202f", "'"]).map(
            lambda sep: sep.join(parts)
        )
    )
    return st.one_of(one_script, one_script, mixed, separated)


def whitespace_runs(max_size: int = 12) -> st.SearchStrategy[str]:
    """Whitespace runs: spaces, tabs, CR/LF/CRLF, VT, FF, NBSP, U+2028/9, U+3000, U+1680, ...; sometimes long."""
    short = st.lists(st.sampled_from(WHITESPACE), min_size=1, max_size=max_size).map("".join)
    spaces = st.integers(1, 300).map(lambda n: " " * n)
    mixed_long = st.tuples(
        st.integers(0, 40), st.sampled_from(["\n", "\r\n", "\n\n", "\t", "\r"]), st.integers(0, 40)
    ).map(lambda t: " " * t[0] + t[1] + " " * t[2])
    return st.one_of(short, short, spaces, mixed_long)


def punctuation_runs() -> st.SearchStrategy[str]:
    """ASCII and Unicode punctuation and symbols, `/` runs, ▁ runs, short operators."""
    alphabet = ASCII_PUNCT + UNICODE_PUNCT + SYMBOLS
    return st.one_of(
        st.text(alphabet=alphabet, min_size=1, max_size=4),
        st.text(alphabet=ASCII_PUNCT, min_size=1, max_size=6),
        st.sampled_from(SPECIAL_RUNS),
        st.integers(1, 12).map(lambda n: "/" * n),
        st.integers(1, 12).map(lambda n: "▁" * n),
    )


def oddities() -> st.SearchStrategy[str]:
    """Controls, private use, unassigned/noncharacters, supplementary and recently-assigned code points."""
    return st.one_of(
        st.sampled_from(CONTROLS),
        st.sampled_from(PRIVATE_USE),
        st.sampled_from(UNASSIGNED),
        st.sampled_from(RECENT_UNICODE),
        st.text(alphabet=SUPPLEMENTARY_LETTERS, min_size=1, max_size=4),
        st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
        st.characters(codec="utf-8"),
    )


def fragment() -> st.SearchStrategy[str]:
    """One building block of :func:`text`; whitespace and words are drawn most often."""
    ws = whitespace_runs()
    return st.one_of(
        ws,
        ws,
        st.just(" "),
        st.just(" "),
        st.just("\n"),
        words(),
        latin_words(),
        latin_words(),
        accented_words(),
        combining_sequences(),
        emoji_sequences(),
        joiners(),
        contractions(),
        contractions(),
        numbers(),
        numbers(),
        punctuation_runs(),
        punctuation_runs(),
        oddities(),
        st.text(max_size=6),  # anything at all (no surrogates)
    )


def text(max_fragments: int = 30) -> st.SearchStrategy[str]:
    """Hostile-but-realistic text: a mix of every building block above, concatenated."""
    return st.lists(fragment(), max_size=max_fragments).map("".join)


def text_with(needles: Sequence[str], max_fragments: int = 30) -> st.SearchStrategy[str]:
    """:func:`text` salted with ``needles`` (alone, doubled, tripled, cut in half)."""
    pieces = []
    for n in needles:
        pieces += [n, n, n * 2, n * 3]
        if len(n) > 1:
            pieces += [n[: len(n) // 2], n[len(n) // 2 :]]
    salt = st.sampled_from(pieces)
    return st.lists(st.one_of(fragment(), salt, salt), max_size=max_fragments).map("".join)


# ---------------------------------------------------------------------------------------
# Deterministic bulk text (no hypothesis overhead)
# ---------------------------------------------------------------------------------------


def _rand_block(rng: random.Random) -> str:
    k = rng.randrange(16)
    if k <= 2:
        return "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 6))) if k else " "
    if k == 3:
        name = rng.choice(sorted(SCRIPTS))
        w = "".join(rng.choice(SCRIPTS[name]) for _ in range(rng.randint(1, 10)))
        return _nfd(w) if rng.random() < 0.3 else w
    if k == 4:
        w = "".join(rng.choice(ASCII_LOWER) for _ in range(rng.randint(1, 8)))
        return rng.choice([w, w.upper(), w.title(), "HTTPServer", "DON"])
    if k == 5:
        return rng.choice("aeZıαдשक1 中") + "".join(rng.choice(COMBINING) for _ in range(rng.randint(1, 4)))
    if k == 6:
        return rng.choice(EMOJI) + rng.choice(["", "", "\u200d" + rng.choice(EMOJI), rng.choice(VARIATION_SELECTORS)])
    if k == 7:
        return rng.choice(["ab", "a", "1", " ", ""]) + rng.choice(JOINERS) + rng.choice(["cd", "b", "2", ""])
    if k in (8, 9):
        return (
            rng.choice(CONTRACTION_WORDS)
            + rng.choice(APOSTROPHES)
            + rng.choice(CONTRACTION_SUFFIXES)
            + rng.choice(["", "", "x", " ", "1"])
        )
    if k == 10:
        digits = DIGITS[rng.choice(sorted(DIGITS))]
        return "".join(rng.choice(digits) for _ in range(rng.randint(1, 12)))
    if k == 11:
        return rng.choice(SPECIAL_RUNS + list(ASCII_PUNCT) + list(UNICODE_PUNCT) + list(SYMBOLS))
    if k == 12:
        return rng.choice(CONTROLS + PRIVATE_USE + UNASSIGNED + RECENT_UNICODE + list(SUPPLEMENTARY_LETTERS))
    if k == 13:
        return " " * rng.randint(1, 40) + rng.choice(["\n", "\r\n", "\n\n", ""]) + " " * rng.randint(0, 8)
    if k == 14:
        c = rng.randrange(0x110000)
        return "" if 0xD800 <= c < 0xE000 else chr(c)
    return rng.choice(["\n", "\r\n", "\t", "  ", "\u3000", "\xa0"])


def random_texts(n: int, seed: int = 0, needles: Sequence[str] = (), max_blocks: int = 30) -> list[str]:
    """``n`` deterministic texts made of the same blocks as :func:`text` (plus ``needles``)."""
    rng = random.Random(f"tagpipe-texts:{seed}:{'|'.join(needles)}")
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, max_blocks)):
            if needles and rng.random() < 0.25:
                parts.append(rng.choice(needles) * rng.choice([1, 1, 2, 3]))
            else:
                parts.append(_rand_block(rng))
        out.append("".join(parts))
    return out


def all_scalars() -> list[str]:
    """Every Unicode scalar value (U+0000..U+10FFFF without surrogates), as 1-char strings."""
    return [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


class Document(NamedTuple):
    source: str  # corpus file name
    start: int  # byte offset of the document in that file
    text: str

    @property
    def label(self) -> str:
        return f"{self.source}@{self.start}+{len(self.text.encode())}B"


@functools.lru_cache(maxsize=None)
def _corpus_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def _boundary(data: bytes, i: int) -> int:
    """The first UTF-8 character boundary at or after ``i``."""
    while i < len(data) and (data[i] & 0xC0) == 0x80:
        i += 1
    return i


@functools.lru_cache(maxsize=None)
def _corpus_documents(max_docs: int, seed: int, paths: tuple[str, ...]) -> tuple[Document, ...]:
    docs: list[Document] = []
    if not paths or max_docs <= 0:
        return ()
    per_file = [max_docs // len(paths) + (i < max_docs % len(paths)) for i in range(len(paths))]
    lo, hi = math.log(10), math.log(20_000)
    for path, count in zip(paths, per_file):
        data = _corpus_bytes(path)
        name = Path(path).name
        rng = random.Random(f"tagpipe-corpus:{seed}:{name}")
        n = len(data)
        for k in range(count):
            length = int(math.exp(rng.uniform(lo, hi)))
            if k == 0:
                start = 0  # the very start of the file
            elif k == 1:
                start = max(0, n - length)  # the very end of the file
            elif k % 4 == 0 and docs and docs[-1].source == name:
                start = docs[-1].start + len(docs[-1].text.encode())  # right after the last one
            else:
                start = rng.randrange(n)
            start = _boundary(data, min(start, n))
            end = _boundary(data, min(n, start + length))
            if end <= start:  # ran off the end: take the tail
                start = _boundary(data, max(0, n - length))
                end = n
            docs.append(Document(name, start, data[start:end].decode("utf-8")))
    return tuple(docs)


def corpus_documents(max_docs: int, seed: int = 0, paths: Iterable[Path | str] | None = None) -> list[Document]:
    """Cut the shared corpora into ``max_docs`` documents (spread over ``paths``, default every corpus).

    Lengths are log-uniform from 10 bytes to 20 kB; cuts fall at random points but always at
    UTF-8 character boundaries (a CRLF may be cut in half, a multi-byte character never).
    Each file contributes its very first and very last bytes, and some documents follow each
    other directly. Deterministic for a given ``seed``. Empty when the corpora are absent.
    """
    chosen = tuple(str(p) for p in (CORPORA if paths is None else paths))
    return list(_corpus_documents(max_docs, seed, chosen))
