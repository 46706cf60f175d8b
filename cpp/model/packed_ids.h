// Three token ids in one 64-bit word, kIdBits each, in its low 63 bits: the word cache's
// inline entries and the CJK characters' table hold ids so.
#pragma once
#include <cstdint>

namespace tagpipe {

inline constexpr uint32_t kIdBits = 21;  // (ids below 2^21: every vocabulary shipped so far)

// ids[0..min(count, 3)) in, the rest zero.
inline uint64_t pack3(const uint32_t* ids, uint32_t count) {
  uint64_t x = 0;
  for (uint32_t j = 0; j < 3 && j < count; j++) x |= uint64_t(ids[j]) << (kIdBits * j);
  return x;
}

inline void unpack3(uint64_t x, uint32_t* out) {
  constexpr uint64_t kMask = (uint64_t(1) << kIdBits) - 1;
  out[0] = uint32_t(x & kMask);
  out[1] = uint32_t((x >> kIdBits) & kMask);
  out[2] = uint32_t((x >> (2 * kIdBits)) & kMask);
}

}  // namespace tagpipe
