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
// Pieces of whole characters (SentencePiece vocabularies) need no signatures: a result
// covering the boundary holds both characters, x then y, so the test is whether some
// result has x and y side by side -- a Bloom filter of the results' character pairs.
// They have few distinct pairs (llama-2: 3,279; gemma-3: 33,695), so the filter is small:
// llama-2's is 32 KiB, where the signatures' probes land anywhere in 512 KiB.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/utf8.h"

namespace tagpipe {

class BridgeCuts {
 public:
  static constexpr int kBits = 22;  // the signatures: 512 KiB

  // Results made of whole characters (not ByteLevel: a vocabulary string is UTF-8 text):
  // one starts with a character's first byte and ends with its last.  Before add.
  void set_whole_chars(bool yes) {
    whole_chars_ = yes;
    bits_.assign(yes ? 0 : size_t(1) << (kBits - 6), 0);
    pending_.clear();
  }
  bool whole_chars() const { return whole_chars_; }

  // Adds one merge result t[0..n).
  void add(const uint8_t* t, uint32_t n) {
    if (!whole_chars_) {  // its signatures
      for (uint32_t k = 1; k < n; k++)
        set(key(k >= 2 ? t[k - 2] : kStart, t[k - 1], t[k], k + 2 <= n ? t[k + 1] : kEnd));
      return;
    }
    uint32_t before = kNoChar;  // its character pairs, for finish()
    for (uint32_t k = 0, len; k < n; k += len) {
      len = utf8_length(t[k]);
      const uint32_t c = code_point(t + k, len, n - k);
      if (before != kNoChar && c != kNoChar) pending_.push_back(pair_key(before, c));
      before = c;
    }
  }

  // After the last add (whole characters): the pair bitset, sized by the number of
  // distinct pairs -- counted by the share of bits they set in a 512 KiB trial bitset
  // (linear counting: a sort of gemma-3's 1.4M pairs would cost load time).
  void finish() {
    if (!whole_chars_) return;
    constexpr int kTrial = 22;
    std::vector<uint64_t> trial(size_t(1) << (kTrial - 6), 0);
    for (uint64_t k : pending_) trial[bit(k, kTrial) >> 6] |= uint64_t(1) << (bit(k, kTrial) & 63);
    size_t ones = 0;
    for (uint64_t w : trial) ones += size_t(__builtin_popcountll(w));
    const double m = double(size_t(1) << kTrial);
    const double distinct = ones < trial.size() * 64 ? -m * std::log(1 - double(ones) / m) : m;
    // 64 bits per pair or more, up to 256 KiB (llama-2: 32 KiB; gemma-3: 256 KiB, 62 bits per
    // pair).  Measured: llama-2 Chinese 1.08x from 32 to 64 bits per pair (a pair of its
    // Chinese text is seldom in a result, and a false "bridged" costs a cut); gemma-3
    // Russian 0.89x from 256 to 512 KiB (the probes then miss L2).
    char_bits_ = 12;
    while (char_bits_ < 21 && double(size_t(1) << char_bits_) < distinct * 64) char_bits_++;
    pairs_.assign(size_t(1) << (char_bits_ - 6), 0);
    for (uint64_t k : pending_) pairs_[word(k)] |= mask(k);
    std::vector<uint64_t>().swap(pending_);
  }

  // Whether a merge result could cover the boundary before s[p] (0 < p < n), where the
  // character before it starts at s[prev].
  bool bridged(const uint8_t* s, uint32_t n, uint32_t prev, uint32_t p) const {
    if (!whole_chars_) return signatures(s, n, p);
    return bridged(code_point(s + prev, p - prev, p - prev), code_point(s + p, utf8_length(s[p]), n - p));
  }
  // The same with whole characters: x and y are the code points before and after the
  // boundary (kNoChar for one cut short: never cut there).
  bool bridged(uint32_t x, uint32_t y) const {
    if (x == kNoChar || y == kNoChar) return true;
    const uint64_t k = pair_key(x, y), m = mask(k);
    return (pairs_[word(k)] & m) == m;
  }

 private:
  // The signatures' answer for the boundary before s[p] (bytes).
  bool signatures(const uint8_t* s, uint32_t n, uint32_t p) const {
    const uint32_t b = s[p - 1], c = s[p];
    const bool before = p >= 2, after = p + 1 < n;
    if (before && after && test(key(s[p - 2], b, c, s[p + 1]))) return true;
    if (test(key(kStart, b, c, kEnd))) return true;
    if (before && test(key(s[p - 2], b, c, kEnd))) return true;
    return after && test(key(kStart, b, c, s[p + 1]));
  }

  static constexpr uint32_t kStart = 256, kEnd = 257;
  static uint64_t key(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return (uint64_t(a) | uint64_t(b) << 9 | uint64_t(c) << 17 | uint64_t(d) << 25) * 0x9E3779B97F4A7C15ULL >>
           (64 - kBits);
  }
  void set(uint64_t h) { bits_[h >> 6] |= uint64_t(1) << (h & 63); }
  bool test(uint64_t h) const { return (bits_[h >> 6] >> (h & 63)) & 1; }

  static uint64_t pair_key(uint32_t x, uint32_t y) { return uint64_t(x) << 21 | y; }  // (code points: 21 bits)
  static uint64_t bit(uint64_t pair, int bits) { return (pair * 0x9E3779B97F4A7C15ULL) >> (64 - bits); }
  // The pair bitset is a blocked Bloom filter: two bits of one 64-bit word per pair (one
  // memory access; a false "bridged" for ~1.5% of pairs at 16 bits per pair, where one bit
  // gave ~5%: llama-2's Chinese text then kept whole a pair in twenty and missed its cache
  // three times as often).  The word from one product's top bits, the two bits from another's.
  size_t word(uint64_t pair) const { return size_t(bit(pair, char_bits_ - 6)); }
  static uint64_t mask(uint64_t pair) {
    const uint64_t h = pair * 0xD6E8FEB86659FD93ULL;
    return uint64_t(1) << (h >> 58) | uint64_t(1) << ((h >> 52) & 63);
  }

  std::vector<uint64_t> bits_;     // bytes: the signatures
  std::vector<uint64_t> pairs_;    // whole characters: bit(pair_key(x, y)), some result has x then y
  std::vector<uint64_t> pending_;  // (whole characters, until finish: every result's pairs)
  int char_bits_ = 12;
  bool whole_chars_ = false;
};

}  // namespace tagpipe
