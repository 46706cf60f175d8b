// Where a piece can be cut without changing its BPE: before a character where no merge
// can join the symbols on either side.
//
// Why a cut there is exact: BPE's symbols are always substrings of the piece, and a merge
// joins two neighbouring symbols into its result.  Take the first merge of the whole
// piece's BPE that joins symbols across the boundary: no merge before it did, so its left
// symbol ends at the boundary and its right one starts there -- the merge's left string
// is the piece's text just before the boundary, its right string the text just after.  If
// no merge matches the piece so, no merge ever joins across the boundary, the two sides
// merge independently -- each side's merges come in the same order (lowest rank, leftmost
// first) as they would alone -- and BPE(piece) = BPE(left) ++ BPE(right).  That needs the
// initial symbols to be the piece's own bytes (ByteLevel) or characters, with an unknown
// character's symbols never merging: Bpe::piece_cuts checks the vocabulary for it (no
// character dropped, no merge of a <0xXX> or unk token, no continuing_subword_prefix /
// end_of_word_suffix), and Bpe::cuts never cuts between two unknown characters while an
// unk waits.
//
// The tests are local and conservative (a Bloom filter's collision only costs a cut, never
// adds one):
//   - Whole characters (SentencePiece vocabularies), the boundary between characters x and
//     y: whether some merge's left string ends with x and its right one starts with y -- a
//     Bloom filter of these pairs.  Vocabularies have few distinct ones (llama-2: 3,279;
//     gemma-3: 33,695), so the filter is small: llama-2's is 32 KiB.  Bpe::cuts asks it.
//     Then, for a part the word cache did not know (Bpe::refine), the same with the
//     characters around: the quad (w, x, y, z) of the merge's left string's last two
//     characters and its right one's first two (kAlone for a string of one), against the
//     piece's: four probes of a second filter (llama-2: 128 KiB).  Of the boundaries the
//     pairs keep in llama-2's Russian text, the quads would cut 8% (a Python count with
//     exact sets); asked everywhere they cost more than that saved.
//   - Around a character outside ASCII in ByteLevel pieces: whether some merge result holds
//     x and y whole, side by side (any merge that can join across the boundary makes such a
//     result) -- the same pair filter.  A ByteLevel result may also start or end inside a
//     character (llama-3: 593 of its 61,415 such boundaries); those go to the signatures
//     below, in a bitset of their own.
//   - Between two ASCII characters (ByteLevel): the boundary between bytes b = s[p-1] and
//     c = s[p] is bridged if some merge result, cut at one of its own inner positions,
//     shows the same bytes there -- b and c, plus the byte before b and the byte after c
//     where the result has them (a result that starts at b or ends at c matches whatever
//     the piece has there).  The signatures (a|START, b, c, d|END) of every result live in
//     a bitset by hash.
// Between two Chinese characters the pairs are the better test: a signature sees only
// their inner bytes -- the last two of x, the first two of y -- so one pair in a result
// bridged some 384 pairs of characters (fresh llama-3 Chinese 1.14x, gpt-4o 1.24x).  A
// long new piece then becomes short ones the word cache mostly knows.
#pragma once
#include <cstdint>
#include <vector>

#include "common/utf8.h"

namespace tagpipe {

class BridgeCuts {
 public:
  static constexpr int kBits = 22;  // the signatures: 512 KiB
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
  // where the character before it starts at s[prev].  (Whole characters: Bpe decodes each
  // character once and asks bridged(x, y), then splits.)
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
    if (z == kNoChar) z = kAlone;  // (a right string holds whole characters: y alone, there)
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
  // memory access; a false "bridged" for ~1.5% of pairs at 16 bits per pair, where one bit
  // gave ~5%: llama-2's Chinese text then kept whole a pair in twenty and missed its cache
  // three times as often).  The word from one product's top bits, the two bits from another's.
  size_t word(uint64_t pair) const { return size_t(bit(pair, char_bits_ - 6)); }
  static uint64_t mask(uint64_t pair) {
    const uint64_t h = pair * 0xD6E8FEB86659FD93ULL;
    return uint64_t(1) << (h >> 58) | uint64_t(1) << ((h >> 52) & 63);
  }

  std::vector<uint64_t> bits_;          // ByteLevel: the signatures, 2^kBits bits
  std::vector<uint64_t> pairs_;         // the character pairs a merge can join
  std::vector<uint64_t> partial_;       // ByteLevel: the partial signatures, 2^partial_bits_ bits
  std::vector<uint64_t> quads_;         // whole characters: the merges' quads, 2^(64 - quad_shift_) words
  std::vector<uint64_t> pending_;       // (until finish: every pair)
  std::vector<uint64_t> pending_quads_; // (until finish: every merge's quad hash)
  std::vector<uint64_t> partial_sigs_;  // (until finish: the partial signatures)
  int char_bits_ = 12, partial_bits_ = 12, quad_shift_ = 64 - 6;
};

}  // namespace tagpipe
