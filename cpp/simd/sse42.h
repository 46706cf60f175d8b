// simd8x64 / u32v over SSE4.2 (with SSSE3 pshufb): four 16-byte registers per chunk.
// Included by arch/sse42.cpp inside its target region, before the generic kernels.
#pragma once
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "simd/lead_lanes.h"

namespace tagpipe::sse42 {

// 128-entry byte table as eight 16-byte pshufb tables, one per high nibble 0..7.
struct AsciiLut {
  __m128i t[8];
  explicit AsciiLut(const uint8_t* table) {
    for (int k = 0; k < 8; k++) t[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k));
  }
};

// table[b] for b < 0x80, 0 for b >= 0x80.  Step k looks up x = b - 16k: adding 0x70 with
// unsigned saturation keeps the low nibble and clears bit 7 exactly when 0 <= x < 16;
// every other x (including the wrapped negatives) saturates to >= 0x80, which pshufb
// turns into 0.  So exactly one step contributes for an ASCII byte.
TAGPIPE_ALWAYS_INLINE __m128i lookup128(__m128i b, const AsciiLut& lut) {
  const __m128i bias = _mm_set1_epi8(0x70), step = _mm_set1_epi8(16);
  __m128i r = _mm_setzero_si128(), x = b;
  for (int k = 0; k < 8; k++) {
    r = _mm_or_si128(r, _mm_shuffle_epi8(lut.t[k], _mm_adds_epu8(x, bias)));
    x = _mm_sub_epi8(x, step);
  }
  return r;
}

// 16 mask bits -> 16 bytes of 0xFF / 0x00.
TAGPIPE_ALWAYS_INLINE __m128i expand16(uint32_t m) {
  const __m128i spread = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m128i bits = _mm_set1_epi64x(int64_t(0x8040201008040201ULL));
  const __m128i x = _mm_shuffle_epi8(_mm_cvtsi32_si128(int(m)), spread);
  return _mm_cmpeq_epi8(_mm_and_si128(x, bits), bits);
}

// A 16-entry byte table in a register (pshufb).
struct Lut16 {
  __m128i t;
  explicit Lut16(const uint8_t* table) : t(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table))) {}
};

struct simd8x64 {
  __m128i v[4];

  static TAGPIPE_ALWAYS_INLINE simd8x64 load(const uint8_t* p) {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    return r;
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 splat(uint8_t c) {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = _mm_set1_epi8(char(c));
    return r;
  }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const {
    for (int k = 0; k < 4; k++) _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 16 * k), v[k]);
  }
  static TAGPIPE_ALWAYS_INLINE uint64_t bits(const __m128i (&m)[4]) {
    uint64_t r = 0;
    for (int k = 0; k < 4; k++) r |= uint64_t(uint32_t(_mm_movemask_epi8(m[k]))) << (16 * k);
    return r;
  }
  TAGPIPE_ALWAYS_INLINE uint64_t msb() const { return bits(v); }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(uint8_t c) const {
    const __m128i s = _mm_set1_epi8(char(c));
    __m128i m[4];
    for (int k = 0; k < 4; k++) m[k] = _mm_cmpeq_epi8(v[k], s);
    return bits(m);
  }
  // lo <= b <= hi (unsigned): b - lo, clamped to hi - lo, is unchanged.
  TAGPIPE_ALWAYS_INLINE uint64_t in_range(uint8_t lo, uint8_t hi) const {
    const __m128i l = _mm_set1_epi8(char(lo)), w = _mm_set1_epi8(char(hi - lo));
    __m128i m[4];
    for (int k = 0; k < 4; k++) {
      const __m128i d = _mm_sub_epi8(v[k], l);
      m[k] = _mm_cmpeq_epi8(_mm_min_epu8(d, w), d);
    }
    return bits(m);
  }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(const simd8x64& o) const {
    __m128i m[4];
    for (int k = 0; k < 4; k++) m[k] = _mm_cmpeq_epi8(v[k], o.v[k]);
    return bits(m);
  }
  // Bytes with bit x set.
  TAGPIPE_ALWAYS_INLINE uint64_t test_bit(int x) const {
    const __m128i bit = _mm_set1_epi8(char(1 << x));
    __m128i m[4];
    for (int k = 0; k < 4; k++) m[k] = _mm_cmpeq_epi8(_mm_and_si128(v[k], bit), bit);
    return bits(m);
  }
  // table[b] for b < 16.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup16(const Lut16& lut) const {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = _mm_shuffle_epi8(lut.t, v[k]);
    return r;
  }
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup128(const AsciiLut& lut) const {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = sse42::lookup128(v[k], lut);
    return r;
  }
  // Bytes of a where m is set, of b elsewhere.
  static TAGPIPE_ALWAYS_INLINE simd8x64 select(uint64_t m, const simd8x64& a, const simd8x64& b) {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = _mm_blendv_epi8(b.v[k], a.v[k], expand16(uint32_t(m >> (16 * k)) & 0xFFFF));
    return r;
  }
};

// A 32-entry uint16 table, widened to 32-bit lanes in memory (no gather instruction).
struct Lut32 {
  uint32_t t[32];
  explicit Lut32(const uint16_t* table) {
    for (int k = 0; k < 32; k++) t[k] = table[k];
  }
};

struct u32v {
  static constexpr int N = 4;
  __m128i v;

  static TAGPIPE_ALWAYS_INLINE u32v load_u8(const uint8_t* p) {
    int32_t w;
    std::memcpy(&w, p, 4);
    return {_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w))};
  }
  TAGPIPE_ALWAYS_INLINE u32v operator&(uint32_t c) const { return {_mm_and_si128(v, _mm_set1_epi32(int(c)))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator|(u32v o) const { return {_mm_or_si128(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE u32v operator<<(int k) const { return {_mm_sll_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator>>(int k) const { return {_mm_srl_epi32(v, _mm_cvtsi32_si128(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v min(uint32_t c) const { return {_mm_min_epu32(v, _mm_set1_epi32(int(c)))}; }
  // Lane mask: v >= c (values are small, signed compare is fine).
  TAGPIPE_ALWAYS_INLINE u32v ge(uint32_t c) const { return {_mm_cmpgt_epi32(v, _mm_set1_epi32(int(c) - 1))}; }
  static TAGPIPE_ALWAYS_INLINE u32v select(u32v m, u32v a, u32v b) { return {_mm_blendv_epi8(b.v, a.v, m.v)}; }
  TAGPIPE_ALWAYS_INLINE bool any() const { return _mm_movemask_epi8(v) != 0; }
  static TAGPIPE_ALWAYS_INLINE u32v lookup(const Lut32& lut, u32v idx) {  // idx < 32
    alignas(16) uint32_t i[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(i), idx.v);
    return {_mm_setr_epi32(int(lut.t[i[0]]), int(lut.t[i[1]]), int(lut.t[i[2]]), int(lut.t[i[3]]))};
  }
  // No gather instruction before AVX2: four scalar loads, no branches.
  static TAGPIPE_ALWAYS_INLINE u32v gather_u16(const uint16_t* base, u32v idx) {
    alignas(16) uint32_t i[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(i), idx.v);
    return {_mm_setr_epi32(base[i[0]], base[i[1]], base[i[2]], base[i[3]])};
  }
  static TAGPIPE_ALWAYS_INLINE u32v gather_u8(const uint8_t* base, u32v idx) {
    alignas(16) uint32_t i[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(i), idx.v);
    return {_mm_setr_epi32(base[i[0]], base[i[1]], base[i[2]], base[i[3]])};
  }
  // Low byte of each lane -> out[0..4).
  TAGPIPE_ALWAYS_INLINE void store_u8(uint8_t* out) const {
    const __m128i low = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const int32_t w = _mm_cvtsi128_si32(_mm_shuffle_epi8(v, low));
    std::memcpy(out, &w, 4);
  }
};

// One 16-byte register for the replace kernel (kernels/replace/replace_generic.h).
struct Bytes16 {
  __m128i v;
  static TAGPIPE_ALWAYS_INLINE Bytes16 halves(uint64_t lo, uint64_t hi) {
    return {_mm_set_epi64x(int64_t(hi), int64_t(lo))};
  }
  // Bit i: byte i (of the low eight) is c.
  TAGPIPE_ALWAYS_INLINE unsigned low8_eq(uint8_t c) const {
    return unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(char(c))))) & 0xFF;
  }
  // Byte k of the result: byte idx[k] of this, or 0 where idx[k] has its top bit set.
  TAGPIPE_ALWAYS_INLINE Bytes16 shuffle(const uint8_t* idx) const {
    return {_mm_shuffle_epi8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx)))};
  }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
};

// Sixteen code units at s (1, 2 or 4 bytes each): when all are ASCII, stores them as
// sixteen bytes at d and returns true (the transcode kernel).  (testz: SSE4.1; packus
// narrows with unsigned saturation, exact below 0x80.)
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint8_t* s, uint8_t* d) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  if (_mm_movemask_epi8(v)) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d), v);
  return true;
}
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint16_t* s, uint8_t* d) {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8));
  if (!_mm_testz_si128(_mm_or_si128(a, b), _mm_set1_epi16(int16_t(0xFF80)))) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(a, b));
  return true;
}
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint32_t* s, uint8_t* d) {
  __m128i v[4];
  for (int k = 0; k < 4; k++) v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 4 * k));
  const __m128i any = _mm_or_si128(_mm_or_si128(v[0], v[1]), _mm_or_si128(v[2], v[3]));
  if (!_mm_testz_si128(any, _mm_set1_epi32(int32_t(0xFFFFFF80)))) return false;
  const __m128i lo = _mm_packus_epi32(v[0], v[1]), hi = _mm_packus_epi32(v[2], v[3]);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(lo, hi));
  return true;
}

// Four code units widened to 32-bit lanes (the transcode kernel's general step).
struct U32x4 {
  __m128i v;
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint8_t* s) {
    int32_t w;
    std::memcpy(&w, s, 4);
    return {_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w))};
  }
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint16_t* s) {
    return {_mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)))};
  }
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint32_t* s) { return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))}; }
  template <int N>
  TAGPIPE_ALWAYS_INLINE U32x4 shr() const { return {_mm_srli_epi32(v, N)}; }
  template <int N>
  TAGPIPE_ALWAYS_INLINE U32x4 shl() const { return {_mm_slli_epi32(v, N)}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator&(uint32_t c) const { return {_mm_and_si128(v, _mm_set1_epi32(int32_t(c)))}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator|(uint32_t c) const { return {_mm_or_si128(v, _mm_set1_epi32(int32_t(c)))}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator|(U32x4 o) const { return {_mm_or_si128(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator-(uint32_t c) const { return {_mm_sub_epi32(v, _mm_set1_epi32(int32_t(c)))}; }
  // All ones in the lanes below c (unsigned, c >= 1): min(lane, c - 1) is the lane exactly then.
  TAGPIPE_ALWAYS_INLINE U32x4 below(uint32_t c) const {
    return {_mm_cmpeq_epi32(_mm_min_epu32(v, _mm_set1_epi32(int32_t(c - 1))), v)};
  }
  // Bit k: lane k is all ones (of a mask from below(): movmskps reads the top bits).
  TAGPIPE_ALWAYS_INLINE unsigned bits() const { return unsigned(_mm_movemask_ps(_mm_castsi128_ps(v))); }
  // Each lane from a where the mask's lane is all ones, else from b.
  static TAGPIPE_ALWAYS_INLINE U32x4 select(U32x4 mask, U32x4 a, U32x4 b) { return {_mm_blendv_epi8(b.v, a.v, mask.v)}; }
  // The 16 bytes picked by idx (pshufb) stored at d.
  TAGPIPE_ALWAYS_INLINE void shuffle_store(const uint8_t* idx, uint8_t* d) const {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d),
                     _mm_shuffle_epi8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx))));
  }
};

using LeadLanes = InPlaceLeadLanes<simd8x64, u32v>;

}  // namespace tagpipe::sse42
