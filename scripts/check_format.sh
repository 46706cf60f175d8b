#!/usr/bin/env bash
# Checks, without rewriting anything, that the C++ sources under cpp/ are formatted as
# .clang-format says (clang-format --dry-run -Werror): exits non-zero and shows each
# difference otherwise.  tables/generated/ (generated code) is outside cpp/ and not checked.
#
#   scripts/check_format.sh            check every .h / .cpp under cpp/
#   scripts/check_format.sh FILE...    check these files only
#
# To rewrite a file in place: clang-format -i FILE.  Versions differ in small ways; this is
# checked with Debian's clang-format (apt-get install clang-format; 14 on bookworm).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format="${CLANG_FORMAT:-clang-format}"
if ! command -v "$clang_format" >/dev/null; then
  echo "check_format.sh: $clang_format not found (Debian: apt-get install clang-format)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find cpp -type f \( -name '*.h' -o -name '*.cpp' \) | sort)
fi
echo "$("$clang_format" --version | head -n1): ${#files[@]} files"
"$clang_format" --style=file --dry-run -Werror "${files[@]}"
echo "formatted as .clang-format says"
