// The scalar boundaries kernel: the specification the SIMD ones are checked against.
// Included once, by arch/scalar.cpp (no include guard).
#include "kernels/boundaries/boundaries.h"

namespace tagpipe::scalar {

size_t boundaries(const uint8_t* tags, uint32_t b, uint32_t e, const uint8_t* remap, uint32_t* out) {
  size_t n = 0;
  uint8_t previous = remap[tags[b]];
  for (uint32_t i = b + 1; i < e; i++) {
    const uint8_t c = remap[tags[i]];
    if (c == 0) continue;  // continuation byte
    if (c != previous || (c & kSingle)) out[n++] = i;
    previous = c;
  }
  return n;
}

}  // namespace tagpipe::scalar
