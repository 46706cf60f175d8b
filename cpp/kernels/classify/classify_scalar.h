// The scalar kernel: the specification every other kernel is checked against.
// Plain on purpose -- one character at a time, no tricks.
// Included once, by arch/scalar.cpp (no include guard).
#include <cstring>

#include "kernels/classify/classify.h"

namespace tagpipe::scalar {
namespace {

bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at in[i], or 0 if there is none.
size_t sequence_length(const uint8_t* in, size_t n, size_t i) {
  const uint8_t b0 = in[i];
  size_t len;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;  // ASCII is handled by the caller; 80..C1 and F5..FF never start a sequence
  }
  if (i + len > n) return 0;
  if (in[i + 1] < lo || in[i + 1] > hi) return 0;
  for (size_t k = 2; k < len; k++)
    if (!is_cont(in[i + k])) return 0;
  return len;
}

uint32_t decode(const uint8_t* s, size_t len) {
  switch (len) {
    case 2: return (uint32_t(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3: return (uint32_t(s[0] & 0x0F) << 12) | (uint32_t(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    default:
      return (uint32_t(s[0] & 0x07) << 18) | (uint32_t(s[1] & 0x3F) << 12) |
             (uint32_t(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
  }
}

}  // namespace

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
    const size_t len = sequence_length(in, n, i);
    if (len == 0) {
      tags[i] = a.fffd_tag;
      i += 1;
      continue;
    }
    tags[i] = a.lookup(decode(in + i, len));
    for (size_t k = 1; k < len; k++) tags[i + k] = 0;  // Cont
    i += len;
  }
}

}  // namespace tagpipe::scalar
