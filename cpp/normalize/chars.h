// Per-character facts the native normalizers read: UTF-8 decoding and encoding, and the
// oracle-derived properties of tables/generated/norm_props.h (one record per scalar value).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "norm_props.h"

namespace tagpipe::normalize {

using tables::norm::Record;

inline const Record& props(uint32_t cp) {
  using namespace tables::norm;
  return kRecords[kStage2[uint32_t(kStage1[cp >> 6]) * 64 + (cp & 63)]];
}

// A replacement from the pool (offset != 0): its UTF-8 bytes.
inline std::string_view pooled(uint32_t offset) {
  const uint8_t* p = tables::norm::kPool + offset;
  return {reinterpret_cast<const char*>(p + 1), p[0]};
}

// Decodes the well-formed UTF-8 character at s[i] (i < n); its length goes to `len`.
// Returns false on an ill-formed sequence (the caller delegates: Python text is always
// well formed, so this only guards the byte API).
inline bool decode(const uint8_t* s, uint32_t n, uint32_t i, uint32_t& cp, uint32_t& len) {
  const uint8_t b = s[i];
  if (b < 0x80) return cp = b, len = 1, true;
  if (b < 0xC2) return false;
  len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 0;
  if (len == 0 || i + len > n) return false;
  cp = b & (0x7F >> len);
  for (uint32_t k = 1; k < len; k++) {
    if ((s[i + k] & 0xC0) != 0x80) return false;
    cp = cp << 6 | (s[i + k] & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  return cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

inline void encode(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | cp >> 6), out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | cp >> 12), out += char(0x80 | (cp >> 6 & 0x3F)), out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | cp >> 18), out += char(0x80 | (cp >> 12 & 0x3F));
    out += char(0x80 | (cp >> 6 & 0x3F)), out += char(0x80 | (cp & 0x3F));
  }
}

// Hangul syllables decompose arithmetically (Unicode 3.12; tables/gen_tables.py checks the
// oracle's NFD and NFKD of all 11,172 against it): L V, or L V T.
inline int hangul_decompose(uint32_t cp, uint32_t out[3]) {
  const uint32_t s = cp - 0xAC00;
  out[0] = 0x1100 + s / 588, out[1] = 0x1161 + (s % 588) / 28;
  if (s % 28 == 0) return 2;
  out[2] = 0x11A7 + s % 28;
  return 3;
}

}  // namespace tagpipe::normalize
