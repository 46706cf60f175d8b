// The scalar kernel: the specification every other kernel is checked against.
// Plain on purpose -- one character at a time, no tricks.
// Included once, by arch/scalar.cpp (no include guard).
#include <cstring>

#include "common/utf8.h"
#include "kernels/classify/classify.h"

namespace tagpipe::scalar {

void classify(const uint8_t* in, size_t n, const Alphabet& a, uint8_t* tags, uint64_t* starts) {
  std::memset(starts, 0, start_words(n) * sizeof(uint64_t));
  size_t i = 0;
  while (i < n) {
    starts[i / 64] |= uint64_t(1) << (i % 64);
    if (in[i] < 0x80) {
      tags[i] = a.ascii[in[i]];
      i += 1;
      continue;
    }
    const uint32_t len = utf8_valid_length(in, n, i);
    if (len == 0) {
      tags[i] = a.fffd_tag;
      i += 1;
      continue;
    }
    tags[i] = a.lookup(code_point(in + i, len, len));
    for (size_t k = 1; k < len; k++) tags[i + k] = 0;  // Cont
    i += len;
  }
}

}  // namespace tagpipe::scalar
