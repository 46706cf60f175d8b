// The word seed: the vocabulary strings of 1..15 bytes whose BPE is their own token, by
// the word cache's short key (model/piece_key.h).  Read-only once built at load, shared by
// every thread.  On fresh text many of the word cache's misses are one vocabulary token
// whole: a probe here answers what BPE would merge back together.  Its table is laid out as
// the word cache's short tier, at most 1/4 full (2/5 for the largest): a cache past its
// first small table starts from a copy of it (WordCache::take_seed), and then never misses
// such a piece.  A cache without the copy asks the seed at a miss: the encoder requests the
// slot, and a filter of a bit per hash rules out most other pieces without touching the
// table (docs/design/word-seed.md).
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

  // Room for n strings: the table at most 1/4 full -- a cache that starts from it has room
  // for new words before it grows, and few hits lie past their home pair (the slow probe)
  // -- or, where that would pass kRoomy entries, at most 2/5 full: a larger copy per
  // thread would not fit a thread's share of the default budget (gpt-4o: 190k strings).
  void reserve(size_t n) {
    constexpr size_t kRoomy = size_t(1) << 19;  // 16 MiB of short entries
    size_t size = 1024;
    while (size < n * 4 && (size < kRoomy || size * 2 < n * 5)) size *= 2;
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
    slots_[i] = ShortSlot{k.k0, k.k1, {id, 0, 0, 0}};  // (one id: count bits 0)
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
      const ShortSlot& s = slots_[i];
      if (s.k0 == k.k0 && s.k1 == k.k1) return s.ids[0];
      if (s.k1 == 0) return std::nullopt;  // empty (a real key has its length in k1)
    }
  }
  // Starts loading the slot find() will read for a piece, unless the filter already says
  // it is not here (the encoder calls this at a cache miss; BPE asks later).
  // h: the piece's short_hash.
  void prefetch(uint64_t h) const {
    if (count_ != 0 && maybe(h)) __builtin_prefetch(&slots_[h & mask_]);
  }
  // The table, as short entries of one id each (zero after it, as the cache's).
  const HugeTable<ShortSlot>& slots() const { return slots_; }

 private:
  bool maybe(uint64_t h) const {
    const uint64_t f = h >> (64 - filter_bits_);  // (the top bits: the slot index has the low ones)
    return (filter_[f >> 6] >> (f & 63)) & 1;
  }
  HugeTable<ShortSlot> slots_;
  size_t mask_ = 0, count_ = 0;
  int filter_bits_ = 16;
  std::vector<uint64_t> filter_;  // bit f: some string's hash has top bits f
};

}  // namespace tagpipe
