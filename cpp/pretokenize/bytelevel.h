// GPT-2's byte <-> character map (ByteLevel): the printable bytes '!'..'~', '¡'..'¬' and
// '®'..'ÿ' stand for themselves; the other 68 bytes, in order, for U+0100 .. U+0143.
#pragma once
#include <cstdint>

namespace tagpipe::pretok {

constexpr bool byte_is_printable(uint32_t b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

// The character that stands for byte b.
constexpr uint32_t byte_char(uint8_t b) {
  if (byte_is_printable(b)) return b;
  uint32_t n = 0;
  for (uint32_t x = 0; x < b; x++) n += !byte_is_printable(x);
  return 0x100 + n;
}

// The byte a character stands for, or -1 if it stands for none: the printable bytes stand
// for themselves, U+0100 + n for the n-th other byte.
inline int char_byte(uint32_t cp) {
  static const auto inverse = [] {
    struct Table {
      int16_t byte_of_extra[68];  // U+0100 .. U+0143
    } t{};
    for (uint32_t b = 0; b < 256; b++)
      if (!byte_is_printable(b)) t.byte_of_extra[byte_char(uint8_t(b)) - 0x100] = int16_t(b);
    return t;
  }();
  if (cp < 256) return byte_is_printable(cp) ? int(cp) : -1;
  if (cp < 0x100 + 68) return inverse.byte_of_extra[cp - 0x100];
  return -1;
}

}  // namespace tagpipe::pretok
