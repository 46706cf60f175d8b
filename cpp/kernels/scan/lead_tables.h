// The regex alphabet's tag of a well-formed multi-byte sequence from its bytes, for the
// scan kernels (scan_generic.h): two-byte sequences (U+0080..U+07FF) from one table by
// their two bytes, three-byte ones from the alphabet's stage-2 table with the block their
// first two bytes pick (no branch: Indic and Thai blocks mix letters and marks), the rest
// through the alphabet's two-stage table.
// Built at compile time from the generated tables.  (And the bit tables cut_pieces reads.)
#pragma once
#include <cstdint>
#include <cstring>

#include "alphabet_regex.h"

namespace tagpipe::scan_tables {

constexpr uint8_t kBad = 0xFE;  // not a scalar value: an overlong or a surrogate (lead_tag_checked)

constexpr uint8_t tag_of(uint32_t cp) {
  using namespace tables::regex;
  return cp < 0x80 ? kAscii[cp] : kStage2[uint32_t(kStage1[cp >> 6]) * 64 + (cp & 63)];
}

// Both indexed by the sequence's first two bytes as a big-endian uint16, masked: row
// b0 & 0x1F (two) or b0 & 0x0F (three), column b1 & 0x3F -- a load, a byte swap and an
// and; a lead's 64 entries share a cache line.
struct LeadTables {
  uint8_t two[0x2000] = {};     // two-byte sequences: their tags
  uint16_t three[0x1000] = {};  // three-byte ones: where the alphabet's stage-2 block of their 64 code
                                // points starts, kBadBlock set where b0 b1 give no scalar value
                                // (overlong, surrogate)
};
constexpr uint16_t kBadBlock = 0x8000;
static_assert(tables::regex::kStage2Len < kBadBlock, "stage-2 offsets must fit 15 bits");

constexpr LeadTables make_lead_tables() {
  LeadTables t;
  for (uint32_t cp = 0; cp < 2048; cp++) t.two[((cp >> 6) << 8) | (cp & 63)] = tag_of(cp);
  for (uint32_t block = 0; block < 1024; block++)
    t.three[((block >> 6) << 8) | (block & 63)] = uint16_t(
        tables::regex::kStage1[block] * 64 | (block < 0x20 || (block >= 0x360 && block < 0x380) ? kBadBlock : 0));
  return t;
}

inline constexpr LeadTables kLeadTables = make_lead_tables();

// The first two bytes of a sequence as a big-endian uint16 (LeadTables' index, masked).
inline uint32_t first_two(const uint8_t* s) {
  uint16_t w;
  std::memcpy(&w, s, 2);
  return __builtin_bswap16(w);
}

// The tag of a two-byte sequence at s (a lead C2..DF and a continuation byte).
inline uint8_t two_byte_tag(const uint8_t* s) { return kLeadTables.two[first_two(s) & 0x1F3F]; }

// The tag of a three-byte sequence at s (a lead E0..EF and two continuation bytes); `bad`
// gets a nonzero bit when it is an overlong or a surrogate.  No branch.
inline uint8_t three_byte_tag(const uint8_t* s, uint32_t& bad) {
  const uint32_t block = kLeadTables.three[first_two(s) & 0x0F3F];
  bad |= block;
  return tables::regex::kStage2[(block & (kBadBlock - 1)) + (s[2] & 0x3F)];
}

// The tag of the sequence at s (its bytes readable) that has a lead byte and the
// continuation bytes the lead asks for, or kBad when its code point is an overlong
// encoding, a surrogate or past U+10FFFF (what those bytes alone cannot tell).
inline uint8_t lead_tag_checked(const uint8_t* s) {
  const uint32_t b0 = s[0];
  if (b0 < 0xE0) return two_byte_tag(s);
  if (b0 < 0xF0) {
    uint32_t bad = 0;
    const uint8_t t = three_byte_tag(s, bad);
    return bad & kBadBlock ? kBad : t;
  }
  const uint32_t cp =
      ((b0 & 0x07) << 18) | (uint32_t(s[1] & 0x3F) << 12) | (uint32_t(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
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
