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
//
// Pieces of whole characters (SentencePiece vocabularies) are asked by character first: a
// result covering the boundary holds both characters, x then y.  Between two characters of
// the pair bitmap (every two-byte one and the 128 three-byte ones most frequent in results,
// a SentencePiece mark ▁ among them) that is one exact bit; else two code-point bits can rule it out,
// and the signatures decide the rest.
#pragma once
#include <algorithm>
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
    uint32_t before = kNotBmp;  // the character before t[k]
    for (uint32_t k = 0, len; k < n; k += len) {
      len = utf8_length(t[k]);
      const uint32_t c = bmp_code_point(t + k, len, n - k);
      if (pair_id(before) != kNone && pair_id(c) != kNone) set_pair(pair_id(before), pair_id(c));
      before = c;
      if (c == kNotBmp) continue;
      if (k > 0) left_[c >> 6] |= uint64_t(1) << (c & 63);
      if (k + len < n) right_[c >> 6] |= uint64_t(1) << (c & 63);
    }
  }

  // Whole characters, before add: which three-byte characters get a row and a column of the
  // pair bitmap -- the kExtra most frequent in results t[0..n) of two or more characters
  // (a SentencePiece vocabulary's mark first: it starts most words).  tally() each result,
  // then choose().
  void tally(const uint8_t* t, uint32_t n) {
    if (tally_.empty()) tally_.assign(0x10000, 0);
    if (utf8_chars(t, n) < 2) return;
    for (uint32_t k = 0, len; k < n; k += len) {
      len = utf8_length(t[k]);
      const uint32_t c = bmp_code_point(t + k, len, n - k);
      if (c != kNotBmp && c >= 0x800) tally_[c]++;
    }
  }
  void choose() {
    std::vector<uint32_t> chosen;
    for (uint32_t c = 0x800; c < tally_.size(); c++)
      if (tally_[c]) chosen.push_back(c);
    auto more = [&](uint32_t a, uint32_t b) { return tally_[a] != tally_[b] ? tally_[a] > tally_[b] : a < b; };
    if (chosen.size() > kExtra) {
      std::nth_element(chosen.begin(), chosen.begin() + kExtra, chosen.end(), more);
      chosen.resize(kExtra);
    }
    std::sort(chosen.begin(), chosen.end());  // (ids in code point order: a script's together)
    for (size_t i = 0; i < chosen.size(); i++) extra_[chosen[i] - 0x800] = uint16_t(kTwo + i);
    std::vector<uint32_t>().swap(tally_);
  }

  // Results made of whole characters (not ByteLevel: a vocabulary string is UTF-8 text):
  // one starts with a character's first byte and ends with its last.  (Before add.)
  void set_whole_chars(bool yes) {
    whole_chars_ = yes;
    left_.assign(yes ? 1024 : 0, 0);
    right_.assign(yes ? 1024 : 0, 0);
    pairs_.assign(yes ? size_t(kIds) * kIds / 64 : 0, 0);
    extra_.assign(yes ? 0x10000 - 0x800 : 0, kNone);
  }

  bool whole_chars() const { return whole_chars_; }

  // Whether a merge result could cover the boundary before s[p] (0 < p < n), where the
  // character before it starts at s[prev].
  bool bridged(const uint8_t* s, uint32_t n, uint32_t prev, uint32_t p) const {
    if (!whole_chars_) return signatures(s, n, p);
    return bridged(s, n, p, bmp_code_point(s + prev, p - prev, p - prev), bmp_code_point(s + p, utf8_length(s[p]), n - p));
  }
  // The same with whole characters: x and y are the code points before and after the
  // boundary (kNotBmp for a character outside the BMP).  A result covering the boundary
  // holds both characters, x then y.
  bool bridged(const uint8_t* s, uint32_t n, uint32_t p, uint32_t x, uint32_t y) const {
    // Two two-byte characters (a Cyrillic word's inside): the exact answer, one bit of the
    // pair bitmap.  The lines a script's text reads are few -- a row per x, its bits for
    // the script's block side by side -- where the signatures' probes land anywhere in
    // 512 KiB (llama-2 Russian all-hit: 1.15x).
    if (const uint32_t i = pair_id(x), j = pair_id(y); i != kNone && j != kNone) return pair(i, j);
    // Else none can cover it unless some result has a character after x and one has a
    // character before y.  Two bits of 16 KiB, by code point (most of Chinese text's
    // characters are in no merge result of llama-2's: llama-2 Chinese all-hit spent 38% of
    // its time in cuts before this test).
    if (x != kNotBmp && y != kNotBmp && !((right_[x >> 6] >> (x & 63)) & (left_[y >> 6] >> (y & 63)) & 1))
      return false;
    return signatures(s, n, p);
  }

 private:
  // The signatures' answer for the boundary before s[p].
  bool signatures(const uint8_t* s, uint32_t n, uint32_t p) const {
    const uint32_t b = s[p - 1], c = s[p];
    const bool before = p >= 2, after = p + 1 < n;
    // With whole characters, a result starts at b only if b is a one-byte character, and
    // ends at c only if c is (p is where a character starts): between two characters of
    // Chinese only the last signature can exist -- one probe, not four (the others could
    // only collide, which would cost a cut).
    const bool start_b = !whole_chars_ || b < 0x80, end_c = !whole_chars_ || c < 0x80;
    if (before && after && test(key(s[p - 2], b, c, s[p + 1]))) return true;
    if (start_b && end_c && test(key(kStart, b, c, kEnd))) return true;
    if (before && end_c && test(key(s[p - 2], b, c, kEnd))) return true;
    return after && start_b && test(key(kStart, b, c, s[p + 1]));
  }

  static constexpr uint32_t kStart = 256, kEnd = 257;
  static uint64_t key(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return (uint64_t(a) | uint64_t(b) << 9 | uint64_t(c) << 17 | uint64_t(d) << 25) * 0x9E3779B97F4A7C15ULL >>
           (64 - kBits);
  }
  // The pair bitmap's characters: the two-byte ones (U+0080..U+07FF: Latin supplements,
  // Greek, Cyrillic, Hebrew, Arabic, ...), ids 0..kTwo-1, and kExtra chosen three-byte
  // ones after them (choose).  Bit (i, j) of the kIds x kIds bitmap: some result holds the
  // character with id i, then the one with id j.
  static constexpr uint32_t kTwo = 0x800 - 0x80, kExtra = 128, kIds = kTwo + kExtra, kNone = 0xFFFF;
  uint32_t pair_id(uint32_t c) const {
    if (c - 0x80 < kTwo) return c - 0x80;
    return c - 0x800 < extra_.size() ? extra_[c - 0x800] : kNone;  // (kNotBmp too)
  }
  void set_pair(uint32_t i, uint32_t j) {
    const size_t bit = size_t(i) * kIds + j;
    pairs_[bit >> 6] |= uint64_t(1) << (bit & 63);
  }
  bool pair(uint32_t i, uint32_t j) const {
    const size_t bit = size_t(i) * kIds + j;
    return (pairs_[bit >> 6] >> (bit & 63)) & 1;
  }
  void set(uint64_t h) { bits_[h >> 6] |= uint64_t(1) << (h & 63); }
  bool test(uint64_t h) const { return (bits_[h >> 6] >> (h & 63)) & 1; }

  std::vector<uint64_t> bits_;
  std::vector<uint64_t> pairs_;   // whole characters: the pair bitmap
  std::vector<uint16_t> extra_;   // whole characters: by code point from U+0800, a chosen one's id, else kNone
  std::vector<uint32_t> tally_;   // (while choosing: by code point, how often in results)
  std::vector<uint64_t> left_, right_;  // whole characters: bit c, some result has a character before / after c
  bool whole_chars_ = false;
};

}  // namespace tagpipe
