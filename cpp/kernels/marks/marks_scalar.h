// The scalar marks kernel: the specification the SIMD ones are checked against.
// Included once, by arch/scalar.cpp (no include guard).
#include "kernels/marks/marks.h"

namespace tagpipe::scalar {

MarkMasks marks(const uint8_t* t, const uint8_t* mark, const uint8_t* after) {
  auto mark_at = [&](const uint8_t* p) { return p[0] == mark[0] && p[1] == mark[1] && p[2] == mark[2]; };
  auto letter = [](uint8_t x) { return (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z'); };
  MarkMasks m{0, 0, 0};
  for (int k = 0; k < 64; k++) {
    if (mark_at(t + k) && !mark_at(t + k - 3)) m.runs |= uint64_t(1) << k;
    const uint8_t x = t[k - 1], y = t[k];
    if (x < 0x80 && y < 0x80 && !(letter(x) && letter(y))) m.pairs |= uint64_t(1) << k;
    for (int i = 0; after && i < kAfterBytes; i++)
      if (x == after[i]) m.after |= uint64_t(1) << k;
  }
  return m;
}

}  // namespace tagpipe::scalar
