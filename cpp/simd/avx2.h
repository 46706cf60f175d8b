// simd8x64 / u32v over AVX2: two 32-byte registers per chunk, hardware gathers.
// Included by arch/avx2.cpp inside its target region, before the generic kernels.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "simd/lead_lanes.h"

namespace tagpipe::avx2 {

// 128-entry byte table as eight 16-byte pshufb tables (one per high nibble), each
// broadcast to both 128-bit lanes because vpshufb shuffles within a lane.
struct AsciiLut {
  __m256i t[8];
  explicit AsciiLut(const uint8_t* table) {
    for (int k = 0; k < 8; k++)
      t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
  }
};

// See sse42::lookup128: b - 16k saturating-plus 0x70 has bit 7 clear only for the one
// step whose 16-entry table holds b.
TAGPIPE_ALWAYS_INLINE __m256i lookup128(__m256i b, const AsciiLut& lut) {
  const __m256i bias = _mm256_set1_epi8(0x70), step = _mm256_set1_epi8(16);
  __m256i r = _mm256_setzero_si256(), x = b;
  for (int k = 0; k < 8; k++) {
    r = _mm256_or_si256(r, _mm256_shuffle_epi8(lut.t[k], _mm256_adds_epu8(x, bias)));
    x = _mm256_sub_epi8(x, step);
  }
  return r;
}

// 32 mask bits -> 32 bytes of 0xFF / 0x00: byte j picks mask byte j / 8, then tests bit j % 8.
TAGPIPE_ALWAYS_INLINE __m256i expand32(uint32_t m) {
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bits = _mm256_set1_epi64x(int64_t(0x8040201008040201ULL));
  const __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32(int(m)), spread);
  return _mm256_cmpeq_epi8(_mm256_and_si256(x, bits), bits);
}

// A 16-entry byte table in both lanes of a register (vpshufb).
struct Lut16 {
  __m256i t;
  explicit Lut16(const uint8_t* table)
      : t(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table)))) {}
};

struct simd8x64 {
  __m256i v[2];

  static TAGPIPE_ALWAYS_INLINE simd8x64 load(const uint8_t* p) {
    return {{_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32))}};
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 splat(uint8_t c) {
    const __m256i s = _mm256_set1_epi8(char(c));
    return {{s, s}};
  }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v[0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32), v[1]);
  }
  static TAGPIPE_ALWAYS_INLINE uint64_t bits(__m256i a, __m256i b) {
    return uint64_t(uint32_t(_mm256_movemask_epi8(a))) | (uint64_t(uint32_t(_mm256_movemask_epi8(b))) << 32);
  }
  TAGPIPE_ALWAYS_INLINE uint64_t msb() const { return bits(v[0], v[1]); }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(uint8_t c) const {
    const __m256i s = _mm256_set1_epi8(char(c));
    return bits(_mm256_cmpeq_epi8(v[0], s), _mm256_cmpeq_epi8(v[1], s));
  }
  // lo <= b <= hi (unsigned): b - lo, clamped to hi - lo, is unchanged.
  TAGPIPE_ALWAYS_INLINE uint64_t in_range(uint8_t lo, uint8_t hi) const {
    const __m256i l = _mm256_set1_epi8(char(lo)), w = _mm256_set1_epi8(char(hi - lo));
    const __m256i d0 = _mm256_sub_epi8(v[0], l), d1 = _mm256_sub_epi8(v[1], l);
    return bits(_mm256_cmpeq_epi8(_mm256_min_epu8(d0, w), d0), _mm256_cmpeq_epi8(_mm256_min_epu8(d1, w), d1));
  }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(const simd8x64& o) const {
    return bits(_mm256_cmpeq_epi8(v[0], o.v[0]), _mm256_cmpeq_epi8(v[1], o.v[1]));
  }
  // Bytes with bit x set.
  TAGPIPE_ALWAYS_INLINE uint64_t test_bit(int x) const {
    const __m256i bit = _mm256_set1_epi8(char(1 << x));
    return bits(_mm256_cmpeq_epi8(_mm256_and_si256(v[0], bit), bit),
                _mm256_cmpeq_epi8(_mm256_and_si256(v[1], bit), bit));
  }
  // table[b] for b < 16.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup16(const Lut16& lut) const {
    return {{_mm256_shuffle_epi8(lut.t, v[0]), _mm256_shuffle_epi8(lut.t, v[1])}};
  }
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup128(const AsciiLut& lut) const {
    return {{avx2::lookup128(v[0], lut), avx2::lookup128(v[1], lut)}};
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 select(uint64_t m, const simd8x64& a, const simd8x64& b) {
    return {{_mm256_blendv_epi8(b.v[0], a.v[0], expand32(uint32_t(m))),
             _mm256_blendv_epi8(b.v[1], a.v[1], expand32(uint32_t(m >> 32)))}};
  }
};

// A 32-entry uint16 table as four registers of eight 32-bit lanes.
struct Lut32 {
  __m256i t[4];
  explicit Lut32(const uint16_t* table) {
    for (int k = 0; k < 4; k++) t[k] = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 8 * k)));
  }
};

struct u32v {
  static constexpr int N = 8;
  __m256i v;

  static TAGPIPE_ALWAYS_INLINE u32v load_u8(const uint8_t* p) {
    return {_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))};
  }
  TAGPIPE_ALWAYS_INLINE u32v operator&(uint32_t c) const { return {_mm256_and_si256(v, _mm256_set1_epi32(int(c)))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator|(u32v o) const { return {_mm256_or_si256(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE u32v operator<<(int k) const { return {_mm256_sll_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator>>(int k) const { return {_mm256_srl_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v min(uint32_t c) const { return {_mm256_min_epu32(v, _mm256_set1_epi32(int(c)))}; }
  TAGPIPE_ALWAYS_INLINE u32v ge(uint32_t c) const { return {_mm256_cmpgt_epi32(v, _mm256_set1_epi32(int(c) - 1))}; }
  static TAGPIPE_ALWAYS_INLINE u32v select(u32v m, u32v a, u32v b) { return {_mm256_blendv_epi8(b.v, a.v, m.v)}; }
  TAGPIPE_ALWAYS_INLINE bool any() const { return !_mm256_testz_si256(v, v); }
  // idx < 32: vpermd reads the low 3 bits; bits 3..4 pick the register.
  static TAGPIPE_ALWAYS_INLINE u32v lookup(const Lut32& lut, u32v idx) {
    const __m256i hi = _mm256_srli_epi32(idx.v, 3);
    __m256i r = _mm256_permutevar8x32_epi32(lut.t[0], idx.v);
    for (int k = 1; k < 4; k++)
      r = _mm256_blendv_epi8(r, _mm256_permutevar8x32_epi32(lut.t[k], idx.v), _mm256_cmpeq_epi32(hi, _mm256_set1_epi32(k)));
    return {r};
  }
  // 32-bit gathers at byte / halfword addresses; the tables are padded for the extra bytes.
  static TAGPIPE_ALWAYS_INLINE u32v gather_u16(const uint16_t* base, u32v idx) {
    const __m256i w = _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), idx.v, 2);
    return {_mm256_and_si256(w, _mm256_set1_epi32(0xFFFF))};
  }
  static TAGPIPE_ALWAYS_INLINE u32v gather_u8(const uint8_t* base, u32v idx) {
    const __m256i w = _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), idx.v, 1);
    return {_mm256_and_si256(w, _mm256_set1_epi32(0xFF))};
  }
  // Low byte of each lane -> out[0..8).
  TAGPIPE_ALWAYS_INLINE void store_u8(uint8_t* out) const {
    const __m256i low = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                         0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i x = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, low), _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(x));
  }
};

using LeadLanes = InPlaceLeadLanes<simd8x64, u32v>;

}  // namespace tagpipe::avx2
