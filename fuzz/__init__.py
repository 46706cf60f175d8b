"""Differential fuzzing of tagpipe against the oracle (tokenizers).

    differential  `check(data)`: one fuzz input -> one test case, raising on any difference
    fuzz.py       the atheris (libFuzzer) driver: python fuzz/fuzz.py [libFuzzer flags] [DIRS]
    run.sh        the bounded-time wrapper CI runs; corpus/ the inputs kept as regressions

The tests replay the corpus through `fuzz.differential` (tests/test_fuzz_regressions.py).
"""
