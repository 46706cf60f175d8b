// The merge table of a BPE: (left id, right id) -> (rank, result id), open addressing at
// most half full.  A lookup is on the critical path of every merge, so a slot is one 64-bit
// word: the pair's hash quotient and distance, its rank, and its result unless results are
// rank + a constant (docs/design/merge-table.md); 16-byte slots when that does not fit.
// A merge listed twice keeps its last rank (the oracle builds a HashMap).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/huge_table.h"

namespace tagpipe {

struct BpeMerge {
  uint32_t left, right, result;  // ids; the rank is the index in the merges list
};

class MergeTable {
 public:
  explicit MergeTable(const std::vector<BpeMerge>& merges) {
    uint32_t max_id = 0;
    for (const BpeMerge& m : merges) max_id = std::max({max_id, m.left, m.right, m.result});
    id_bits_ = bits_for(max_id);
    const int rank_bits = bits_for(uint32_t(merges.size()));  // (a rank is never all ones: no full slot is kEmpty)
    affine_ = !merges.empty();
    delta_ = merges.empty() ? 0 : int64_t(merges[0].result);
    for (uint32_t rank = 0; rank < merges.size() && affine_; rank++)
      affine_ = int64_t(merges[rank].result) - rank == delta_;
    result_bits_ = affine_ ? 0 : id_bits_;
    int slot_bits = 4;
    while ((size_t(1) << slot_bits) < merges.size() * 2) slot_bits++;
    mask_ = (size_t(1) << slot_bits) - 1;
    const int key_bits = std::max(2 * id_bits_, slot_bits);  // (a bijection on 2^key_bits still maps every pair)
    key_mask_ = key_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << key_bits) - 1;
    quotient_bits_ = key_bits - slot_bits;
    quotient_mask_ = (uint64_t(1) << quotient_bits_) - 1;  // (quotient_bits_ <= 32 + 32 - 4)
    shift_distance_ = rank_bits + result_bits_;
    distance_bits_ = 64 - quotient_bits_ - shift_distance_;
    rank_mask_ = uint32_t((uint64_t(1) << rank_bits) - 1);
    result_mask_ = uint32_t((uint64_t(1) << result_bits_) - 1);
    if (distance_bits_ >= 4) {
      max_distance_ = (uint64_t(1) << std::min(distance_bits_, 32)) - 1;
      slots_.assign(mask_ + 1, kEmpty);
      compact_ = true;
      for (uint32_t rank = 0; rank < merges.size() && compact_; rank++) compact_ = put_compact(merges[rank], rank);
      // A lookup walks at most one run of full slots: if every run is shorter than the
      // distances the field holds, no walk's tag + d can carry into the quotient.
      if (compact_ && longest_run() <= max_distance_) return;
      compact_ = false;
      slots_.reset(0);
    }
    wide_.assign(mask_ + 1, Wide{0, kNoRank, 0});
    for (uint32_t rank = 0; rank < merges.size(); rank++) {
      const BpeMerge& m = merges[rank];
      const uint64_t key = pair_key(m.left, m.right);
      size_t i = home(hash(key));
      while (wide_[i].rank != kNoRank && wide_[i].key != key) i = (i + 1) & mask_;
      wide_[i] = Wide{key, rank, m.result};
    }
  }

  // Whether left + right merge; if so their rank and the merged id.
  bool find(uint32_t left, uint32_t right, uint32_t& rank, uint32_t& result) const {
    const uint64_t h = hash(pair_key(left, right));
    size_t i = home(h);
    if (__builtin_expect(compact_, 1)) {
      // The slot's tag (quotient, distance) for this pair at distance d is tag + d.
      uint64_t tag = (h & quotient_mask_) << distance_bits_;
      for (uint64_t s; (s = slots_[i]) != kEmpty; i = (i + 1) & mask_, tag++)
        if ((s >> shift_distance_) == tag) {
          rank = uint32_t(s >> result_bits_) & rank_mask_;
          result = affine_ ? uint32_t(int64_t(rank) + delta_) : uint32_t(s) & result_mask_;
          return true;
        }
      return false;
    }
    const uint64_t key = pair_key(left, right);
    for (;; i = (i + 1) & mask_) {
      const Wide& w = wide_[i];
      if (w.rank == kNoRank) return false;
      if (w.key == key) {
        rank = w.rank, result = w.result;
        return true;
      }
    }
  }

  bool compact() const { return compact_; }  // (64-bit slots, not 16-byte ones)

  void prefetch(uint32_t left, uint32_t right) const {
    const size_t i = home(hash(pair_key(left, right)));
    if (compact_) __builtin_prefetch(&slots_[i]);
    else __builtin_prefetch(&wide_[i]);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);  // a compact slot (never a full one: see the constructor)
  // An empty wide slot: its key may be any pair, ids 2^32 - 1 too (the oracle takes them),
  // but no rank is all ones (there are fewer merges).
  static constexpr uint32_t kNoRank = UINT32_MAX;
  struct Wide {
    uint64_t key;
    uint32_t rank, result;
  };
  static int bits_for(uint32_t max) {  // bits to hold 0..max
    int b = 1;
    while (b < 32 && (uint64_t(1) << b) <= max) b++;
    return b;
  }
  uint64_t pair_key(uint32_t left, uint32_t right) const { return (uint64_t(left) << id_bits_) | right; }
  // Fibonacci hashing within the pair's bits (K): multiplying by an odd constant mod 2^K is
  // invertible, and the top bits of the product depend on every bit of the pair.  (Every
  // lookup's address waits for this: keep it to a multiply, an and and a shift.)
  uint64_t hash(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ULL) & key_mask_; }
  size_t home(uint64_t h) const { return size_t(h >> quotient_bits_); }

  bool put_compact(const BpeMerge& m, uint32_t rank) {
    const uint64_t h = hash(pair_key(m.left, m.right));
    const uint64_t quotient = (h & quotient_mask_) << distance_bits_;
    const uint64_t low = (uint64_t(rank) << result_bits_) | (result_bits_ ? m.result : 0);
    size_t i = home(h);
    for (uint64_t d = 0; d <= max_distance_; d++, i = (i + 1) & mask_) {
      const uint64_t s = slots_[i];
      if (s == kEmpty || (s >> shift_distance_) == (quotient | d)) {
        slots_[i] = ((quotient | d) << shift_distance_) | low;
        return true;
      }
    }
    return false;
  }

  uint64_t longest_run() const {  // of full slots, around the end too
    uint64_t longest = 0, run = 0;
    for (size_t k = 0; k < 2 * (mask_ + 1); k++) {
      run = slots_[k & mask_] == kEmpty ? 0 : run + 1;
      longest = std::max(longest, run);
    }
    return longest;
  }

  int id_bits_ = 32, quotient_bits_ = 0, shift_distance_ = 0, distance_bits_ = 0, result_bits_ = 0;
  uint64_t key_mask_ = 0, quotient_mask_ = 0;
  uint32_t rank_mask_ = 0, result_mask_ = 0;
  uint64_t max_distance_ = 0;
  int64_t delta_ = 0;
  bool affine_ = false, compact_ = false;
  size_t mask_ = 0;
  HugeTable<uint64_t> slots_;
  HugeTable<Wide> wide_;
};

}  // namespace tagpipe
