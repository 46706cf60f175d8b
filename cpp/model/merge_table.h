// The merge table of a BPE: (left id, right id) -> (rank, result id).
//
// Open addressing with Fibonacci hashing (one multiply, the table index from the top bits)
// at most half full.  When the ids and the ranks fit, a slot is one 64-bit word -- the pair
// above the rank -- so the table is half the size of a (key, rank, result) table and more
// of it stays in L2; the result id is read from a rank-indexed array only on a hit.
// A merge listed twice keeps its last rank (the oracle builds a HashMap).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tagpipe {

struct BpeMerge {
  uint32_t left, right, result;  // ids; the rank is the index in the merges list
};

class MergeTable {
 public:
  explicit MergeTable(const std::vector<BpeMerge>& merges) {
    uint32_t max_id = 0;
    for (const BpeMerge& m : merges) max_id = std::max({max_id, m.left, m.right});
    id_bits_ = 1;
    while (id_bits_ < 32 && (uint64_t(1) << id_bits_) <= max_id) id_bits_++;
    rank_bits_ = 64 - 2 * id_bits_;
    rank_mask_ = rank_bits_ >= 32 ? ~uint32_t(0) : (uint32_t(1) << rank_bits_) - 1;
    compact_ = rank_bits_ >= 1 && rank_bits_ <= 40 && (uint64_t(merges.size()) + 1) < (uint64_t(1) << rank_bits_);
    size_t cap = 16;
    shift_ = 60;
    while (cap < merges.size() * 2) cap *= 2, shift_--;
    mask_ = cap - 1;
    result_.resize(merges.size());
    if (compact_) slots_.assign(cap, kEmpty);
    else wide_.assign(cap, Wide{kEmpty, 0, 0});
    for (uint32_t rank = 0; rank < merges.size(); rank++) {
      const BpeMerge& m = merges[rank];
      result_[rank] = m.result;
      const uint64_t key = pair_key(m.left, m.right);
      if (compact_) {
        size_t i = index(key);
        while (slots_[i] != kEmpty && (slots_[i] >> rank_bits_) != key) i = (i + 1) & mask_;
        slots_[i] = (key << rank_bits_) | rank;
      } else {
        size_t i = index(key);
        while (wide_[i].key != kEmpty && wide_[i].key != key) i = (i + 1) & mask_;
        wide_[i] = Wide{key, rank, m.result};
      }
    }
  }

  // Whether left + right merge; if so their rank and the merged id.
  bool find(uint32_t left, uint32_t right, uint32_t& rank, uint32_t& result) const {
    if (__builtin_expect(compact_, 1)) {
      const uint64_t key = (uint64_t(left) << id_bits_) | right;
      size_t i = index(key);
      for (uint64_t s; (s = slots_[i]) != kEmpty; i = (i + 1) & mask_)
        if ((s >> rank_bits_) == key) {
          rank = uint32_t(s) & rank_mask_;
          result = result_[rank];
          return true;
        }
      return false;
    }
    const uint64_t key = pair_key(left, right);
    for (size_t i = index(key);; i = (i + 1) & mask_) {
      const Wide& w = wide_[i];
      if (w.key == key) {
        rank = w.rank, result = w.result;
        return true;
      }
      if (w.key == kEmpty) return false;
    }
  }

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
  uint64_t pair_key(uint32_t left, uint32_t right) const {
    return compact_ ? (uint64_t(left) << id_bits_) | right : (uint64_t(left) << 32) | right;
  }
  size_t index(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_; }

  int id_bits_ = 32, rank_bits_ = 0, shift_ = 60;
  uint32_t rank_mask_ = 0;
  bool compact_ = false;
  size_t mask_ = 0;
  std::vector<uint64_t> slots_;
  std::vector<Wide> wide_;
  std::vector<uint32_t> result_;
};

}  // namespace tagpipe
