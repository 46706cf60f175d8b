// A tag alphabet: the per-code-point table one classify pass reads.
//
// Every alphabet comes from tables/gen_tables.py, which probes the oracle.  Tag 0 is
// always Cont (a UTF-8 continuation byte); every ill-formed byte gets the tag of U+FFFD.
#pragma once
#include <cstdint>
#include <string_view>

namespace tagpipe {

struct Alphabet {
  const char* name;
  int tag_count;
  const char* const* tag_names;
  uint8_t fffd_tag;
  const uint8_t* ascii;    // [128]
  const uint16_t* stage1;  // [stage1_len + 2]: block index of cp >> 6
  int stage1_len;          // the last entry is an all-U+FFFD block (clamp target)
  const uint8_t* stage2;   // [blocks * 64 + 4]

  // The tag of a scalar value (the plain reading of the tables; kernels must agree).
  uint8_t lookup(uint32_t cp) const {
    if (cp < 0x80) return ascii[cp];
    return stage2[uint32_t(stage1[cp >> 6]) * 64 + (cp & 63)];
  }
};

enum class AlphabetId : int { regex = 0, deepseek, unicode, scripts, nfc, count };

const Alphabet& alphabet(AlphabetId id);
// nullptr when no alphabet has that name.
const Alphabet* find_alphabet(std::string_view name);

}  // namespace tagpipe
