"""The parity subset that scripts/parity_aarch64.sh runs on the aarch64 build under qemu.

    python parity_aarch64.py expect --out FILE [--bytes N] [--generated N]   (host, the oracle)
    python parity_aarch64.py check FILE                                       (aarch64, tagpipe)

``expect`` cuts documents from the shared corpora (the first and a random ``--bytes`` of each)
and generates ``--generated`` hostile texts, encodes them with the pinned oracle, with and
without special tokens, and writes texts and ids to FILE.  ``check`` encodes the same texts
with tagpipe under ``delegation_disabled()`` (batch and one by one) and compares every id; it
needs only numpy and pydantic, so the emulated Python has no ``tokenizers``.  Stand-alone on
purpose: tests/support imports pytest and hypothesis, which the emulated Python lacks.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

MODELS = ["gpt2", "llama2", "llama3", "all-minilm-l6-v2", "bert-wiki"]  # the last two: BERT WordPiece
ORACLE = "0.23.3"


def shared() -> Path:
    path = Path(os.environ.get("TAGPIPE_TEST_DATA", Path(__file__).resolve().parent.parent.parent / "shared"))
    if not (path / "corpora").is_dir():
        sys.exit(f"parity_aarch64: {path}/corpora not found: set TAGPIPE_TEST_DATA to the shared/ folder")
    return path


def _boundary(data: bytes, i: int) -> int:
    while i < len(data) and (data[i] & 0xC0) == 0x80:
        i += 1
    return i


def corpus_docs(path: Path, nbytes: int, rng: random.Random) -> list[str]:
    """The first and a random ``nbytes`` of a corpus, each cut into documents of 10 B .. 8 kB."""
    data = path.read_bytes()
    docs = []
    for start in (0, rng.randrange(max(1, len(data) - nbytes))):
        pos, end = _boundary(data, start), _boundary(data, min(len(data), start + nbytes))
        while pos < end:
            cut = _boundary(data, min(end, pos + int(math.exp(rng.uniform(math.log(10), math.log(8192))))))
            docs.append(data[pos:cut].decode("utf-8"))
            pos = cut
    return docs


# Blocks of hostile text: scripts, marks, emoji and joiners, contractions, digits of many
# systems, whitespace and control runs, private-use and unassigned code points, any scalar.
_PIECES = [
    "Hello",
    "WORLD",
    "HTTPServer",
    "don't",
    "I'M",
    "we’ve",
    "1234567",
    "٣٤٥",
    "१२३",
    "３４",
    "中文字符",
    "日本語のテキスト",
    "한국어",
    "Привет",
    "γειά",
    "שלום",
    "مرحبا",
    "हिन्दी",
    "ไทย",
    "e\u0301",
    "a\u0308\u0323",
    "👍🏽",
    "👨\u200d👩\u200d👧",
    "❤\ufe0f",
    "a\u200db",
    "\u200c",
    "\ufeff",
    "\u3000",
    "\xa0",
    "...",
    "!!",
    "?!",
    "--",
    "«»",
    "“”",
    "$%&",
    "<|endoftext|>",
    "[CLS]",
    "[SEP]",
    "<s>",
    "</s>",
    "\ue000",
    "\U000e0001",
    "\U0010fffd",
    "\x00",
    "\x7f",
    "\x85",
    "\u2028",
]
_SPACES = [" ", "  ", "\t", "\n", "\r\n", "\n\n", " \n ", "        ", "\u2003", "\u00a0 "]


def generated_texts(n: int, rng: random.Random) -> list[str]:
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 40)):
            k = rng.randrange(8)
            if k < 3:
                parts.append(rng.choice(_PIECES))
            elif k < 5:
                parts.append(rng.choice(_SPACES) * rng.choice([1, 1, 2, 17]))
            elif k == 5:
                parts.append(
                    "".join(
                        rng.choice("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789'") for _ in range(rng.randint(1, 12))
                    )
                )
            elif k == 6:
                c = rng.randrange(0x110000)
                parts.append("" if 0xD800 <= c < 0xE000 else chr(c))
            else:
                parts.append(chr(rng.randrange(0x20, 0x3000)) * rng.randint(1, 3))
        out.append("".join(parts))
    return out


def oracle_ids(oracle, texts: list[str], add_special: bool) -> list[list[int]]:
    """As tests/support/parity.py: encode_batch pads a batch when the file has padding, encode not."""
    if oracle.padding is None:
        return [e.ids for e in oracle.encode_batch(texts, add_special_tokens=add_special)]
    return [oracle.encode(t, add_special_tokens=add_special).ids for t in texts]


def expect(args) -> None:
    import tokenizers

    if tokenizers.__version__ != ORACLE:
        sys.exit(f"parity_aarch64: the oracle must be tokenizers=={ORACLE}, found {tokenizers.__version__}")
    data = shared()
    corpora = sorted((data / "corpora").glob("*.txt"))
    result = {"oracle": tokenizers.__version__, "models": {}}
    for name in args.models:
        rng = random.Random(f"parity-aarch64:{name}")
        texts = [d for c in corpora for d in corpus_docs(c, args.bytes, rng)] + generated_texts(args.generated, rng)
        path = data / "tokenizers" / name / "tokenizer.json"
        oracle = tokenizers.Tokenizer.from_file(str(path))
        ids = {str(sp): oracle_ids(oracle, texts, sp) for sp in (True, False)}
        result["models"][name] = {"path": str(path), "texts": texts, "generated": args.generated, "ids": ids}
    Path(args.out).write_text(json.dumps(result, ensure_ascii=True))


def _first_diff(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def check_model(tagpipe, name: str, case: dict) -> tuple[int, int, int, list[str]]:
    """(bytes, ids, differing encodings) of one tokenizer, and the first differences described."""
    described, nids, nbad = [], 0, 0
    with tagpipe.delegation_disabled():
        tok = tagpipe.Tokenizer.from_file(case["path"])
        for sp, expected in case["ids"].items():
            batch = tok.encode_batch(case["texts"], add_special_tokens=sp == "True")
            for i, (text, want, got) in enumerate(zip(case["texts"], expected, batch)):
                one = tok.encode(text, add_special_tokens=sp == "True") if i % 4 == 0 else got
                for how, ids in (("encode_batch", got), ("encode", one)):
                    if ids == want:
                        continue
                    nbad += 1
                    if len(described) < 5:
                        k = _first_diff(want, ids)
                        described.append(
                            f"{name} text {i} (add_special_tokens={sp}, {how}): first difference at id {k}: "
                            f"oracle {want[k : k + 8]} tagpipe {ids[k : k + 8]}; text {text[:200]!r}"
                        )
                nids += len(want)
    return sum(len(t.encode("utf-8")) for t in case["texts"]), nids, nbad, described


def check(args) -> None:
    import tagpipe

    kernels = tagpipe.kernels()
    print(f"tagpipe.kernels(): active {kernels.active}, available {list(kernels.available)}")
    if kernels.active != "neon":
        sys.exit(f"parity_aarch64: the active kernel is {kernels.active!r}, not 'neon'")
    expected = json.loads(Path(args.file).read_text())
    failures, total = [], [0, 0, 0]
    for name, case in expected["models"].items():
        t0 = time.perf_counter()
        nbytes, nids, bad, described = check_model(tagpipe, name, case)
        failures += described
        total = [total[0] + len(case["texts"]), total[1] + nbytes, total[2] + nids]
        print(
            f"{name:17} {len(case['texts']) - case['generated']:3} corpus + {case['generated']} generated texts, "
            f"{nbytes:6} bytes, x2 (with and without specials): {nids:6} ids "
            f"{f'{bad} encodings DIFFERENT' if bad else 'equal'} ({time.perf_counter() - t0:.0f} s)"
        )
    for failure in failures:
        print(failure)
    print(
        f"aarch64 ({kernels.active}): {len(expected['models'])} tokenizers, {total[0]} texts, {total[1]} bytes, "
        f"{total[2]} ids compared with tokenizers {expected['oracle']} (batch; every 4th text also alone): "
        f"{'FAILED' if failures else 'all equal'}"
    )
    sys.exit(1 if failures else 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("expect", help="the oracle's ids (host)")
    ex.add_argument("--out", required=True)
    ex.add_argument("--bytes", type=int, default=32768, help="bytes of each corpus, twice (default 32768)")
    ex.add_argument("--generated", type=int, default=300, help="generated texts per tokenizer (default 300)")
    ex.add_argument("--models", nargs="+", default=MODELS)
    ch = sub.add_parser("check", help="tagpipe's ids against FILE (aarch64)")
    ch.add_argument("file")
    args = ap.parse_args()
    expect(args) if args.cmd == "expect" else check(args)


if __name__ == "__main__":
    main()
