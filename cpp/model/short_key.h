// The key of a short piece (1..15 bytes) in the word cache and in the table of one-token
// pieces: 16 bytes, compared as two 64-bit words, built without touching memory past the
// piece -- bytes 0..7 in k0, bytes 8..n-1 in k1 and n in k1's top byte (so no real key
// has k1 == 0: tables use that for an empty slot).
#pragma once
#include <cstdint>
#include <cstring>

namespace tagpipe {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct ShortKey {
  uint64_t k0, k1;
};

// The bytes of a key of length n as masks of its two words (no branch on n).
struct ShortKeyMasks {
  uint64_t m0, m1;
};
inline constexpr ShortKeyMasks kShortKeyMasks[16] = {
    {0, 0}, {0xFF, 0}, {0xFFFF, 0}, {0xFFFFFF, 0}, {0xFFFFFFFF, 0}, {0xFFFFFFFFFF, 0}, {0xFFFFFFFFFFFF, 0},
    {0xFFFFFFFFFFFFFF, 0}, {~0ULL, 0}, {~0ULL, 0xFF}, {~0ULL, 0xFFFF}, {~0ULL, 0xFFFFFF}, {~0ULL, 0xFFFFFFFF},
    {~0ULL, 0xFFFFFFFFFF}, {~0ULL, 0xFFFFFFFFFFFF}, {~0ULL, 0xFFFFFFFFFFFFFF}};

inline ShortKey short_key(const uint8_t* p, uint32_t n) {  // n in 1..15
  // The common case: 16 bytes readable from p without crossing into the next page (so
  // without touching memory that might not be mapped); the bytes past n are masked off.
  // (Under AddressSanitizer that read past the piece is reported: the exact path instead.)
  if (!kAddressSanitizer && (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 16) {
    uint64_t k0, k1;
    std::memcpy(&k0, p, 8);
    std::memcpy(&k1, p + 8, 8);
    return {k0 & kShortKeyMasks[n].m0, (k1 & kShortKeyMasks[n].m1) | (uint64_t(n) << 56)};
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

// One multiply and the high half (the low bits of a product see only the low bits of
// the key); a table index is then the low bits of this.
inline uint64_t short_hash(const ShortKey& k) {
  const unsigned __int128 x = (unsigned __int128)(k.k0 ^ (k.k1 * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
  return uint64_t(x >> 64) ^ uint64_t(x);
}

}  // namespace tagpipe
