"""atheris (libFuzzer) driver for fuzz/differential.py: `python fuzz/fuzz.py [libFuzzer flags] [CORPUS_DIR ...]`.

Coverage guidance is Python-level: the differential check and tagpipe's Python layer are instrumented
(the C++ core is not -- that needs clang's -fsanitize=fuzzer-no-link, and this toolchain is
GCC); the check's op bytes make every input path reachable from the Python side.  A
difference, an exception or a crash stops the run and leaves the input in the
-artifact_prefix directory.  fuzz/run.sh is the bounded-time wrapper CI uses.
"""

import sys

import atheris

# (run as a script, so the check beside this file is importable as `differential`; tagpipe as
# installed -- or from PYTHONPATH for an in-place build: the checkout's own tagpipe/ has no
# extension unless it was built there)
with atheris.instrument_imports(include=["differential", "tagpipe"]):
    import differential

    import tagpipe  # noqa: F401 - instrumented: its Python layer's branches guide the fuzzer too


def main():
    # load every tokenizer before fuzzing, so the per-input time is the encode only
    for i in range(len(differential.TOKENIZERS)):
        differential.target(i)
    atheris.Setup(sys.argv, differential.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
