// The scalar replace kernel: the specification the SIMD ones are checked against.
// Included once, by arch/scalar.cpp (no include guard).
#include <cstring>

#include "kernels/replace/replace.h"

namespace tagpipe::scalar {

uint8_t* replace_byte(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == r.from) {
      std::memcpy(d, &r.word, r.size);  // (little-endian: the first byte is the low one)
      d += r.size;
    } else {
      *d++ = s[i];
    }
  }
  return d;
}

}  // namespace tagpipe::scalar
