// The scalar window kernel: the specification the SIMD ones are checked against.
// Included once, by arch/scalar.cpp (no include guard).
#include "kernels/window/window.h"

namespace tagpipe::scalar {

void window(const uint8_t* tags, uint32_t q, uint32_t b, uint32_t e, const uint8_t* remap, Window& w) {
  w = Window{};
  for (uint32_t j = 0; j < 64 && q + j < e; j++) {
    const uint32_t i = q + j;
    const uint8_t c = remap[tags[i]];
    if (c == 0) continue;  // continuation byte
    const uint64_t bit = uint64_t(1) << j;
    w.start |= bit;
    uint8_t p = 0;  // the character before: the first non-Cont byte going back, not before b
    for (uint32_t k = i; k > b;)
      if ((p = remap[tags[--k]]) != 0) break;
    uint8_t n = 0;  // the character after: the next non-Cont byte, not at or past e
    for (uint32_t k = i + 1; k < e && k <= i + 4; k++)
      if ((n = remap[tags[k]]) != 0) break;
    for (int x = 0; x < 8; x++) {
      if ((c >> x) & 1) w.cur[x] |= bit;
      if ((p >> x) & 1) w.prev[x] |= bit;
      if ((n >> x) & 1) w.next[x] |= bit;
    }
  }
}

}  // namespace tagpipe::scalar
