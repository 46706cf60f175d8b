"""Pathological text: does encode stay linear in the size of the input?

For each tokenizer and each pattern, encode one text of 1, 10 and 100 MB (UTF-8 bytes) on one
thread and report the seconds and the growth ratios (linear: ~10x per step; the word
cache cannot help: the patterns are one huge piece, or runs of one char whose pieces are
all different lengths, or a scalar sweep).  The 1 MB run's ids are checked against the
oracle (the oracle's time is printed beside it, as a yardstick); a size is skipped when the
previous one projects past --max-seconds.

    python -m bench.hostile                                    # gpt2 llama2 llama3 gpt-4o, 1 10 100 MB
    python -m bench.hostile --tokenizers qwen3 --sizes 1,10 --patterns no_spaces,marks
"""

from __future__ import annotations

import argparse
import time

import tokenizers

import tagpipe

from bench import harness

MB = 1 << 20


def every_scalar() -> str:
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


_SWEEP = None


def pattern(name: str, nbytes: int) -> str:
    """About nbytes of UTF-8 (cut on a character boundary)."""
    global _SWEEP
    if name == "no_spaces":  # one huge word: letters, no space or punctuation anywhere
        unit = "tokenizationisthefirststepofeverypipeline"
    elif name == "only_metaspace":  # ▁ (3 bytes) and nothing else
        unit = "▁"
    elif name == "marks":  # combining marks piled on one base letter
        unit = "\u0301\u0308\u0323\u0302"
    elif name == "digits":  # one long digit run
        unit = "8675309"
    elif name == "spaces":  # one long whitespace run
        unit = " "
    elif name == "cjk":  # Han without any separator
        unit = "東京都大阪府京都府北海道沖縄県"
    elif name == "every_scalar":  # every Unicode scalar value in one string (4.3 MB), repeated
        if _SWEEP is None:
            _SWEEP = every_scalar()
        unit = _SWEEP
    else:
        raise SystemExit(f"unknown pattern {name}")
    per = len(unit.encode("utf-8"))
    text = unit * (nbytes // per + 1)
    if name == "marks":
        text = "a" + text
    return text.encode("utf-8")[:nbytes].decode("utf-8", "ignore")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m bench.hostile", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tokenizers", default="gpt2,llama2,llama3,gpt-4o")
    ap.add_argument("--patterns", default="no_spaces,only_metaspace,marks,digits,spaces,cjk,every_scalar")
    ap.add_argument("--sizes", default="1,10,100", help="megabytes")
    ap.add_argument("--max-seconds", type=float, default=120.0, help="skip a size projected to take longer")
    ap.add_argument("--oracle-seconds", type=float, default=60.0, help="skip the 1 MB oracle check past this")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"tagpipe encode of one text on one thread; kernel {tagpipe.kernels().active}")
    print(
        "| tokenizer | pattern | "
        + " | ".join(f"{s} MB s" for s in sizes)
        + " | growth per 10x | 1 MB ids == oracle (oracle s) |"
    )
    print("|---|---|" + "---|" * len(sizes) + "---|---|")
    for name in args.tokenizers.split(","):
        path = harness.tokenizer_path(name)
        tok = tagpipe.Tokenizer.from_file(path)
        oracle = tokenizers.Tokenizer.from_file(str(path))
        for pat in args.patterns.split(","):
            times, verdict, last = [], "", None
            for mb in sizes:
                if last is not None and last[1] * (mb / last[0]) * 1.5 > args.max_seconds:
                    times.append(None)
                    continue
                text = pattern(pat, mb * MB)
                t0 = time.perf_counter()
                ids = tok.encode_to_numpy(text, add_special_tokens=False)
                dt = time.perf_counter() - t0
                times.append(dt)
                last = (mb, dt)
                if mb == sizes[0]:
                    t0 = time.perf_counter()
                    want = oracle.encode(text, add_special_tokens=False).ids
                    to = time.perf_counter() - t0
                    verdict = f"{'yes' if ids.tolist() == want else 'NO'} ({to:.2f})"
                del text, ids
            growth = [f"{b / a:.1f}x" for a, b in zip(times, times[1:]) if a and b]
            cells = " | ".join("skipped" if t is None else f"{t:.3f}" for t in times)
            print(f"| {name} | {pat} | {cells} | {', '.join(growth) or '-'} | {verdict} |", flush=True)


if __name__ == "__main__":
    main()
