// Small UTF-8 helpers for text that is valid UTF-8 (Python str, and what the normalizers
// make of it): a character's length from its lead byte, and its code point.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tagpipe {

inline constexpr uint32_t kNotBmp = ~uint32_t(0);

inline uint32_t utf8_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// The number of characters in s[0..n): its bytes that are not continuation bytes.
inline size_t utf8_chars(const uint8_t* s, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < n; i++) chars += (s[i] & 0xC0) != 0x80;
  return chars;
}

// The code point of the character c[0..len) (len from its lead byte), or kNoChar when it
// runs past `left` bytes.
inline constexpr uint32_t kNoChar = ~uint32_t(0);
inline uint32_t code_point(const uint8_t* c, uint32_t len, uint32_t left) {
  if (len > left) return kNoChar;
  uint32_t cp = len == 1 ? c[0] : c[0] & (0xFF >> (len + 1));
  for (uint32_t k = 1; k < len; k++) cp = (cp << 6) | (c[k] & 0x3F);
  return cp;
}

// The length of the well-formed UTF-8 sequence of 2-4 bytes at s[i] (s[0..n)), or 0 if there
// is none there (nor for ASCII, which callers take first): Unicode's table of well-formed byte
// sequences -- no overlong form, no surrogate, nothing past U+10FFFF.  Checks every byte, for
// input that may be any bytes (the scalar kernels, which the SIMD ones must equal).
inline uint32_t utf8_valid_length(const uint8_t* s, size_t n, size_t i) {
  const uint8_t b0 = s[i];
  uint32_t len;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;  // ASCII, a continuation byte, C0, C1 or F5..FF
  }
  if (i + len > n) return 0;
  if (s[i + 1] < lo || s[i + 1] > hi) return 0;
  for (uint32_t k = 2; k < len; k++)
    if ((s[i + k] & 0xC0) != 0x80) return 0;
  return len;
}

// The same for a BMP character: kNotBmp when it has four bytes or runs past `left` bytes.
inline uint32_t bmp_code_point(const uint8_t* c, uint32_t len, uint32_t left) {
  return len > 3 ? kNotBmp : code_point(c, len, left);
}

}  // namespace tagpipe
