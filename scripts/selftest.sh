#!/usr/bin/env bash
# Build and run the pybind-free kernel self-test (cpp/selftest): every available classify
# kernel against the scalar kernel, every alphabet.
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
srcs=(cpp/kernels/classify/*.cpp cpp/kernels/boundaries/*.cpp cpp/kernels/window/*.cpp cpp/kernels/replace/*.cpp cpp/kernels/marks/*.cpp cpp/kernels/find/*.cpp cpp/kernels/transcode/*.cpp cpp/kernels/scan/*.cpp cpp/dispatch/*.cpp cpp/pretokenize/fsm/*.cpp cpp/pretokenize/*.cpp cpp/normalize/*.cpp cpp/added/*.cpp cpp/model/*.cpp cpp/encode/*.cpp cpp/selftest/selftest.cpp)
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
