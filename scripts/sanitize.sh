#!/usr/bin/env bash
# The C++ core under AddressSanitizer + UndefinedBehaviorSanitizer.
#
# One CMake build (build/asan: the core library, the self-test and the Python extension,
# all with -fsanitize=address,undefined), then
#   1. the pybind-free self-test (every kernel against scalar, every alphabet);
#   2. a pytest subset against the sanitized extension (a copy of the tagpipe package with
#      it, in build/asan/pkg; libasan preloaded into Python): encode parity on several
#      tokenizers, threads and concurrency, the word cache budget, malformed and hostile
#      tokenizer files, the fuzz corpus replay.
#
#   scripts/sanitize.sh [all|selftest|python]
#
# Any ASan report aborts (halt_on_error) and any UB aborts (-fno-sanitize-recover), so the
# step fails.  Leak detection is off: CPython does not free everything at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
py="${PYTHON:-python}"
CXX="${CXX:-g++}"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g"
# reports also go to build/asan/report.* (pytest captures stderr; the file survives the abort)
mkdir -p build/asan
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:log_path=$PWD/build/asan/report:log_exe_name=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$PWD/build/asan/report"
rm -f build/asan/report.*
# on failure, show the sanitizer's report
trap 'status=$?; [ $status -ne 0 ] && for f in build/asan/report.*; do [ -e "$f" ] && { echo "--- $f"; head -n 80 "$f"; }; done; exit $status' EXIT
export TAGPIPE_TEST_DATA="${TAGPIPE_TEST_DATA:-$(cd .. && pwd)/shared}"

# Debug: no -O2 after our -O1, asserts on; no LTO (pybind11 adds it only in Release).
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$CXX" \
  -DTAGPIPE_SELFTEST=ON -DTAGPIPE_PYTHON=ON \
  -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$(command -v "$py")" >/dev/null
cmake --build build/asan -j2

if [ "$what" = all ] || [ "$what" = selftest ]; then
  printf '\n--- self-test under ASan+UBSan\n'
  build/asan/cpp/tagpipe_selftest
fi

if [ "$what" = all ] || [ "$what" = python ]; then
  printf '\n--- Python tests against the extension built with ASan+UBSan\n'
  # the package with the sanitized extension, outside the source tree (which keeps its own .so)
  rm -rf build/asan/pkg && mkdir -p build/asan/pkg
  cp -r tagpipe build/asan/pkg/
  rm -rf build/asan/pkg/tagpipe/_core*.so build/asan/pkg/tagpipe/__pycache__
  cp build/asan/cpp/_core*.so build/asan/pkg/tagpipe/
  export LD_PRELOAD="$("$CXX" -print-file-name=libasan.so) $("$CXX" -print-file-name=libubsan.so)"
  export PYTHONPATH="$PWD/build/asan/pkg"
  # load-time bounds (tests/support/malformed.py) are for release builds: a Debug ASan build runs
  # ~10-20x slower, and what is checked here is memory safety, not speed
  export TAGPIPE_TIME_SCALE=4
  # python -P: the source tree is not on sys.path, so the sanitized package is imported
  "$py" -P -c "import tagpipe; assert '/build/asan/pkg/' in tagpipe.__file__, tagpipe.__file__; print('sanitized:', tagpipe.__file__)"
  # one process (-n 0: no xdist workers under the sanitizers), and the slow tests too
  pytest=("$py" -P -m pytest -q -x -p no:cacheprovider -n 0 --run-slow)
  "${pytest[@]}" tests/test_hardening.py tests/test_hostile_files.py tests/test_malformed.py \
    tests/test_fuzz_regressions.py tests/test_threads.py -k "not fork"
  "${pytest[@]}" tests/test_encode_parity.py \
    -k "test_added_tokens_in_awkward_places and (gpt2 or llama2 or llama3 or gpt-4o or qwen3 or deepseek)"
fi
