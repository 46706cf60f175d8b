"""atheris (libFuzzer) driver for fuzz/harness.py: `python fuzz/fuzz.py [libFuzzer flags] [CORPUS_DIR ...]`.

Coverage guidance is Python-level: the harness and tagpipe's Python layer are instrumented
(the C++ core is not -- that needs clang's -fsanitize=fuzzer-no-link, and this toolchain is
GCC); the harness's op bytes make every input path reachable from the Python side.  A
difference, an exception or a crash stops the run and leaves the input in the
-artifact_prefix directory.  fuzz/run.sh is the bounded-time wrapper CI uses.
"""
import sys
from pathlib import Path

import atheris

# (the harness beside this file; tagpipe as installed -- or from PYTHONPATH for an in-place
# build: the checkout's own tagpipe/ has no extension unless it was built there)
sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["harness", "tagpipe"]):
    import tagpipe  # noqa: F401 - instrumented: its Python layer's branches guide the fuzzer too
    import harness


def main():
    # load every tokenizer before fuzzing, so the per-input time is the encode only
    for i in range(len(harness.TOKENIZERS)):
        harness.target(i)
    atheris.Setup(sys.argv, harness.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
