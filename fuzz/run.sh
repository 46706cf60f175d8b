#!/usr/bin/env bash
# Bounded-time differential fuzzing (fuzz/differential.py under atheris).
#
#   fuzz/run.sh SECONDS          fuzz for SECONDS, starting from the committed corpus
#                                (fuzz/corpus) plus the inputs earlier runs found
#                                (build/fuzz/work); fails on any id difference, exception
#                                mismatch or crash, leaving the input in build/fuzz/artifacts/
#   fuzz/run.sh --merge          copy the inputs the runs kept (build/fuzz/work) into
#                                fuzz/corpus, to commit as regression tests
#                                (tests/test_fuzz_regressions.py replays them)
#
# Needs atheris (pip install atheris) and the tokenizers under TAGPIPE_TEST_DATA (../shared).
set -euo pipefail
cd "$(dirname "$0")/.."
export TAGPIPE_TEST_DATA="${TAGPIPE_TEST_DATA:-$(cd .. && pwd)/shared}"
mkdir -p build/fuzz/work build/fuzz/artifacts
if [ "${1:-}" = "--merge" ]; then
  # libFuzzer names inputs by their SHA-1, so copying cannot duplicate one.  (-merge=1 would
  # keep only coverage-adding inputs, but it sees no features through atheris here.)
  cp -n build/fuzz/work/* fuzz/corpus/
  echo "fuzz/corpus: $(ls fuzz/corpus | wc -l) inputs, $(du -sh fuzz/corpus | cut -f1)"
  exit 0
fi
seconds="${1:?usage: fuzz/run.sh SECONDS | --merge}"
# -max_len: texts up to a few thousand chars; -timeout: one input may take at most 20 s
# (a hang is a failure); -rss_limit_mb: a leak or unbounded cache fails the run.
python fuzz/fuzz.py -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ build/fuzz/work fuzz/corpus
