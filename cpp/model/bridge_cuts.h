// The filters that say where a piece can be cut without changing its BPE: a boundary is
// "bridged" when some merge could join the symbols on its two sides, and a cut is taken only
// where it is not (proof, filters and their sizes: docs/design/bridge-cuts.md).  Bloom
// filters, so a collision only costs a cut, never adds one: character pairs (and, to refine
// a part, quads of characters) for whole-character pieces; byte signatures of merge results
// for ByteLevel pieces, with the pairs around characters outside ASCII.
#pragma once
#include <cstdint>
#include <vector>

#include "common/utf8.h"

namespace tagpipe {

class BridgeCuts {
 public:
  static constexpr int kBits = 22;  // the signatures' bitset
  // A quad's side that is no character: its string is x (or y) alone, or the piece ends there.
  static constexpr uint32_t kAlone = 0x110000;

  // Whole characters (not ByteLevel: a vocabulary string is UTF-8 text): merges are added
  // by add_merge, else results by add.  First.
  void set_whole_chars(bool yes) {
    bits_.assign(yes ? 0 : size_t(1) << (kBits - 6), 0);
    pending_.clear();
    pending_quads_.clear();
  }

  // ByteLevel: one merge result t[0..n).
  void add(const uint8_t* t, uint32_t n);
  // Whole characters: one merge, of the strings a[0..an) and b[0..bn) (each one character
  // or more).  Its split, in context: the pair (x, y) of a's last character and b's first,
  // and the quad (w, x, y, z) with a's character before x (kAlone when a is x alone) and
  // b's after y (kAlone when b is y alone).
  void add_merge(const uint8_t* a, uint32_t an, const uint8_t* b, uint32_t bn);
  // After the last add: the pair bitset and the quads' (each sized by the number of
  // distinct keys, filter_bits), and the partial signatures' bitset.
  void finish();

  // ByteLevel: whether a merge result could cover the boundary before s[p] (0 < p < n),
  // where the character before it starts at s[prev].  (Whole characters: BpeCuts decodes
  // each character once and asks bridged(x, y), then splits.)
  bool bridged(const uint8_t* s, uint32_t n, uint32_t prev, uint32_t p) const {
    if ((s[p - 1] | s[p]) < 0x80) return signatures(bits_, kBits, s, n, p);
    // A character outside ASCII on a side: a result holding both whole has their pair; one
    // holding a part of either, its signature among the partial ones.
    const uint32_t x = code_point(s + prev, p - prev, p - prev), y = code_point(s + p, utf8_length(s[p]), n - p);
    return bridged(x, y) || (!partial_.empty() && signatures(partial_, partial_bits_, s, n, p));
  }
  // The pair filter: whether a merge can join x and y, the code points before and after the
  // boundary (kNoChar for one cut short: never cut there).
  bool bridged(uint32_t x, uint32_t y) const {
    if (x == kNoChar || y == kNoChar) return true;
    const uint64_t k = pair_key(x, y), m = mask(k);
    return (pairs_[word(k)] & m) == m;
  }
  // Whole characters, a boundary between x and y whose pair is bridged: whether a merge can
  // split there, with w the character before x and z the one after y in the piece (kAlone
  // past its ends; z kNoChar when cut short).  The merge's left string ends with x (and w,
  // unless it is x alone) and its right one starts with y (and z, unless it is y alone):
  // four quads, the likeliest first.
  bool splits(uint32_t w, uint32_t x, uint32_t y, uint32_t z) const {
    if (x == kNoChar || y == kNoChar) return true;
    if (quads_.empty()) return false;  // (no merges: between two unknown characters, say)
    if (z == kNoChar) z = kAlone;      // (a right string holds whole characters: y alone, there)
    const uint64_t u = pair_key(x, y) * kQuadMix;
    return quad(u, kAlone, kAlone) || quad(u, w, kAlone) || quad(u, kAlone, z) || quad(u, w, z);
  }

 private:
  // The answer of a signature bitset of 2^bits bits for the boundary before s[p].
  static bool signatures(const std::vector<uint64_t>& set, int bits, const uint8_t* s, uint32_t n, uint32_t p) {
    const uint32_t b = s[p - 1], c = s[p];
    const bool before = p >= 2, after = p + 1 < n;
    auto test = [&](uint64_t sig) {
      const uint64_t h = sig >> (64 - bits);
      return (set[h >> 6] >> (h & 63)) & 1;
    };
    if (before && after && test(signature(s[p - 2], b, c, s[p + 1]))) return true;
    if (test(signature(kStart, b, c, kEnd))) return true;
    if (before && test(signature(s[p - 2], b, c, kEnd))) return true;
    return after && test(signature(kStart, b, c, s[p + 1]));
  }

  // A quad's hash: u = its pair's key times kQuadMix (shared by a boundary's four quads),
  // plus the context, times an odd constant; the word from the top bits, two bits below them.
  static constexpr uint64_t kQuadMix = 0x9E3779B97F4A7C15ULL;
  static uint64_t quad_hash(uint64_t u, uint32_t w, uint32_t z) {
    return (u + (uint64_t(w) << 22 | z)) * 0xD6E8FEB86659FD93ULL;
  }
  static uint64_t quad_mask(uint64_t h) { return uint64_t(1) << ((h >> 30) & 63) | uint64_t(1) << ((h >> 36) & 63); }
  bool quad(uint64_t u, uint32_t w, uint32_t z) const {
    const uint64_t h = quad_hash(u, w, z), m = quad_mask(h);
    return (quads_[h >> quad_shift_] & m) == m;
  }
  template <class Hash>
  static int filter_bits(const std::vector<uint64_t>& keys, double per, int cap, Hash hash);
  static bool whole_pair(const uint8_t* t, uint32_t n, uint32_t k, uint32_t& x, uint32_t& y);

  static constexpr uint32_t kStart = 256, kEnd = 257;
  static uint64_t signature(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {  // (a bitset's index: its top bits)
    return (uint64_t(a) | uint64_t(b) << 9 | uint64_t(c) << 17 | uint64_t(d) << 25) * 0x9E3779B97F4A7C15ULL;
  }
  void set(uint64_t h) { bits_[h >> 6] |= uint64_t(1) << (h & 63); }

  static uint64_t pair_key(uint32_t x, uint32_t y) { return uint64_t(x) << 21 | y; }  // (code points: 21 bits)
  static uint64_t bit(uint64_t pair, int bits) { return (pair * 0x9E3779B97F4A7C15ULL) >> (64 - bits); }
  // The pair bitset is a blocked Bloom filter: two bits of one 64-bit word per pair (one
  // memory access, and far fewer false "bridged" than one bit).  The word from one
  // product's top bits, the two bits from another's.
  size_t word(uint64_t pair) const { return size_t(bit(pair, char_bits_ - 6)); }
  static uint64_t mask(uint64_t pair) {
    const uint64_t h = pair * 0xD6E8FEB86659FD93ULL;
    return uint64_t(1) << (h >> 58) | uint64_t(1) << ((h >> 52) & 63);
  }

  std::vector<uint64_t> bits_;           // ByteLevel: the signatures, 2^kBits bits
  std::vector<uint64_t> pairs_;          // the character pairs a merge can join
  std::vector<uint64_t> partial_;        // ByteLevel: the partial signatures, 2^partial_bits_ bits
  std::vector<uint64_t> quads_;          // whole characters: the merges' quads, 2^(64 - quad_shift_) words
  std::vector<uint64_t> pending_;        // (until finish: every pair)
  std::vector<uint64_t> pending_quads_;  // (until finish: every merge's quad hash)
  std::vector<uint64_t> partial_sigs_;   // (until finish: the partial signatures)
  int char_bits_ = 12, partial_bits_ = 12, quad_shift_ = 64 - 6;
};

}  // namespace tagpipe
