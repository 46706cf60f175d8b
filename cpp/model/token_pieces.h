// The pieces that are one token: every vocabulary string of 1..15 bytes whose own BPE is
// that token alone, as word-cache keys (model/short_key.h) with their id.
//
// Built once per BPE (and per piece form: ByteLevel bytes or plain UTF-8) by running the
// model itself on each string, so an entry is exactly what BPE gives for that piece -- a
// precomputed word-cache entry, shared read-only by every thread.  A word the cache has
// not seen yet is often one token (40% of new words on English text with GPT-2, 60% with
// llama-2): the cache looks here before it calls a piece a miss
// (WordCache::find_token_piece), so such a word costs a lookup instead of a BPE run.
// (Copying all of these entries into each cache instead made the caches larger than L2,
// and hits on text with few one-token words -- Russian -- 7% slower.)
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "model/short_key.h"

namespace tagpipe {

struct TokenPiece {
  ShortKey key;
  uint32_t id;
};

// keys: (string, id) candidates; one_token(s, n, id): whether s[0..n) is that one token.
template <class OneToken>
std::vector<TokenPiece> one_token_pieces(const std::vector<std::pair<std::string_view, uint32_t>>& keys,
                                     OneToken one_token) {
  std::vector<TokenPiece> out;
  for (const auto& [key, id] : keys) {
    const auto* p = reinterpret_cast<const uint8_t*>(key.data());
    const uint32_t n = uint32_t(key.size());
    if (n == 0 || n > 15 || !one_token(p, n, id)) continue;
    uint8_t buf[16] = {};  // (short_key may read 16 bytes from its argument)
    std::memcpy(buf, p, n);
    out.push_back(TokenPiece{short_key(buf, n), id});
  }
  return out;
}

class TokenPieces {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;

  explicit TokenPieces(const std::vector<TokenPiece>& pieces = {}) {
    size_t size = 16;
    while (size < pieces.size() * 2) size *= 2;  // at most half full: most lookups are misses
    table_.assign(size, Entry{});
    mask_ = size - 1;
    for (const TokenPiece& t : pieces) {
      size_t i = short_hash(t.key) & mask_;
      while (table_[i].k1 != 0 && !(table_[i].k0 == t.key.k0 && table_[i].k1 == t.key.k1)) i = (i + 1) & mask_;
      count_ += table_[i].k1 == 0;
      table_[i] = Entry{t.key.k0, t.key.k1, t.id, 0, 0};
    }
  }

  // h: short_hash(k).
  uint32_t find(const ShortKey& k, uint64_t h) const {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.k0 == k.k0 && e.k1 == k.k1) return e.id;
      if (e.k1 == 0) return kMissing;
    }
  }
  size_t size() const { return count_; }

 private:
  struct alignas(32) Entry {  // 32 bytes: two to a cache line, never across one
    uint64_t k0 = 0, k1 = 0;  // k1 == 0: empty (a key has its length in k1)
    uint32_t id = kMissing, unused = 0;
    uint64_t pad = 0;
  };
  std::vector<Entry> table_;
  size_t mask_ = 0, count_ = 0;
};

}  // namespace tagpipe
