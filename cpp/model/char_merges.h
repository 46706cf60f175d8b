// Units as one initial symbol of a BPE word, where that cannot change its ids: whole
// characters and pairs of ASCII bytes in ByteLevel words, pairs of characters in plain ones.
// A unit starts as what its bytes merge into alone, unless a merge of rank <= its own
// highest could take one of its parts together with the text next to it: each unit keeps
// those strings (its guards), checked against the word's bytes.  A Chinese character then
// costs no merges of its bytes, nor half of a new English word's ASCII pairs.  Proof:
// docs/design/char-merges.md.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/merge_table.h"
#include "model/string_table.h"

namespace tagpipe {

class CharMerges {
 public:
  // merges: the model's, by rank (the table built from them).  ByteLevel words: byte_id[b]
  // is the id of byte b's ByteLevel character (all known), `strings` the ByteLevel strings
  // by their bytes.  Plain words (byte_id null): `strings` is the vocabulary, and the units
  // are two characters that are tokens and merge.
  void build(const std::vector<BpeMerge>& merges, const MergeTable& table, const StringTable& strings,
             const uint32_t* byte_id);
  bool empty() const { return chars_.empty(); }
  bool plain_empty() const { return plain_.empty(); }
  // A plain word s[0..n) as ids[0..count), symbol i at s[at[i]..at[i + 1]) (at[count] = n):
  // each two that are a unit's, left to right, become its token where that is exact here.
  void pair_up(const uint8_t* s, uint32_t n, const uint32_t* at, uint32_t* ids, uint32_t& count) const {
    uint32_t out = 0;
    for (uint32_t i = 0; i < count;) {
      const uint64_t key = i + 1 < count ? uint64_t(ids[i]) << 32 | ids[i + 1] : kNoPair;
      const uint32_t f = plain_bit(key);
      if (key != kNoPair && ((plain_filter_[f >> 6] >> (f & 63)) & 1)) {
        size_t k = plain_index(key);
        while (plain_[k].key != kNoPair && plain_[k].key != key) k = (k + 1) & (plain_.size() - 1);
        const Char& c = plain_[k].c;
        if (plain_[k].key == key && guard_ok(guards_[c.left], s, at[i], true) &&
            guard_ok(guards_[c.right], s + at[i + 2], n - at[i + 2], false)) {
          ids[out++] = c.token[0];
          i += 2;
          continue;
        }
      }
      ids[out++] = ids[i++];
    }
    count = out;
  }
  // The initial symbols of the ByteLevel word s[0..n) into ids, left to right: a whole
  // character's symbols, or two ASCII bytes' token, where that is exact here, else a byte's
  // id.  false when there are more than cap.
  bool symbols(const uint8_t* s, uint32_t n, const uint32_t byte_id[256], uint32_t* ids, uint32_t cap,
               uint32_t& count) const {
    count = 0;
    for (uint32_t i = 0; i < n;) {
      const uint8_t b = s[i];
      if (b >= 0xC2 && b < 0xF0) {  // the lead byte of a 2- or 3-byte character (C0, C1: overlong)
        const uint32_t len = b < 0xE0 ? 2 : 3;
        if (i + len <= n && (s[i + 1] & 0xC0) == 0x80 && (len == 2 || (s[i + 2] & 0xC0) == 0x80)) {
          const uint32_t cp = len == 2 ? (b & 0x1F) << 6 | (s[i + 1] & 0x3F)
                                       : (b & 0x0F) << 12 | (s[i + 2] & 0x3F) | (s[i + 1] & 0x3F) << 6;
          const Char& c = chars_[cp];  // (3 bytes below U+0800: overlong, its entry is a 2-byte one's)
          if (c.length == len && guard_ok(guards_[c.left], s, i, true) &&
              guard_ok(guards_[c.right], s + i + len, n - i - len, false)) {
            if (count + c.count > cap) return false;
            ids[count++] = c.token[0];
            if (c.count == 2) ids[count++] = c.token[1];
            i += len;
            continue;
          }
        }
      }
      if (b < 0x80 && i + 1 < n && s[i + 1] < 0x80) {  // two ASCII bytes
        const Char& c = pairs_[b << 7 | s[i + 1]];
        if (c.length && guard_ok(guards_[c.left], s, i, true) &&
            guard_ok(guards_[c.right], s + i + 2, n - i - 2, false)) {
          if (count == cap) return false;
          ids[count++] = c.token[0];
          i += 2;
          continue;
        }
      }
      if (count == cap) return false;
      ids[count++] = byte_id[b];
      i++;
    }
    return true;
  }

 private:
  class Builder;  // (char_merges.cpp)
  // The strings a character's text must not end (left) or start (right) with here.
  struct Guard {
    uint64_t edge[4] = {};          // their last (left) / first (right) bytes: most checks end here
    uint32_t first = 0, count = 0;  // strings_[first, first + count)
  };
  struct Char {                      // (length 0: the character stays bytes)
    uint32_t token[2] = {};          // what its bytes merge into alone: one token, or two
    uint16_t count = 0, length = 0;  // tokens; bytes
    uint32_t left = 0, right = 0;    // guards_ (0: none)
  };
  struct Span {
    uint32_t offset, length;  // in bytes_
  };
  // left: whether the n bytes before `at` in s (s[0..at)) end with one of g's strings is
  // asked as guard_ok(g, s, at, true); right: whether s[0..n) starts with one, (g, s, n, false).
  bool guard_ok(const Guard& g, const uint8_t* s, uint32_t n, bool left) const {
    if (n == 0) return true;
    const uint8_t edge = left ? s[n - 1] : s[0];
    if (!((g.edge[edge >> 6] >> (edge & 63)) & 1)) return true;
    for (uint32_t k = g.first; k < g.first + g.count; k++) {
      const Span& x = strings_[k];
      if (x.length <= n && std::memcmp(left ? s + n - x.length : s, bytes_.data() + x.offset, x.length) == 0)
        return false;
    }
    return true;
  }

  static constexpr size_t kMaxPairGuard = 16;        // strings, left and right
  static constexpr uint64_t kNoPair = ~uint64_t(0);  // (the pair of two ids 2^32 - 1 is never a unit)
  struct PlainSlot {
    uint64_t key = kNoPair;  // left id << 32 | right id
    Char c;
  };
  size_t plain_index(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ULL) >> 40) & (plain_.size() - 1); }
  // A bit per key hash, in L1: most pairs of a word are no unit, and a large vocabulary's
  // units take a megabyte of slots that a probe for one of them would wait for.
  static constexpr uint32_t kFilterBits = 1 << 16;
  static uint32_t plain_bit(uint64_t key) { return uint32_t((key * 0xD6E8FEB86659FD93ULL) >> 48); }
  std::vector<PlainSlot> plain_;  // plain words' units, open addressing
  std::vector<uint64_t> plain_filter_;
  std::vector<Char> chars_;  // by code point, U+0000..U+FFFF
  std::vector<Char> pairs_;  // two ASCII bytes, by (first << 7 | second)
  std::vector<Guard> guards_;
  std::vector<Span> strings_;
  std::string bytes_;
};

}  // namespace tagpipe
