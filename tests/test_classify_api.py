"""The Python face of classify: inputs, errors, ill-formed UTF-8, kernel selection."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tagpipe


def test_str_and_bytes_agree():
    text = "Hello, 世界! Ünïcödé 🙂\n"
    a = tagpipe.classify(text)
    b = tagpipe.classify(text.encode())
    assert np.array_equal(a.tags, b.tags) and np.array_equal(a.starts, b.starts)
    assert a.tags.dtype == np.uint8 and a.starts.dtype == np.uint64
    assert len(a) == len(text.encode())


def test_char_tags_and_starts():
    c = tagpipe.classify("aé中🙂", "regex")
    assert c.char_starts().tolist() == [True, True, False, True, False, False, True, False, False, False]
    assert c.char_tags() == ["Lower", "Lower", "LetterOther", "Other"]
    assert c.tags[2] == 0 and c.alphabet.tags[0] == "Cont"


def test_empty():
    c = tagpipe.classify("")
    assert len(c) == 0 and len(c.starts) == 0


def test_starts_bits_past_end_are_zero():
    c = tagpipe.classify("x" * 70)
    assert c.starts.tolist() == [2**64 - 1, 0b111111]


def test_lone_surrogate_is_a_clear_error():
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800 at index 2"):
        tagpipe.classify("ab\ud800cd")


def test_ill_formed_bytes_are_fffd_characters():
    a = tagpipe.alphabets()["regex"]
    c = tagpipe.classify(b"a\xe4\xb8b\x80\xf0\x9f\x98\x80", "regex")
    # a | E4 | B8 | b | 80 | F0 9F 98 80 (U+1F600, well-formed)
    assert c.char_starts().tolist() == [True, True, True, True, True, True, False, False, False]
    fffd = a.fffd_tag
    assert c.tags.tolist() == [
        a.tags.index("Lower"),
        fffd,
        fffd,
        a.tags.index("Lower"),
        fffd,
        a.tags.index("Other"),
        0,
        0,
        0,
    ]


@pytest.mark.parametrize("bad", [b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80"])
def test_overlong_surrogate_and_out_of_range_are_ill_formed(bad):
    c = tagpipe.classify(bad)
    assert c.char_starts().all()
    assert (c.tags == c.alphabet.fffd_tag).all()


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown alphabet 'nope'"):
        tagpipe.classify("x", "nope")
    with pytest.raises(ValueError, match="kernel 'avx9' is not available"):
        tagpipe.classify("x", kernel="avx9")
    with pytest.raises(TypeError, match="got int"):
        tagpipe.classify(5)  # type: ignore[arg-type]


def test_tag_of():
    a = tagpipe.alphabets()["regex"]
    assert a.tag_of("A") == "Upper" and a.tag_of("\u3000") == "WsOther" and a.tag_of("\n") == "Newline"
    with pytest.raises(ValueError):
        a.tag_of("ab")


def test_kernels_listing():
    info = tagpipe.kernels()
    assert info.available[0] == "scalar"
    assert info.active in info.available
    assert set(info.available) <= set(info.compiled)


def run_with_env(value: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TAGPIPE_KERNEL=value)
    code = "import tagpipe; print(tagpipe.kernels().active)"
    # cwd=/ so that the installed package is imported, not the checkout
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/")


def test_env_forces_kernel():
    r = run_with_env("scalar")
    assert r.returncode == 0 and r.stdout.strip() == "scalar"


def test_env_unknown_kernel_is_a_clear_error():
    r = run_with_env("avx9")
    assert r.returncode != 0
    assert "TAGPIPE_KERNEL='avx9'" in r.stderr and "unknown kernel" in r.stderr


def test_env_unsupported_kernel_is_a_clear_error():
    missing = [k for k in tagpipe.kernels().compiled if k not in tagpipe.kernels().available]
    if not missing:
        pytest.skip("this CPU runs every compiled kernel")
    r = run_with_env(missing[0])
    assert r.returncode != 0 and "cannot run on this CPU" in r.stderr


def test_set_kernel_roundtrip():
    before = tagpipe.kernels().active
    try:
        tagpipe.set_kernel("scalar")
        assert tagpipe.kernels().active == "scalar"
        with pytest.raises(ValueError, match="unknown kernel"):
            tagpipe.set_kernel("nope")
    finally:
        tagpipe.set_kernel(before)


def test_gil_released_threads_agree():
    from concurrent.futures import ThreadPoolExecutor

    text = ("Ωmega 中文 text, " * 5000).encode()
    ref = tagpipe.classify(text)
    with ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: tagpipe.classify(text), range(8)))
    assert all(np.array_equal(o.tags, ref.tags) for o in outs)
