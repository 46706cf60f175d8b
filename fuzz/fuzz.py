"""atheris (libFuzzer) driver for fuzz/differential.py: `python fuzz/fuzz.py [libFuzzer flags] [CORPUS_DIR ...]`.

Coverage guidance is Python-level: the differential check and tagpipe's Python layer are instrumented
(the C++ core is not -- that needs clang's -fsanitize=fuzzer-no-link, and this toolchain is
GCC); the check's op bytes make every input path reachable from the Python side.  A
difference, an exception or a crash stops the run and leaves the input in the
-artifact_prefix directory.  fuzz/run.sh is the bounded-time wrapper CI uses.
"""

import sys
from pathlib import Path

import atheris

# (run as a script: its own directory leaves sys.path -- there this file would shadow the
# fuzz package -- and the checkout's root goes at the end, for the harness (fuzz.differential)
# and the tests' delegation rules (tests.support); tagpipe as installed -- or from PYTHONPATH
# for an in-place build: the checkout's own tagpipe/ has no extension unless it was built there)
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(HERE.parent))
with atheris.instrument_imports(include=["fuzz", "tagpipe"]):
    import tagpipe  # noqa: F401 - instrumented: its Python layer's branches guide the fuzzer too

    from fuzz import compare, differential


def main():
    # load every tokenizer before fuzzing, so the per-input time is the encode only
    for name in differential.TOKENIZERS:
        compare.target(name)
    atheris.Setup(sys.argv, differential.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
