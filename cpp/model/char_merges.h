// Whole characters -- and pairs of ASCII characters -- as one initial symbol of a ByteLevel
// BPE word, where that cannot change its ids.
//
// A ByteLevel word starts as one symbol per byte, so a Chinese character is three symbols
// and costs two merges before its token can merge with anything -- two thirds of the merges
// of a Chinese word, each waiting for the merge table.  The character's bytes merged alone
// (lowest rank first) end as one token or more; the word may start with those instead --
// call them its symbols -- if nothing outside the character can interfere.  The same holds
// for any span of the word, "the character" below; the other spans taken are two ASCII
// bytes that merge (about half the merges of a new English word), when they have at most
// kMaxPairGuard guard strings (more would cost more to check than the merge).  Let R be the
// highest rank of those merges, and call a symbol of that process a left part when it
// starts where the character starts (its first byte, ..., its first symbol) and a right
// part when it ends where it ends.  Starting with its symbols is exact when, in this word:
//   (L) no merge (X, P) of rank <= R has a left part P and an X that the text before the
//       character ends with;
//   (R) no merge (P, Y) of rank <= R has a right part P and a Y that the text after it
//       starts with.
// Why, for the byte process B and the process C that starts with the symbols (a merge is
// always the lowest rank present, leftmost among equal ones -- so among equal ranks, the
// same pair):
//   - While the character is unfinished in B, one of its own pairs is present with a rank
//     <= R, so a pair (X, P) or (P, Y) outside it with a rank > R cannot go first, and by
//     (L) and (R) there is none with a rank <= R: the character's bytes become its symbols
//     exactly as alone, untouched from outside.  Meanwhile the rest of the word runs the
//     merges it would run with the character as a wall between its two sides: call that
//     process O.
//   - C runs O as well, until its first merge across the wall, which takes the first or the
//     last symbol (two symbols never merge: the character alone stopped there).  Say B
//     finishes the character after O's p-th merge, and C's first merge across comes after
//     O's i-th. If i < p, then in B O's (i+1)-th merge went before one of the character's
//     (rank <= R), and in C the merge across went before that same (i+1)-th: its rank is
//     <= R, which (L) and (R), read with P = the first or last symbol, rule out.  So
//     i >= p: C passes through the state in which B finishes the character -- O after p
//     merges, the symbols in the middle -- and from one state both go the same way.
//   - One character at a time, left to right: each step keeps the ids, and (L) and (R) are
//     about the text, so they hold whatever the other characters start as.
// X and Y are checked against the word's bytes (a merge of tokens the text does not hold
// there cannot take place), which leaves nearly every character of Chinese text whole:
// llama-3's guards are mostly "a space before it" (its "Ġ" + lead byte merges).  Only
// 2- and 3-byte characters whose bytes merge at all; a 4-byte one (an emoji) stays bytes.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/merge_table.h"
#include "model/string_table.h"

namespace tagpipe {

class CharMerges {
 public:
  // merges: the model's, by rank (the table built from them); byte_id[b]: the id of byte
  // b's ByteLevel character (all known); byte_vocab: the ByteLevel strings by their bytes.
  void build(const std::vector<BpeMerge>& merges, const MergeTable& table, const uint32_t byte_id[256],
             const StringTable& byte_vocab);
  bool empty() const { return chars_.empty(); }
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
        if (c.length && guard_ok(guards_[c.left], s, i, true) && guard_ok(guards_[c.right], s + i + 2, n - i - 2, false)) {
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
  // The strings a character's text must not end (left) or start (right) with here.
  struct Guard {
    uint64_t edge[4] = {};     // their last (left) / first (right) bytes: most checks end here
    uint32_t first = 0, count = 0;  // strings_[first, first + count)
  };
  struct Char {  // (length 0: the character stays bytes)
    uint32_t token[2] = {};        // what its bytes merge into alone: one token, or two
    uint16_t count = 0, length = 0;  // tokens; bytes
    uint32_t left = 0, right = 0;  // guards_ (0: none)
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

  static constexpr size_t kMaxPairGuard = 16;  // strings, left and right
  std::vector<Char> chars_;  // by code point, U+0000..U+FFFF
  std::vector<Char> pairs_;  // two ASCII bytes, by (first << 7 | second)
  std::vector<Guard> guards_;
  std::vector<Span> strings_;
  std::string bytes_;
};

}  // namespace tagpipe
