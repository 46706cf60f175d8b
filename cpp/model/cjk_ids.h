// The ids of each character U+3000..U+9FFF (the three-byte characters whose lead byte is
// E3..E9) alone as a ByteLevel piece, in a table indexed by the character: Bpe::cuts leaves
// a new Chinese clause in parts of a character or two, and this is one load where a word
// cache probe was a hash, a table and a key compared (docs/design/cjk-ids.md).  ByteLevel
// pieces only: whole-character parts have their slots requested ahead instead.
//
// An entry holds up to three ids packed as the word cache packs them (model/packed_ids.h),
// with kAbsent in the slots past the last; an entry whose first slot is kAbsent is not in
// the table (no id, more than three, or one of 2^21 - 1 or more: the caller's usual path).
#pragma once
#include <cstdint>
#include <vector>

#include "model/packed_ids.h"

namespace tagpipe {

class CjkIds {
 public:
  static constexpr uint32_t kIds = 3;          // the most ids an entry holds (room the caller gives)
  static constexpr uint32_t kCount = 7 << 12;  // U+3000..U+9FFF

  bool empty() const { return table_.empty(); }

  // encode(bytes, 3, ids): the character's ids, appended to ids (cleared first).  Called for
  // every character of the range, in order, with its UTF-8 bytes.
  template <class Encode>
  void build(Encode encode) {
    table_.assign(kCount, ~uint64_t(0));
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < kCount; i++) {
      const uint8_t c[3] = {uint8_t(0xE3 + (i >> 12)), uint8_t(0x80 | ((i >> 6) & 63)), uint8_t(0x80 | (i & 63))};
      ids.clear();
      encode(c, ids);
      bool fits = !ids.empty() && ids.size() <= kIds;
      for (uint32_t id : ids) fits &= id < kAbsent;
      if (fits) {
        const uint32_t count = uint32_t(ids.size());
        table_[i] = pack3(ids.data(), count) | ~uint64_t(0) << (kIdBits * count);
      }
    }
  }

  // The ids of the part s[0..n) when it is one character of the table: written at out[0..3)
  // (the slots past the count hold garbage), their count returned; else 0.
  uint32_t ids(const uint8_t* s, uint32_t n, uint32_t* out) const {
    // (one three-byte character: lead byte E3..E9, then two continuation bytes -- a piece of
    // ill-formed UTF-8 may hold anything)
    if (n != 3 || uint32_t(s[0] - 0xE3) > 6 || ((s[1] & 0xC0) | ((s[2] & 0xC0) >> 2)) != 0xA0 || table_.empty())
      return 0;
    unpack3(table_[uint32_t(s[0] - 0xE3) << 12 | uint32_t(s[1] & 0x3F) << 6 | (s[2] & 0x3F)], out);
    return uint32_t(out[0] != kAbsent) + (out[1] != kAbsent) + (out[2] != kAbsent);
  }

 private:
  static constexpr uint32_t kAbsent = (uint32_t(1) << kIdBits) - 1;  // an empty slot
  std::vector<uint64_t> table_;
};

}  // namespace tagpipe
