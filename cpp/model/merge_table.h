// The merge table of a BPE: (left id, right id) -> (rank, result id).
//
// Open addressing with Fibonacci hashing (one multiply, the table index from the top bits)
// at most half full.  A lookup is on the critical path of every merge (the next pair's key
// is the merged id), so the slots are as small as they can be -- more of the table stays in
// the CPU's caches -- and the result comes out of the slot where it fits:
//   - affine: every merge's result is its rank plus one constant (GPT-2, o200k, qwen,
//     deepseek: the vocabulary lists merges in rank order) -- a slot is the pair above
//     the rank, and the result is computed;
//   - packed: pair, rank and result fit one 64-bit word together (llama-2, mistral);
//   - ranked: pair and rank fit one 64-bit word, the result does not (llama-3, gemma) --
//     the result is read from a rank-indexed array, and only for the merge that is made:
//     find_rank() starts that read (a prefetch) and result_of() takes it when the pair is
//     chosen, by then loaded.  (The 16-byte slots this replaced made gemma's table 16 MiB.)
//   - wide: 16-byte slots holding all three, when not even pair and rank fit.
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
    const int rank_bits = bits_for(uint32_t(merges.size()));  // (a rank is never all ones)
    affine_ = !merges.empty();
    delta_ = merges.empty() ? 0 : int64_t(merges[0].result);
    for (uint32_t rank = 0; rank < merges.size() && affine_; rank++)
      affine_ = int64_t(merges[rank].result) - rank == delta_;
    result_bits_ = affine_ ? 0 : id_bits_;
    if (2 * id_bits_ + rank_bits + result_bits_ > 64 && 2 * id_bits_ + rank_bits <= 64) {
      ranked_ = true;
      result_bits_ = 0;
      results_.resize(merges.size());
      for (uint32_t rank = 0; rank < merges.size(); rank++) results_[rank] = merges[rank].result;
    }
    compact_ = 2 * id_bits_ + rank_bits + result_bits_ <= 64;
    low_bits_ = rank_bits + result_bits_;
    rank_mask_ = uint32_t((uint64_t(1) << rank_bits) - 1);
    result_mask_ = uint32_t((uint64_t(1) << result_bits_) - 1);
    size_t cap = 16;
    shift_ = 60;
    while (cap < merges.size() * 2) cap *= 2, shift_--;
    mask_ = cap - 1;
    if (compact_) slots_.assign(cap, kEmpty);
    else wide_.assign(cap, Wide{kEmpty, 0, 0});
    for (uint32_t rank = 0; rank < merges.size(); rank++) {
      const BpeMerge& m = merges[rank];
      const uint64_t key = pair_key(m.left, m.right);
      size_t i = index(key);
      if (compact_) {
        while (slots_[i] != kEmpty && (slots_[i] >> low_bits_) != key) i = (i + 1) & mask_;
        slots_[i] = (key << low_bits_) | (uint64_t(rank) << result_bits_) | (result_bits_ ? m.result : 0);
      } else {
        while (wide_[i].key != kEmpty && wide_[i].key != key) i = (i + 1) & mask_;
        wide_[i] = Wide{key, rank, m.result};
      }
    }
  }

  // Whether left + right merge; if so their rank and the merged id.
  bool find(uint32_t left, uint32_t right, uint32_t& rank, uint32_t& result) const {
    if (!find_rank(left, right, rank, result)) return false;
    result = result_of(rank, result);
    return true;
  }
  // find() for a pair that may not be merged: `result` is what result_of(rank, result)
  // turns into the merged id (ranked: a prefetch of it has started).
  bool find_rank(uint32_t left, uint32_t right, uint32_t& rank, uint32_t& result) const {
    const uint64_t key = pair_key(left, right);
    size_t i = index(key);
    if (__builtin_expect(compact_, 1)) {
      for (uint64_t s; (s = slots_[i]) != kEmpty; i = (i + 1) & mask_)
        if ((s >> low_bits_) == key) {
          rank = uint32_t(s >> result_bits_) & rank_mask_;
          result = affine_ ? uint32_t(int64_t(rank) + delta_) : uint32_t(s) & result_mask_;
          if (ranked_) __builtin_prefetch(&results_[rank]);
          return true;
        }
      return false;
    }
    for (;; i = (i + 1) & mask_) {
      const Wide& w = wide_[i];
      if (w.key == key) {
        rank = w.rank, result = w.result;
        return true;
      }
      if (w.key == kEmpty) return false;
    }
  }
  uint32_t result_of(uint32_t rank, uint32_t result) const { return ranked_ ? results_[rank] : result; }

  void prefetch(uint32_t left, uint32_t right) const {
    const size_t i = index(pair_key(left, right));
    if (compact_) __builtin_prefetch(&slots_[i]);
    else __builtin_prefetch(&wide_[i]);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
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
  size_t index(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_; }

  int id_bits_ = 32, low_bits_ = 0, result_bits_ = 0, shift_ = 60;
  uint32_t rank_mask_ = 0, result_mask_ = 0;
  int64_t delta_ = 0;
  bool affine_ = false, compact_ = false, ranked_ = false;
  size_t mask_ = 0;
  HugeTable<uint64_t> slots_;
  HugeTable<Wide> wide_;
  std::vector<uint32_t> results_;  // ranked: the result of each rank
};

}  // namespace tagpipe
