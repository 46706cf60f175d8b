// The word cache: piece bytes -> token ids, bounded by a byte budget.
//
// One cache serves one thread at a time (the encoder hands them out), so lookups take no
// lock.  A hit copies the ids into the output and allocates nothing.  When an insert would
// take the cache past its budget, the cache is wiped (a generation wipe: counting and
// evicting would cost the hit path more than occasionally starting over).  Results never
// depend on the cache; only speed does.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/hash.h"

namespace tagpipe {

class WordCache {
 public:
  static constexpr uint32_t kMaxKey = 255;  // longer pieces are not cached

  explicit WordCache(size_t budget_bytes) { set_budget(budget_bytes); }

  void set_budget(size_t bytes) {
    budget_ = bytes;
    if (used() > budget_) clear();
  }
  size_t used() const {
    return slots_.size() * sizeof(Slot) + keys_.capacity() + ids_.capacity() * sizeof(uint32_t);
  }
  size_t entries() const { return count_; }

  // Appends the cached ids of key[0..n) to out and returns true, or returns false.
  bool find(const uint8_t* key, uint32_t n, uint64_t h, std::vector<uint32_t>& out) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key_len == kEmpty) return false;
      if (s.hash == h && s.key_len == n && std::memcmp(keys_.data() + s.key_at, key, n) == 0) {
        out.insert(out.end(), ids_.begin() + s.ids_at, ids_.begin() + s.ids_at + s.ids_len);
        return true;
      }
    }
  }

  void insert(const uint8_t* key, uint32_t n, uint64_t h, const uint32_t* ids, uint32_t count) {
    if (n > kMaxKey) return;
    const size_t need = n + count * sizeof(uint32_t) + 2 * sizeof(Slot);
    if (need > budget_ / 4) return;  // never let one entry dominate a small budget
    if (used() + need > budget_ || (count_ + 1) * 4 > slots_.size() * 3) {
      if ((count_ + 1) * 4 > slots_.size() * 3 && (slots_.size() * 2) * sizeof(Slot) + keys_.size() +
                                                      ids_.size() * sizeof(uint32_t) + need <= budget_)
        grow();
      else
        clear(), grow();
      if (used() + need > budget_) return;
    }
    size_t i = h & mask_;
    while (slots_[i].key_len != kEmpty) i = (i + 1) & mask_;
    keys_.insert(keys_.end(), key, key + n);
    ids_.insert(ids_.end(), ids, ids + count);
    slots_[i] = Slot{h, uint32_t(keys_.size() - n), uint32_t(ids_.size() - count), n, count};
    count_++;
  }

  void clear() {
    slots_.clear();
    slots_.shrink_to_fit();
    keys_.clear();
    keys_.shrink_to_fit();
    ids_.clear();
    ids_.shrink_to_fit();
    count_ = 0;
    mask_ = 0;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash;
    uint32_t key_at, ids_at, key_len, ids_len;
  };
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{0, 0, 0, kEmpty, 0});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.key_len != kEmpty) {
        size_t i = s.hash & mask_;
        while (slots_[i].key_len != kEmpty) i = (i + 1) & mask_;
        slots_[i] = s;
      }
    keys_.reserve(std::max<size_t>(keys_.capacity(), slots_.size() * 4));
    ids_.reserve(std::max<size_t>(ids_.capacity(), slots_.size() * 2));
  }

  std::vector<Slot> slots_;
  std::vector<uint8_t> keys_;
  std::vector<uint32_t> ids_;
  size_t mask_ = 0, count_ = 0, budget_ = 0;
};

}  // namespace tagpipe
