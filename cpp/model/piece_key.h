// The 16-byte key of a short piece (1..15 bytes), its hash and its table slot.  The word
// cache's short tier and the word seed are keyed by it, so that the encoder computes it once per piece.
#pragma once
#include <cstdint>
#include <cstring>

#include "common/read_ahead.h"

namespace tagpipe {

// Bytes 0..7 in k0, bytes 8..n-1 in k1 and n in k1's top byte: bytes past the piece are zero,
// and a key compares as two words.
struct ShortKey {
  uint64_t k0, k1;
};

// A slot of a table keyed by short keys: the word cache's short tier (model/word_cache.h
// says what k1's spare bits and the ids hold) and the word seed, whose table is laid out as
// that tier's entries so that a cache can start from a copy of it.  k1 == 0: empty.
struct ShortSlot {
  uint64_t k0, k1;
  uint32_t ids[4];
};

// The bytes of a key of length n as masks of its two words (no branch on n).
struct KeyMasks {
  uint64_t m0, m1;
};
inline constexpr KeyMasks kKeyMasks[16] = {{0, 0},
                                           {0xFF, 0},
                                           {0xFFFF, 0},
                                           {0xFFFFFF, 0},
                                           {0xFFFFFFFF, 0},
                                           {0xFFFFFFFFFF, 0},
                                           {0xFFFFFFFFFFFF, 0},
                                           {0xFFFFFFFFFFFFFF, 0},
                                           {~0ULL, 0},
                                           {~0ULL, 0xFF},
                                           {~0ULL, 0xFFFF},
                                           {~0ULL, 0xFFFFFF},
                                           {~0ULL, 0xFFFFFFFF},
                                           {~0ULL, 0xFFFFFFFFFF},
                                           {~0ULL, 0xFFFFFFFFFFFF},
                                           {~0ULL, 0xFFFFFFFFFFFFFF}};

inline ShortKey short_key(const uint8_t* p, uint32_t n) {  // n in 1..15
  // The common case reads 16 bytes and masks off those past n, when that stays within p's
  // page (common/read_ahead.h); else the exact reads below.
  if (may_read_ahead(p, 16)) {
    uint64_t k0, k1;
    std::memcpy(&k0, p, 8);
    std::memcpy(&k1, p + 8, 8);
    return {k0 & kKeyMasks[n].m0, (k1 & kKeyMasks[n].m1) | (uint64_t(n) << 56)};
  }
  uint64_t k0, k1 = 0;
  if (n >= 8) {
    std::memcpy(&k0, p, 8);
    if (n > 8) {
      std::memcpy(&k1, p + n - 8, 8);
      k1 >>= 8 * (16 - n);  // keep bytes 8..n-1
    }
  } else if (n >= 4) {  // two overlapping 4-byte reads
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    k0 = lo | (uint64_t(hi) << (8 * (n - 4)));
  } else {  // 1..3 bytes: the first, middle and last (overlapping)
    k0 = uint64_t(p[0]) | (uint64_t(p[n / 2]) << (8 * (n / 2))) | (uint64_t(p[n - 1]) << (8 * (n - 1)));
  }
  return {k0, k1 | (uint64_t(n) << 56)};
}

// One multiply, its high half folded in (the low bits of a product see only the low bits of
// the key): a table's index is then the low bits of this, a filter's bit its top bits.
inline uint64_t short_hash(const ShortKey& k) {
  const unsigned __int128 x = (unsigned __int128)(k.k0 ^ (k.k1 * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
  return uint64_t(x >> 64) ^ uint64_t(x);
}

}  // namespace tagpipe
