#include "decode/utf8.h"

#include <cstring>

namespace tagpipe::decode {
namespace {

inline bool in(uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; }

// The length of the character at s[0..n) (n >= 1) when it is valid; else 0, with *bad the
// length of its maximal ill-formed subsequence (the bytes a valid character could start with).
size_t one_char(const uint8_t* s, size_t n, size_t* bad) {
  const uint8_t b = s[0];
  if (b < 0x80) return 1;
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // the second byte's range
  if (in(b, 0xC2, 0xDF)) {
    need = 2;
  } else if (in(b, 0xE0, 0xEF)) {
    need = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;  // (not a surrogate)
  } else if (in(b, 0xF0, 0xF4)) {
    need = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;  // (not past U+10FFFF)
  } else {
    *bad = 1;
    return 0;
  }
  size_t k = 1;
  if (k < n && in(s[k], lo, hi)) {
    for (k = 2; k < need && k < n && in(s[k], 0x80, 0xBF);) k++;
    if (k == need) return need;
  }
  *bad = k;
  return 0;
}

}  // namespace

size_t utf8_valid_prefix(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {  // ASCII eight bytes at a time
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    size_t bad = 1;
    const size_t len = one_char(s + i, n - i, &bad);
    if (!len) return i;
    i += len;
  }
  return n;
}

void append_lossy(std::string& out, const uint8_t* s, size_t n) {
  while (n) {
    const size_t ok = utf8_valid_prefix(s, n);
    out.append(reinterpret_cast<const char*>(s), ok);
    s += ok, n -= ok;
    if (!n) break;
    size_t bad = 1;
    one_char(s, n, &bad);
    out.append(kReplacementChar);
    s += bad, n -= bad;
  }
}

}  // namespace tagpipe::decode
