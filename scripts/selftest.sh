#!/usr/bin/env bash
# Build and run the pybind-free self-test (cpp/selftest): every available kernel of every
# family against the scalar kernel, every alphabet; the block state machines; the model's
# tables.  The core's sources are cpp/sources.txt, the list CMake builds too.
#
#   scripts/selftest.sh            native build, every kernel this CPU runs
#   scripts/selftest.sh aarch64    cross-compile with aarch64-linux-gnu-g++ and run under
#                                  qemu-aarch64, so the NEON kernel is checked on x86 too
#                                  (Debian: apt-get install qemu-user g++-aarch64-linux-gnu)
# Extra arguments go to the self-test (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-native}"
[ $# -gt 0 ] && shift
out="build/selftest-$target"
mkdir -p "$out"
srcs=()
while read -r src; do
  case "$src" in '' | '#'*) ;; *) srcs+=("cpp/$src") ;; esac
done <cpp/sources.txt
srcs+=(cpp/selftest/*.cpp)
flags=(-std=c++17 -O2 -Wall -Wextra -Wno-psabi -Icpp -Itables/generated)
case "$target" in
  native)
    "${CXX:-g++}" "${flags[@]}" "${srcs[@]}" -o "$out/tagpipe_selftest"
    "$out/tagpipe_selftest" "$@"
    ;;
  aarch64)
    aarch64-linux-gnu-g++ "${flags[@]}" -static "${srcs[@]}" -o "$out/tagpipe_selftest"
    echo "running the aarch64 build under $(qemu-aarch64 --version | head -n1)"
    qemu-aarch64 "$out/tagpipe_selftest" "$@"
    ;;
  *)
    echo "usage: $0 [native|aarch64] [selftest args]" >&2
    exit 2
    ;;
esac
