// UTF-8 from the code units a Python str keeps (PEP 393: one, two or four bytes a
// character -- Latin-1, UCS-2, UCS-4).  CPython's own conversion (PyUnicode_AsUTF8AndSize)
// runs with the GIL held, one document after another, and keeps a copy in every str: a
// serial share of every fresh encode.  The encoder converts each document on the thread
// that encodes it, into that thread's buffer.  The scalar kernel is the specification; the SIMD ones narrow sixteen
// ASCII characters a step, and convert any others four at a time without a branch.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tagpipe {

// A text as a str holds it: `count` code units of `width` bytes (1: Latin-1, 2: UCS-2,
// 4: UCS-4), or, with width 0, `count` bytes of UTF-8.
struct Units {
  const void* data = nullptr;
  size_t count = 0;
  unsigned width = 0;
};

// The most UTF-8 bytes `count` units of `width` can take.
inline size_t utf8_bound(size_t count, unsigned width) {
  return count * (width == 0 ? 1 : width == 1 ? 2 : width == 2 ? 3 : 4);
}

// A kernel may write this many bytes past the end of its output (the caller has room).
inline constexpr size_t kTranscodeSlack = 16;

// Writes the UTF-8 of s[0..n) (units of `width` 1, 2 or 4, s aligned to its width -- a
// str's are) to d; returns the end of the output, or nullptr when a unit is a surrogate
// (U+D800..U+DFFF: a str may hold a lone one, and UTF-8 has no form for it -- the caller
// reports it).
using TranscodeFn = uint8_t* (*)(const void* s, size_t n, unsigned width, uint8_t* d);

// For the SIMD kernels: four units' UTF-8 forms in the four 32-bit lanes of a register,
// first byte lowest; for each code of their lengths (lane k's length less one at bits
// 2k..2k+1), the indices that pack the bytes together (0x80: none) and the total length.
// spread[m]: bit k of the 4-bit m moved to bit 2k.
struct TranscodeShuffles {
  uint8_t index[256][16];
  uint8_t length[256];
  uint8_t spread[16];
};
const TranscodeShuffles& transcode_shuffles();  // built at first use

// The specification (transcode_scalar.h), declared here because the SIMD kernels finish
// with it the units too few for a step.
namespace scalar {
uint8_t* transcode(const void* s, size_t n, unsigned width, uint8_t* d);
}

}  // namespace tagpipe
