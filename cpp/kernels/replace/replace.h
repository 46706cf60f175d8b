// Replace one byte by a string of 0-4 bytes (' ' -> '▁'): the Replace normalizer's fast path
// and Metaspace's rewrite when no origins are kept -- one pass over every byte of a
// SentencePiece-style text (llama-2, mistral, gemma), so it is a kernel: the scalar one is
// the specification, the SIMD ones expand eight bytes per step with one table shuffle.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tagpipe {

struct ReplaceSpec {
  uint8_t from;   // the byte replaced
  uint8_t size;   // 0..4: the replacement's length (0: the byte is deleted)
  uint32_t word;  // the replacement's bytes, first in the low byte, zero above `size`

  // `from` as to[0..size) (size in 0..4; a little-endian machine: replace_byte.h checks).
  static ReplaceSpec of(uint8_t from, const char* to, size_t size) {
    ReplaceSpec r{from, uint8_t(size), 0};
    for (size_t k = 0; k < size; k++) r.word |= uint32_t(uint8_t(to[k])) << (8 * k);
    return r;
  }
};

// A kernel may write this many bytes past the end of its output (the caller has room).
inline constexpr size_t kReplaceSlack = 32;

// Writes s[0..n) to d with every `from` byte as the replacement; returns the end of the
// output (d + n + (size - 1) * the count of `from` in s).
using ReplaceFn = uint8_t* (*)(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d);

// For the SIMD kernels: eight input bytes in the low half of a 16-byte register, the
// replacement in the high half (bytes 8..11); for each mask of which of the eight are
// `from`, the indices that pick the output (up to 32 bytes; 0x80 = zero) and its length
// (with an empty replacement, 8 less the replaced bytes: the shuffle packs the others).
struct ReplaceShuffles {
  uint8_t index[256][32];
  uint8_t length[256];
};
const ReplaceShuffles& replace_shuffles(unsigned size);  // size in 0..4; built at first use

// The specification (replace_scalar.h), declared here because the SIMD kernels finish
// with it the bytes too few for a step.
namespace scalar {
uint8_t* replace_byte(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d);
}

}  // namespace tagpipe
