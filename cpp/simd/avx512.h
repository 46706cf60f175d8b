// simd8x64 / u32v over AVX-512 (F, BW, VL, VBMI, VBMI2): one register per chunk, mask
// registers, a 128-entry byte permute, byte compress/expand and 16-lane gathers.
// Included by arch/avx512.cpp inside its target region, before the generic kernels.
#pragma once
#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 warns inside its own _mm512_undefined_epi32() (a self-initialised local).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>

namespace tagpipe::avx512 {

struct AsciiLut {
  __m512i lo, hi;  // entries 0..63 and 64..127
  explicit AsciiLut(const uint8_t* table) : lo(_mm512_loadu_si512(table)), hi(_mm512_loadu_si512(table + 64)) {}
};

// A 16-entry byte table in every lane of a register (vpshufb).
struct Lut16 {
  __m512i t;
  explicit Lut16(const uint8_t* table)
      : t(_mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table)))) {}
};

struct simd8x64 {
  __m512i v;

  static TAGPIPE_ALWAYS_INLINE simd8x64 load(const uint8_t* p) { return {_mm512_loadu_si512(p)}; }
  static TAGPIPE_ALWAYS_INLINE simd8x64 splat(uint8_t c) { return {_mm512_set1_epi8(char(c))}; }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const { _mm512_storeu_si512(p, v); }
  TAGPIPE_ALWAYS_INLINE uint64_t msb() const { return _mm512_movepi8_mask(v); }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(uint8_t c) const { return _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(char(c))); }
  TAGPIPE_ALWAYS_INLINE uint64_t in_range(uint8_t lo, uint8_t hi) const {
    const __m512i d = _mm512_sub_epi8(v, _mm512_set1_epi8(char(lo)));
    return _mm512_cmple_epu8_mask(d, _mm512_set1_epi8(char(hi - lo)));
  }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(const simd8x64& o) const { return _mm512_cmpeq_epi8_mask(v, o.v); }
  // Bytes with bit x set.
  TAGPIPE_ALWAYS_INLINE uint64_t test_bit(int x) const {
    return _mm512_test_epi8_mask(v, _mm512_set1_epi8(char(1 << x)));
  }
  // table[b] for b < 16.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup16(const Lut16& lut) const { return {_mm512_shuffle_epi8(lut.t, v)}; }
  // vpermi2b reads the low 7 bits of each byte: bytes >= 0x80 get garbage, which the
  // generic algorithm always overwrites.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup128(const AsciiLut& lut) const {
    return {_mm512_permutex2var_epi8(lut.lo, v, lut.hi)};
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 select(uint64_t m, const simd8x64& a, const simd8x64& b) {
    return {_mm512_mask_blend_epi8(m, b.v, a.v)};
  }
};

// A 32-entry uint16 table as two registers of sixteen 32-bit lanes.
struct Lut32 {
  __m512i lo, hi;
  explicit Lut32(const uint16_t* table)
      : lo(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(table)))),
        hi(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 16)))) {}
};

struct u32v {
  static constexpr int N = 16;
  __m512i v;

  static TAGPIPE_ALWAYS_INLINE u32v load_u8(const uint8_t* p) {
    return {_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
  }
  TAGPIPE_ALWAYS_INLINE u32v operator&(uint32_t c) const { return {_mm512_and_si512(v, _mm512_set1_epi32(int(c)))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator|(u32v o) const { return {_mm512_or_si512(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE u32v operator<<(int k) const { return {_mm512_sll_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator>>(int k) const { return {_mm512_srl_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v min(uint32_t c) const { return {_mm512_min_epu32(v, _mm512_set1_epi32(int(c)))}; }
  // Lane masks are all-ones / all-zeros lanes, as on the other architectures.
  TAGPIPE_ALWAYS_INLINE u32v ge(uint32_t c) const {
    return {_mm512_maskz_mov_epi32(_mm512_cmpge_epu32_mask(v, _mm512_set1_epi32(int(c))), _mm512_set1_epi32(-1))};
  }
  static TAGPIPE_ALWAYS_INLINE u32v select(u32v m, u32v a, u32v b) {
    return {_mm512_mask_blend_epi32(_mm512_test_epi32_mask(m.v, m.v), b.v, a.v)};
  }
  TAGPIPE_ALWAYS_INLINE bool any() const { return _mm512_test_epi32_mask(v, v) != 0; }
  static TAGPIPE_ALWAYS_INLINE u32v lookup(const Lut32& lut, u32v idx) {  // idx < 32
    return {_mm512_permutex2var_epi32(lut.lo, idx.v, lut.hi)};
  }
  static TAGPIPE_ALWAYS_INLINE u32v gather_u16(const uint16_t* base, u32v idx) {
    const __m512i w = _mm512_i32gather_epi32(idx.v, base, 2);
    return {_mm512_and_si512(w, _mm512_set1_epi32(0xFFFF))};
  }
  static TAGPIPE_ALWAYS_INLINE u32v gather_u8(const uint8_t* base, u32v idx) {
    return {_mm512_i32gather_epi32(idx.v, base, 1)};  // store_u8 keeps the low byte only
  }
  TAGPIPE_ALWAYS_INLINE void store_u8(uint8_t* out) const {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(v));
  }
};

// Lead lanes packed with vpcompressb: a chunk of Chinese text (about 21 leads in 64 bytes)
// decodes two groups of 16 instead of four, and vpexpandb puts the tags back in place.
// (Always inlined: left to GCC's early inliner, whether they are inlined depends on what else
// the file compiles -- even on whether the kernel's address is taken there -- and the
// avx512 classify kernel's code changes with it.)
struct LeadLanes {
  alignas(64) uint8_t packed[4][64];  // byte k of each lead's sequence, leads packed to the front
  alignas(64) uint8_t tags[64] = {};
  uint64_t lead;
  int n;

  TAGPIPE_ALWAYS_INLINE LeadLanes(const uint8_t*, const simd8x64& v0, const simd8x64& v1, const simd8x64& v2,
                                  const simd8x64& v3, uint64_t lead_)
      : lead(lead_), n(__builtin_popcountll(lead_)) {
    _mm512_store_si512(packed[0], _mm512_maskz_compress_epi8(lead, v0.v));
    _mm512_store_si512(packed[1], _mm512_maskz_compress_epi8(lead, v1.v));
    _mm512_store_si512(packed[2], _mm512_maskz_compress_epi8(lead, v2.v));
    _mm512_store_si512(packed[3], _mm512_maskz_compress_epi8(lead, v3.v));
  }
  TAGPIPE_ALWAYS_INLINE int count() const { return n; }
  TAGPIPE_ALWAYS_INLINE bool empty(int) const { return false; }
  TAGPIPE_ALWAYS_INLINE const uint8_t* src(int k) const { return packed[k]; }
  TAGPIPE_ALWAYS_INLINE uint8_t* out() { return tags; }
  TAGPIPE_ALWAYS_INLINE simd8x64 result() const {
    return {_mm512_maskz_expand_epi8(lead, _mm512_load_si512(tags))};
  }
};

}  // namespace tagpipe::avx512
