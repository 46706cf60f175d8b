// The sse42 kernels the avx2 and avx512 Kernels reuse (arch/avx2.cpp, arch/avx512.cpp).
//
// replace_byte steps eight input bytes at a time and transcode four units (sixteen when
// they are ASCII): a wider register holds no more of a step, so recompiling them for AVX2
// or AVX-512 would only change the encoding of the same instructions.  simd/avx2.h and
// simd/avx512.h therefore have no Bytes16 / U32x4 / ascii16.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/replace/replace.h"

namespace tagpipe::sse42 {

uint8_t* replace_byte(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d);
uint8_t* transcode(const void* s, size_t n, unsigned width, uint8_t* d);

}  // namespace tagpipe::sse42
