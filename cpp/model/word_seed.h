// The word seed: the vocabulary strings of 1..15 bytes whose BPE is their own token, by
// the word cache's short key (model/piece_key.h).  Read-only once built at load, shared by
// every thread.  On fresh text many of the word cache's misses are one vocabulary token
// whole: a probe here answers what BPE would merge back together.  The encoder requests a
// missed piece's slot at the miss, and a filter of a bit per hash rules out most other
// pieces without touching the table (docs/design/word-seed.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/huge_table.h"
#include "model/piece_key.h"

namespace tagpipe {

class WordSeed {
 public:
  size_t size() const { return count_; }

  // Room for n strings: the table at most half full.
  void reserve(size_t n) {
    size_t size = 1024;
    while (size < n * 2) size *= 2;
    slots_.reset(size);
    mask_ = size - 1;
    count_ = 0;
    filter_bits_ = 16;
    while ((size_t(1) << filter_bits_) < n * 8) filter_bits_++;
    filter_.assign((size_t(1) << filter_bits_) / 64, 0);
  }
  // key (1..15 bytes) -> id; a key put twice keeps its first id.
  void put(std::string_view key, uint32_t id) {
    const ShortKey k = short_key(reinterpret_cast<const uint8_t*>(key.data()), uint32_t(key.size()));
    const uint64_t h = short_hash(k);
    size_t i = h & mask_;
    for (; slots_[i].k1 != 0; i = (i + 1) & mask_)
      if (slots_[i].k0 == k.k0 && slots_[i].k1 == k.k1) return;
    slots_[i] = Slot{k.k0, k.k1, id, 0};
    count_++;
    const uint64_t f = h >> (64 - filter_bits_);  // (as maybe() reads it)
    filter_[f >> 6] |= uint64_t(1) << (f & 63);
  }

  // The token p[0..n) (n in 1..15) is, or nullopt.
  std::optional<uint32_t> find(const uint8_t* p, uint32_t n) const {
    if (count_ == 0) return std::nullopt;
    const ShortKey k = short_key(p, n);
    const uint64_t h = short_hash(k);
    if (!maybe(h)) return std::nullopt;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.k0 == k.k0 && s.k1 == k.k1) return s.id;
      if (s.k1 == 0) return std::nullopt;  // empty (a real key has its length in k1)
    }
  }
  // Starts loading the slot find() will read for a piece, unless the filter already says
  // it is not here (the encoder calls this at a cache miss; BPE asks later).
  // h: the piece's short_hash.
  void prefetch(uint64_t h) const {
    if (count_ != 0 && maybe(h)) __builtin_prefetch(&slots_[h & mask_]);
  }

 private:
  bool maybe(uint64_t h) const {
    const uint64_t f = h >> (64 - filter_bits_);  // (the top bits: the slot index has the low ones)
    return (filter_[f >> 6] >> (f & 63)) & 1;
  }
  struct Slot {
    uint64_t k0, k1;
    uint32_t id, unused;
  };
  HugeTable<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
  int filter_bits_ = 16;
  std::vector<uint64_t> filter_;  // bit f: some string's hash has top bits f
};

}  // namespace tagpipe
