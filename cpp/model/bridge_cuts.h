// Where a piece can be cut without changing its BPE: before a character that no merge's
// result can bridge to the character before it.
//
// Why a cut there is exact: BPE's symbols are always substrings of the piece, and a merge
// makes a symbol that is its result.  If no merge result occurs in the piece across the
// boundary, no pair across it is ever a merge, so the two sides merge independently -- each
// side's merges come in the same order (lowest rank, leftmost first) as they would alone --
// and BPE(piece) = BPE(left) ++ BPE(right).  That needs the initial symbols to be the
// piece's own bytes (ByteLevel) or characters, with an unknown character's symbols never
// merging: Bpe::piece_cuts checks the vocabulary for it (no character dropped, no merge of
// a <0xXX> or unk token, no continuing_subword_prefix / end_of_word_suffix), and Bpe::cuts
// never cuts between two unknown characters while an unk waits.
//
// The test is local and conservative: the boundary between bytes b = s[p-1] and c = s[p]
// is bridged if some merge result, cut at one of its own inner positions, shows the same
// bytes there -- b and c, plus the byte before b and the byte after c where the result has
// them (a result that starts at b or ends at c matches whatever the piece has there).  The
// signatures (a|START, b, c, d|END) of every result live in a bitset by hash: a collision
// only costs a cut, never adds one.  On GPT-2 this cuts 96% of the character boundaries of
// Chinese pieces (76% with llama-3's and gpt-4o's vocabularies, which hold many Chinese
// words): a long new piece then becomes short ones the word cache mostly knows.
#pragma once
#include <cstdint>
#include <vector>

#include "common/utf8.h"

namespace tagpipe {

class BridgeCuts {
 public:
  static constexpr int kBits = 22;  // 512 KiB

  BridgeCuts() : bits_(size_t(1) << (kBits - 6), 0) {}

  // Adds the signatures of one merge result t[0..n).
  void add(const uint8_t* t, uint32_t n) {
    for (uint32_t k = 1; k < n; k++)
      set(key(k >= 2 ? t[k - 2] : kStart, t[k - 1], t[k], k + 2 <= n ? t[k + 1] : kEnd));
    if (!whole_chars_) return;
    for (uint32_t k = 0, len; k < n; k += len) {
      len = utf8_length(t[k]);
      const uint32_t c = bmp_code_point(t + k, len, n - k);
      if (c == kNotBmp) continue;
      if (k > 0) left_[c >> 6] |= uint64_t(1) << (c & 63);
      if (k + len < n) right_[c >> 6] |= uint64_t(1) << (c & 63);
    }
  }

  // Results made of whole characters (not ByteLevel: a vocabulary string is UTF-8 text):
  // one starts with a character's first byte and ends with its last.  (Before add.)
  void set_whole_chars(bool yes) {
    whole_chars_ = yes;
    left_.assign(yes ? 1024 : 0, 0);
    right_.assign(yes ? 1024 : 0, 0);
  }

  // Whether a merge result could cover the boundary before s[p] (0 < p < n), where the
  // character before it starts at s[prev].
  bool bridged(const uint8_t* s, uint32_t n, uint32_t prev, uint32_t p) const {
    if (whole_chars_) {
      // With whole characters a result covering the boundary holds both characters, X
      // then Y: none can unless some result has a character after X and one has a
      // character before Y.  Two bits of 16 KiB, by code point -- where the bitset's
      // probes land anywhere in 512 KiB (most of Chinese text's characters are in no
      // merge result of llama-2's: llama-2 Chinese all-hit spent 38% of its time in cuts).
      const uint32_t x = bmp_code_point(s + prev, p - prev, p - prev), y = bmp_code_point(s + p, utf8_length(s[p]), n - p);
      if (x != kNotBmp && y != kNotBmp &&
          !((right_[x >> 6] >> (x & 63)) & (left_[y >> 6] >> (y & 63)) & 1))
        return false;
    }
    const uint32_t b = s[p - 1], c = s[p];
    const bool before = p >= 2, after = p + 1 < n;
    // With whole characters, a result starts at b only if b is a one-byte character, and
    // ends at c only if c is (p is where a character starts): between two characters of
    // Cyrillic or Chinese only the last signature can exist -- one probe, not four (the
    // others could only collide, which would cost a cut).
    const bool start_b = !whole_chars_ || b < 0x80, end_c = !whole_chars_ || c < 0x80;
    if (before && after && test(key(s[p - 2], b, c, s[p + 1]))) return true;
    if (start_b && end_c && test(key(kStart, b, c, kEnd))) return true;
    if (before && end_c && test(key(s[p - 2], b, c, kEnd))) return true;
    return after && start_b && test(key(kStart, b, c, s[p + 1]));
  }

 private:
  static constexpr uint32_t kStart = 256, kEnd = 257;
  static uint64_t key(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return (uint64_t(a) | uint64_t(b) << 9 | uint64_t(c) << 17 | uint64_t(d) << 25) * 0x9E3779B97F4A7C15ULL >>
           (64 - kBits);
  }
  void set(uint64_t h) { bits_[h >> 6] |= uint64_t(1) << (h & 63); }
  bool test(uint64_t h) const { return (bits_[h >> 6] >> (h & 63)) & 1; }

  std::vector<uint64_t> bits_;
  std::vector<uint64_t> left_, right_;  // whole characters: bit c, some result has a character before / after c
  bool whole_chars_ = false;
};

}  // namespace tagpipe
