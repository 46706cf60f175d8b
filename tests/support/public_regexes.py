"""Split regexes of public tokenizer.json files (the patterns only, with where they were read),
for the regex compiler's exactness tests (tests/test_regex_compiler.py) and docs/exactness.md.

LLAMA_VOCAB: ggml-org/llama.cpp src/llama-vocab.cpp, which quotes each model's tokenizer.json
regex ("original regex from tokenizer.json") or uses it unchanged.
"""

from __future__ import annotations

LLAMA_VOCAB = "ggml-org/llama.cpp:src/llama-vocab.cpp"
TRANSFORMERS_JS = "huggingface/transformers.js (Bloom pre-tokenizer, see its issue 94)"

# (name, pattern, source)
PUBLIC_REGEXES: list[tuple[str, str, str]] = [
    ("gpt2-no-trailing-ws", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)", LLAMA_VOCAB),
    ("starcoder-digits", r"\p{N}", LLAMA_VOCAB),
    ("falcon-punct", r"[\p{P}\$\+<=>\^~\|`]+", LLAMA_VOCAB),
    ("falcon-digit-triples", "[0-9][0-9][0-9]", LLAMA_VOCAB),
    (
        "jais2",
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
        r"|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)"
        r"|\s{1,2}(?!\S)|\s{1}",
        LLAMA_VOCAB,
    ),
    ("deepseek-llm-newline", "[\r\n]", LLAMA_VOCAB),
    (  # (characters NFC would change are written as escapes, as the file has them)
        "deepseek-llm-letters",
        "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
        LLAMA_VOCAB,
    ),
    ("deepseek-llm-punct", "\\s?[!-/:-~！-／：-～‘-‟　-。]+", LLAMA_VOCAB),
    ("deepseek-llm-trailing-ws", r"\s+$", LLAMA_VOCAB),
    ("deepseek-llm-cjk", "[一-龥ࠀ-一가-퟿]+", LLAMA_VOCAB),
    ("deepseek-llm-numbers", r"\p{N}+", LLAMA_VOCAB),
    ("deepseek-coder-letters", r"\s?\p{L}+", LLAMA_VOCAB),
    ("deepseek-coder-punct", r"\s?\p{P}+", LLAMA_VOCAB),
    (
        "spark2.5-words",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
        "| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+",
        LLAMA_VOCAB,
    ),
    ("youtu-cjk", "[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+", LLAMA_VOCAB),
    (
        "qwen3.5",
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+",
        LLAMA_VOCAB,
    ),
    ("bloom-llama-cpp", " ?[^(\\s|.,!?…。，、।۔،)]+", LLAMA_VOCAB),
    ("bloom", " ?[^(\\s|[.,!?…。，、।۔،])]+", TRANSFORMERS_JS),
    (
        "mistral-tekken",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?"
        r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+"
        r"|\s+(?!\S)|\s+",
        LLAMA_VOCAB,
    ),
    ("chameleon-sentinel", "<sentinel:[0-9]+>", LLAMA_VOCAB),
    ("chameleon-image", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", LLAMA_VOCAB),
    ("chameleon-whitespace", "([\\t\\n]|    |  )", LLAMA_VOCAB),
    ("chameleon-punct", r"[\p{P}!-/:-@\[-`{-~]", LLAMA_VOCAB),
    ("tiny-aya-digits", r"\d{1,3}(?=(?:\d{3})*\b)", LLAMA_VOCAB),
    ("kimi-k2-han", r"\p{Han}+", LLAMA_VOCAB),
    ("superbpe-groups", r"(?=(\d{3})+(?!\d))", LLAMA_VOCAB),
    (
        "bailingmoe",
        r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+",
        LLAMA_VOCAB,
    ),
    (
        "seed-coder",
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\r\n]+|\\s*[\r\n]+"
        "|\\s+(?!\\S)|\\s+",
        LLAMA_VOCAB,
    ),
    (
        "ufakzeka",
        r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        LLAMA_VOCAB,
    ),
    (
        "afmoe-cjk",
        "[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+",
        LLAMA_VOCAB,
    ),
    ("laguna-lines", r"[^\n]+|[\n]+", LLAMA_VOCAB),
    (
        "clip",
        r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+",
        "openai/CLIP tokenizer.json as quoted by several ports (e.g. huggingface/transformers.js tests)",
    ),
    ("clip-no-specials", r"'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+", "CLIP tokenizer.json ports"),
]
