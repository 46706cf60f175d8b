#!/usr/bin/env bash
# The NEON path end to end: build the Python extension for aarch64 and check its ids against
# the oracle under qemu-aarch64, so the encoder, the models and the NEON kernels are checked
# on ARM from an x86-64 machine (scripts/selftest.sh aarch64 checks the kernels alone).
#
#   scripts/parity_aarch64.sh [expect args]     (e.g. --bytes 65536 --models gpt2; parity_aarch64.py)
#
# Needs (Debian 12): qemu-user, g++-aarch64-linux-gnu, and a host Python with tokenizers==0.23.3,
# hypothesis and pybind11 (PYTHON, default python3).  Everything for aarch64 goes under
# build/parity-aarch64/, nothing is installed on the system:
#   * sysroot/: Debian's arm64 CPython 3.11 and the libraries it loads, unpacked from the
#     .deb files (apt-get download with a private apt state, so dpkg's architectures and the
#     system's package lists stay as they are; python3.11-minimal:arm64 could not be
#     installed beside the amd64 one anyway);
#   * site/: numpy and pydantic from PyPI's manylinux aarch64 wheels (pip --target
#     --platform, no pip under qemu);
#   * tagpipe/: a copy of the package with _core.cpython-311-aarch64-linux-gnu.so,
#     cross-compiled from cpp/sources.txt like the aarch64 self-test.
# The oracle runs on the host and writes the texts and its ids to a file; the emulated tagpipe
# encodes the same texts under delegation_disabled() and compares (scripts/parity_aarch64.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$root/build/parity-aarch64"
python="${PYTHON:-python3}"
mkdir -p "$out"

# -- Debian's arm64 CPython, unpacked into a sysroot
debs=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev
  libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 libuuid1 libcrypt1)
sysroot="$out/sysroot"
if [ ! -x "$sysroot/usr/bin/python3.11" ]; then
  apt_dir="$out/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
  : >"$apt_dir/status"
  apt_opts=(-q -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
    -o "Dir::State::status=$apt_dir/status" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
    -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update >/dev/null
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download "${debs[@]}" >/dev/null)
  rm -rf "$sysroot.tmp" && mkdir -p "$sysroot.tmp"
  for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$sysroot.tmp"; done
  mv "$sysroot.tmp" "$sysroot"
  rm -rf "$apt_dir"
fi
emu=(qemu-aarch64 -L "$sysroot" "$sysroot/usr/bin/python3.11")

# -- numpy, pydantic: PyPI's aarch64 wheels (tagpipe's runtime dependencies)
site="$out/site"
if [ ! -d "$site/numpy" ]; then
  rm -rf "$site.tmp"
  "$python" -m pip install -q --target "$site.tmp" --only-binary=:all: --python-version 3.11 \
    --implementation cp --abi cp311 --platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 \
    numpy pydantic
  mv "$site.tmp" "$site"
fi

# -- the extension, cross-compiled (no -march: the NEON kernels use target regions)
pkg="$out/pkg"
rm -rf "$pkg" && mkdir -p "$pkg" "$out/obj"
cp -r tagpipe "$pkg/"
find "$pkg" -name '*.so' -delete
srcs=()
while read -r src; do
  case "$src" in '' | '#'*) ;; *) srcs+=("cpp/$src") ;; esac
done <cpp/sources.txt
srcs+=(cpp/bindings/module.cpp cpp/bindings/schema.cpp cpp/bindings/decode.cpp cpp/bindings/testing.cpp)
pyinc="$sysroot/usr/include"
flags=(-std=c++17 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Wno-psabi -Icpp -Itables/generated
  -I"$("$python" -c 'import pybind11; print(pybind11.get_include())')"
  -I"$pyinc" -I"$pyinc/python3.11")
export out
# (an object newer than every source and table is kept: a rerun recompiles only after edits)
printf '%s\n' "${srcs[@]}" | xargs -P "$(nproc)" -I{} sh -c '
  src="$1"; shift; o="$out/obj/$(echo "$src" | tr / _).o"
  [ -f "$o" ] && [ -z "$(find cpp tables/generated -newer "$o" -print -quit)" ] && exit 0
  aarch64-linux-gnu-g++ "$@" -c "$src" -o "$o.tmp" && mv "$o.tmp" "$o"' _ {} "${flags[@]}"
objs=()
for src in "${srcs[@]}"; do objs+=("$out/obj/$(echo "$src" | tr / _).o"); done
aarch64-linux-gnu-g++ -shared "${objs[@]}" -o "$pkg/tagpipe/_core.cpython-311-aarch64-linux-gnu.so" -lpthread

# -- the oracle on the host writes the texts and ids; the emulated tagpipe compares
"$python" scripts/parity_aarch64.py expect --out "$out/expected.json" "$@"
echo "running the aarch64 extension under $(qemu-aarch64 --version | head -n1)"
PYTHONPATH="$pkg:$site" PYTHONNOUSERSITE=1 "${emu[@]}" scripts/parity_aarch64.py check "$out/expected.json"
