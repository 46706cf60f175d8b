// Small, fast hashing for byte strings and id pairs (not cryptographic; inputs are short).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tagpipe {

inline uint64_t mix64(uint64_t x) {  // the splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = mix64(h ^ v);
    p += 8, n -= 8;
  }
  uint64_t v = 0;
  std::memcpy(&v, p, n);
  return mix64(h ^ v ^ (uint64_t(n) << 59));
}

}  // namespace tagpipe
