// What the encoder does with a new long piece the model cut (Bpe::cuts), for speed only --
// ids never depend on it: when to refine a part that missed the word cache (Bpe::refine),
// and when to cache the cut piece whole.  Its state lives with each word cache (ThreadCache).
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/word_cache.h"

namespace tagpipe {

// Whether refining a missed part is worth it: it pays when the part's new parts all hit (no
// BPE at all for it), which depends on the text.  Refine while at least one try in five
// wins, over the last ~1000 tries; below that one miss in 16 still tries, so that a text
// where it pays again turns it back on.
class RefineGate {
 public:
  bool want() {
    if (tries_ < 64 || wins_ * 5 >= tries_) return true;
    return (++skipped_ & 15) == 0;
  }
  void record(bool won) {
    tries_++, wins_ += won;
    if (tries_ == 1024) tries_ /= 2, wins_ /= 2;
  }

 private:
  uint32_t tries_ = 0, wins_ = 0, skipped_ = 0;
};

// Whether a cut piece whose parts all hit is worth caching whole, once they did (the ids
// are then the sink's last ones): when its parts are under two bytes on average (GPT-2's
// indentation is a token per byte: a lookup each), or when it fits a medium entry and this
// is its second sighting so -- a Russian word cut where no merge joins two letters recurs,
// a Chinese clause seldom does, and caching each one at its first cost more than it saved.
// Longer ones (clauses) are never cached whole.
class WholeCutPolicy {
 public:
  // n: the piece's bytes, cuts: its parts, ids: their ids, h: its WordCache probe's hash.
  // Marks the piece as seen when it asks (a bit per hash beside the word cache: counted in
  // its budget and wiped with it; a collision only caches a piece early).
  static bool cache_whole(WordCache& cache, uint32_t n, size_t cuts, size_t ids, uint64_t h) {
    if (cuts * 2 > n) return true;
    return n <= WordCache::kMediumMax && ids <= WordCache::kRoom && seen_before(cache, h);
  }

 private:
  static constexpr size_t kSeenBits = size_t(1) << 19;  // 64 KiB
  static bool seen_before(WordCache& cache, uint64_t h) {
    uint64_t* seen = cache.side_bits(kSeenBits);
    if (!seen) return false;
    const uint64_t bit = (h >> 20) & (kSeenBits - 1), word = bit >> 6, mask = uint64_t(1) << (bit & 63);
    const bool was = seen[word] & mask;
    seen[word] |= mask;
    return was;
  }
};

// What one encoding thread borrows from the encoder: a word cache and the policy state that
// goes with it (per encoder and thread, like the cache).
struct ThreadCache {
  explicit ThreadCache(size_t budget) : words(budget) {}
  WordCache words;
  RefineGate refine_gate;
};

}  // namespace tagpipe
