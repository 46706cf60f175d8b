// The regex alphabet's tag of a well-formed multi-byte sequence from its first bytes, for
// the scan kernels (scan_generic.h): two-byte sequences (U+0080..U+07FF) by code point, and
// three-byte ones by their first two bytes where the 64 code points those share have one
// tag (CJK, Hangul, most scripts); the rest through the alphabet's two-stage table.
// Built at compile time from the generated tables.  (And the bit tables cut_pieces reads.)
#pragma once
#include <cstdint>

#include "alphabet_regex.h"

namespace tagpipe::scan_tables {

constexpr uint8_t kMixed = 0xFF;  // a three-byte block whose code points differ in tag
constexpr uint8_t kBad = 0xFE;    // not a scalar value: an overlong or a surrogate (lead_tag_checked)

constexpr uint8_t tag_of(uint32_t cp) {
  using namespace tables::regex;
  return cp < 0x80 ? kAscii[cp] : kStage2[uint32_t(kStage1[cp >> 6]) * 64 + (cp & 63)];
}

struct LeadTables {
  uint8_t two[2048] = {};   // [cp] for cp < 0x800
  uint8_t three[1024] = {};  // [cp >> 6] for cp < 0x10000: the block's one tag, kMixed, or kBad
};

constexpr LeadTables make_lead_tables() {
  LeadTables t;
  for (uint32_t cp = 0; cp < 2048; cp++) t.two[cp] = tag_of(cp);
  for (uint32_t block = 0; block < 1024; block++) {
    const uint8_t first = tag_of(block * 64);
    uint8_t tag = first;
    for (uint32_t k = 1; k < 64; k++)
      if (tag_of(block * 64 + k) != first) tag = kMixed;
    t.three[block] = block < 0x20 || (block >= 0x360 && block < 0x380) ? kBad : tag;  // (overlong, surrogates)
  }
  return t;
}

inline constexpr LeadTables kLeadTables = make_lead_tables();

// The tag of the sequence at s (its bytes readable) that has a lead byte and the
// continuation bytes the lead asks for, or kBad when its code point is an overlong
// encoding, a surrogate or past U+10FFFF (what those bytes alone cannot tell).
inline uint8_t lead_tag_checked(const uint8_t* s) {
  const uint32_t b0 = s[0], c1 = s[1] & 0x3F;
  if (b0 < 0xE0) return kLeadTables.two[((b0 & 0x1F) << 6) | c1];
  if (b0 < 0xF0) {
    const uint32_t block = ((b0 & 0x0F) << 6) | c1;
    const uint8_t t = kLeadTables.three[block];
    if (t < kBad) return t;
    return t == kBad ? kBad : tag_of((block << 6) | (s[2] & 0x3F));
  }
  const uint32_t cp = ((b0 & 0x07) << 18) | (c1 << 12) | (uint32_t(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
  return cp < 0x10000 || cp > 0x10FFFF ? kBad : tag_of(cp);
}

// The set bits of a byte, for cut_pieces (scan_generic.h): their positions 0..7, one
// uint32 each (a vector of eight to add an offset to), lowest first (then zeros), and how
// many there are.
struct BitTables {
  uint32_t positions[256][8] = {};
  uint8_t count[256] = {};
};

constexpr BitTables make_bit_tables() {
  BitTables t;
  for (int b = 0; b < 256; b++)
    for (int j = 0; j < 8; j++)
      if ((b >> j) & 1) t.positions[b][t.count[b]++] = uint32_t(j);
  return t;
}

inline constexpr BitTables kBitTables = make_bit_tables();

}  // namespace tagpipe::scan_tables
