// The scalar find kernel: the specification the SIMD ones are checked against.
// Included once, by arch/scalar.cpp (no include guard).
#include "kernels/find/find.h"

namespace tagpipe::scalar {

uint64_t find_bytes(const uint8_t* t, const uint8_t* set) {
  uint64_t m = 0;
  for (int k = 0; k < 64; k++)
    for (int i = 0; i < kFindBytes; i++)
      if (t[k] == set[i]) m |= uint64_t(1) << k;
  return m;
}

}  // namespace tagpipe::scalar
