"""The Unicode scripts of the regex compiler (``\\p{Han}``, ``\\p{Latin}``, ...), read off the
oracle's Oniguruma; tables/gen_regex_props.py writes them (and checks them with ``--check``).

Scripts partition the scalar values, so three passes over all 1,112,064 of them give every
script exactly, instead of one pass per script:

1. no scalar value is in two scripts: ``(?=\\p{S1})[\\p{S2}...\\p{Sn}]|(?=\\p{S2})[\\p{S3}...]|...``
   matches nothing;
2. ``\\p{S1}+|\\p{S2}+|...`` cuts the text into runs, each of one script (a greedy run of the
   script of its first character): the first character of each run, probed against every
   script on a short text, names it, and a run whose first character is in no script would
   be a gap -- so the runs are the scripts, whole;
3. every alias (``Hani``) is its script: ``[^\\p{Han}\\P{Hani}]|[^\\p{Hani}\\P{Han}]|...``
   matches nothing.

The names are Oniguruma's (its Unicode script names and their aliases); the oracle checks each
of them, the sets come from it alone.
"""

from __future__ import annotations

import sys

from gen_tables import ORACLE, SCALARS, _oracle

# Each script Oniguruma knows, as "Name:Alias:Alias" (Unicode's long name and short aliases).
NAMES = """
Adlam:Adlm Ahom Anatolian_Hieroglyphs:Hluw Arabic:Arab Armenian:Armn Avestan:Avst Balinese:Bali Bamum:Bamu
Bassa_Vah:Bass Batak:Batk Bengali:Beng Bhaiksuki:Bhks Bopomofo:Bopo Brahmi:Brah Braille:Brai Buginese:Bugi
Buhid:Buhd Canadian_Aboriginal:Cans Carian:Cari Caucasian_Albanian:Aghb Chakma:Cakm Cham Cherokee:Cher
Chorasmian:Chrs Common:Zyyy Coptic:Copt:Qaac Cuneiform:Xsux Cypriot:Cprt Cypro_Minoan:Cpmn Cyrillic:Cyrl
Deseret:Dsrt Devanagari:Deva Dives_Akuru:Diak Dogra:Dogr Duployan:Dupl Egyptian_Hieroglyphs:Egyp Elbasan:Elba
Elymaic:Elym Ethiopic:Ethi Garay:Gara Georgian:Geor Glagolitic:Glag Gothic:Goth Grantha:Gran Greek:Grek
Gujarati:Gujr Gunjala_Gondi:Gong Gurmukhi:Guru Gurung_Khema:Gukh Han:Hani Hangul:Hang Hanifi_Rohingya:Rohg
Hanunoo:Hano Hatran:Hatr Hebrew:Hebr Hiragana:Hira Imperial_Aramaic:Armi Inherited:Qaai:Zinh
Inscriptional_Pahlavi:Phli Inscriptional_Parthian:Prti Javanese:Java Kaithi:Kthi Kannada:Knda Katakana:Kana
Kawi Kayah_Li:Kali Kharoshthi:Khar Khitan_Small_Script:Kits Khmer:Khmr Khojki:Khoj Khudawadi:Sind
Kirat_Rai:Krai Lao:Laoo Latin:Latn Lepcha:Lepc Limbu:Limb Linear_A:Lina Linear_B:Linb Lisu Lycian:Lyci
Lydian:Lydi Mahajani:Mahj Makasar:Maka Malayalam:Mlym Mandaic:Mand Manichaean:Mani Marchen:Marc
Masaram_Gondi:Gonm Medefaidrin:Medf Meetei_Mayek:Mtei Mende_Kikakui:Mend Meroitic_Cursive:Merc
Meroitic_Hieroglyphs:Mero Miao:Plrd Modi Mongolian:Mong Mro:Mroo Multani:Mult Myanmar:Mymr Nabataean:Nbat
Nag_Mundari:Nagm Nandinagari:Nand New_Tai_Lue:Talu Newa Nko:Nkoo Nushu:Nshu Nyiakeng_Puachue_Hmong:Hmnp
Ogham:Ogam Ol_Chiki:Olck Ol_Onal:Onao Old_Hungarian:Hung Old_Italic:Ital Old_North_Arabian:Narb
Old_Permic:Perm Old_Persian:Xpeo Old_Sogdian:Sogo Old_South_Arabian:Sarb Old_Turkic:Orkh Old_Uyghur:Ougr
Oriya:Orya Osage:Osge Osmanya:Osma Pahawh_Hmong:Hmng Palmyrene:Palm Pau_Cin_Hau:Pauc Phags_Pa:Phag
Phoenician:Phnx Psalter_Pahlavi:Phlp Rejang:Rjng Runic:Runr Samaritan:Samr Saurashtra:Saur Sharada:Shrd
Shavian:Shaw Siddham:Sidd SignWriting:Sgnw Sinhala:Sinh Sogdian:Sogd Sora_Sompeng:Sora Soyombo:Soyo
Sundanese:Sund Sunuwar:Sunu Syloti_Nagri:Sylo Syriac:Syrc Tagalog:Tglg Tagbanwa:Tagb Tai_Le:Tale Tai_Tham:Lana
Tai_Viet:Tavt Takri:Takr Tamil:Taml Tangsa:Tnsa Tangut:Tang Telugu:Telu Thaana:Thaa Thai Tibetan:Tibt
Tifinagh:Tfng Tirhuta:Tirh Todhri:Todr Toto Tulu_Tigalari:Tutg Ugaritic:Ugar Unknown:Zzzz Vai:Vaii
Vithkuqi:Vith Wancho:Wcho Warang_Citi:Wara Yezidi:Yezi Yi:Yiii Zanabazar_Square:Zanb
"""


def names() -> dict[str, list[str]]:
    """Script -> its aliases."""
    out = {}
    for item in NAMES.split():
        name, *aliases = item.split(":")
        out[name] = aliases
    return out


def _pieces(pattern: str, text: str, behavior: str, invert: bool = False) -> list[tuple[int, int]]:
    pt, Regex = _oracle()
    return [span for _, span in pt.Split(Regex(pattern), behavior, invert=invert).pre_tokenize_str(text)]


def _never_matches(pattern: str, text: str, what: str) -> None:
    hits = _pieces(pattern, text, "removed", invert=True)
    if hits:
        first = ord(text[hits[0][0]])
        raise SystemExit(f"gen_regex_scripts: {what} (U+{first:04X})")


def script_ranges() -> dict[str, list[tuple[int, int]]]:
    """Script -> its code point ranges (a range may span the surrogates, never looked up)."""
    scripts = names()
    order = list(scripts)
    text = "".join(map(chr, SCALARS))
    print("  probing scripts: disjoint", file=sys.stderr)
    later = ["".join(rf"\p{{{t}}}" for t in order[i + 1 :]) for i in range(len(order))]
    overlap = "|".join(rf"(?=\p{{{s}}})[{rest}]" for s, rest in zip(order, later) if rest)
    _never_matches(overlap, text, "a scalar value in two scripts")
    print("  probing scripts: aliases", file=sys.stderr)
    pairs = [(s, a) for s in order for a in scripts[s]]
    _never_matches("|".join(rf"[^\p{{{x}}}\P{{{y}}}]|[^\p{{{y}}}\P{{{x}}}]" for x, y in pairs), text, "an alias")
    print("  probing scripts: runs", file=sys.stderr)
    runs = _pieces("|".join(rf"\p{{{s}}}+" for s in order), text, "isolated")
    firsts = "".join(text[a] for a, _ in runs)
    owner: list[list[str]] = [[] for _ in runs]
    for s in order:
        for a, _ in _pieces(rf"\p{{{s}}}", firsts, "removed", invert=True):
            owner[a].append(s)
    out: dict[str, list[tuple[int, int]]] = {s: [] for s in order}
    for (a, b), own in zip(runs, owner):
        if len(own) != 1:
            raise SystemExit(f"gen_regex_scripts: U+{SCALARS[a]:04X} starts a run of scripts {own}")
        out[own[0]].append((SCALARS[a], SCALARS[b - 1]))
    return out


def _wrap(words: list[str], width: int = 108) -> list[str]:
    """Words joined by spaces into strings of at most `width` characters, each but the last
    ending in its space."""
    lines, line = [], ""
    for w in words:
        if line and len(line) + len(w) > width:
            lines.append(line)
            line = ""
        line += w + " "
    return lines + [line[:-1]]


def emit_py(ranges: dict[str, list[tuple[int, int]]]) -> str:
    rows = []
    for name, rs in ranges.items():
        words = [f"{lo:X}" if lo == hi else f"{lo:X}-{hi:X}" for lo, hi in rs]
        one = f'    "{name}": "{" ".join(words)}",'
        if len(one) <= 120:
            rows.append(one)
        else:  # implicitly concatenated strings, as ruff formats them
            rows.append(f'    "{name}": (\n' + "\n".join(f'        "{p}"' for p in _wrap(words)) + "\n    ),")
    aliases = "\n".join(f'    "{a}": "{s}",' for s, al in names().items() for a in al)
    body = "\n".join(rows)
    return f'''\
# GENERATED by tables/gen_regex_props.py from the oracle {ORACLE}. Do not edit.
"""The Unicode scripts Oniguruma knows (``\\\\p{{Han}}``), each as code point ranges read off the
oracle over every scalar value (tables/gen_regex_scripts.py)."""

# script -> its ranges: hex "lo-hi" or "cp", space-separated (a range may span the surrogates)
SCRIPTS: dict[str, str] = {{
{body}
}}

# alias -> script
ALIASES: dict[str, str] = {{
{aliases}
}}
'''
