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

// The same for a BMP character: kNotBmp when it has four bytes or runs past `left` bytes.
inline uint32_t bmp_code_point(const uint8_t* c, uint32_t len, uint32_t left) {
  return len > 3 ? kNotBmp : code_point(c, len, left);
}

}  // namespace tagpipe
