// simd8x64 / u32v over AArch64 NEON (ASIMD, always present): four 16-byte registers per
// chunk, tbl lookups, scalar-load "gathers".
// Included by arch/neon.cpp before the generic kernels (ASIMD needs no target region).
#pragma once
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "simd/lead_lanes.h"

namespace tagpipe::neon {

struct AsciiLut {
  uint8x16x4_t lo, hi;  // entries 0..63 and 64..127
  explicit AsciiLut(const uint8_t* table) : lo(vld1q_u8_x4(table)), hi(vld1q_u8_x4(table + 64)) {}
};

// 16 bytes of 0xFF/0x00 -> 16 mask bits.  Each byte keeps one weight bit (1..128 per half),
// then three pairwise adds sum each half into one byte.
TAGPIPE_ALWAYS_INLINE uint32_t movemask16(uint8x16_t x) {
  const uint8x16_t weights = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t t = vandq_u8(x, weights);
  t = vpaddq_u8(t, t);
  t = vpaddq_u8(t, t);
  t = vpaddq_u8(t, t);
  return vgetq_lane_u16(vreinterpretq_u16_u8(t), 0);
}

// 16 mask bits -> 16 bytes of 0xFF / 0x00.
TAGPIPE_ALWAYS_INLINE uint8x16_t expand16(uint32_t m) {
  const uint8x16_t weights = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x8_t lo = vdup_n_u8(uint8_t(m)), hi = vdup_n_u8(uint8_t(m >> 8));
  return vtstq_u8(vcombine_u8(lo, hi), weights);
}

// A 16-entry byte table in a register (tbl).
struct Lut16 {
  uint8x16_t t;
  explicit Lut16(const uint8_t* table) : t(vld1q_u8(table)) {}
};

struct simd8x64 {
  uint8x16_t v[4];

  static TAGPIPE_ALWAYS_INLINE simd8x64 load(const uint8_t* p) {
    const uint8x16x4_t x = vld1q_u8_x4(p);
    return {{x.val[0], x.val[1], x.val[2], x.val[3]}};
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 splat(uint8_t c) {
    const uint8x16_t s = vdupq_n_u8(c);
    return {{s, s, s, s}};
  }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const {
    for (int k = 0; k < 4; k++) vst1q_u8(p + 16 * k, v[k]);
  }
  static TAGPIPE_ALWAYS_INLINE uint64_t bits(const uint8x16_t (&m)[4]) {
    uint64_t r = 0;
    for (int k = 0; k < 4; k++) r |= uint64_t(movemask16(m[k])) << (16 * k);
    return r;
  }
  TAGPIPE_ALWAYS_INLINE uint64_t msb() const {
    uint8x16_t m[4];
    for (int k = 0; k < 4; k++) m[k] = vcltzq_s8(vreinterpretq_s8_u8(v[k]));
    return bits(m);
  }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(uint8_t c) const {
    const uint8x16_t s = vdupq_n_u8(c);
    uint8x16_t m[4];
    for (int k = 0; k < 4; k++) m[k] = vceqq_u8(v[k], s);
    return bits(m);
  }
  // lo <= b <= hi (unsigned): b - lo wraps below lo, so one unsigned compare suffices.
  TAGPIPE_ALWAYS_INLINE uint64_t in_range(uint8_t lo, uint8_t hi) const {
    const uint8x16_t l = vdupq_n_u8(lo), w = vdupq_n_u8(uint8_t(hi - lo));
    uint8x16_t m[4];
    for (int k = 0; k < 4; k++) m[k] = vcleq_u8(vsubq_u8(v[k], l), w);
    return bits(m);
  }
  TAGPIPE_ALWAYS_INLINE uint64_t eq(const simd8x64& o) const {
    uint8x16_t m[4];
    for (int k = 0; k < 4; k++) m[k] = vceqq_u8(v[k], o.v[k]);
    return bits(m);
  }
  // Bytes with bit x set.
  TAGPIPE_ALWAYS_INLINE uint64_t test_bit(int x) const {
    const uint8x16_t bit = vdupq_n_u8(uint8_t(1 << x));
    uint8x16_t m[4];
    for (int k = 0; k < 4; k++) m[k] = vtstq_u8(v[k], bit);
    return bits(m);
  }
  // table[b] for b < 16.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup16(const Lut16& lut) const {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = vqtbl1q_u8(lut.t, v[k]);
    return r;
  }
  // tbl returns 0 for an index past its 64-byte table, so exactly one of the two lookups
  // contributes for an ASCII byte and neither for b >= 0x80.
  TAGPIPE_ALWAYS_INLINE simd8x64 lookup128(const AsciiLut& lut) const {
    const uint8x16_t off = vdupq_n_u8(64);
    simd8x64 r;
    for (int k = 0; k < 4; k++)
      r.v[k] = vorrq_u8(vqtbl4q_u8(lut.lo, v[k]), vqtbl4q_u8(lut.hi, vsubq_u8(v[k], off)));
    return r;
  }
  static TAGPIPE_ALWAYS_INLINE simd8x64 select(uint64_t m, const simd8x64& a, const simd8x64& b) {
    simd8x64 r;
    for (int k = 0; k < 4; k++) r.v[k] = vbslq_u8(expand16(uint32_t(m >> (16 * k)) & 0xFFFF), a.v[k], b.v[k]);
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
  uint32x4_t v;

  static TAGPIPE_ALWAYS_INLINE u32v load_u8(const uint8_t* p) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    const uint8x8_t b = vreinterpret_u8_u32(vdup_n_u32(w));
    return {vmovl_u16(vget_low_u16(vmovl_u8(b)))};
  }
  TAGPIPE_ALWAYS_INLINE u32v operator&(uint32_t c) const { return {vandq_u32(v, vdupq_n_u32(c))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator|(u32v o) const { return {vorrq_u32(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE u32v operator<<(int k) const { return {vshlq_u32(v, vdupq_n_s32(k))}; }
  TAGPIPE_ALWAYS_INLINE u32v operator>>(int k) const { return {vshlq_u32(v, vdupq_n_s32(-k))}; }
  TAGPIPE_ALWAYS_INLINE u32v min(uint32_t c) const { return {vminq_u32(v, vdupq_n_u32(c))}; }
  TAGPIPE_ALWAYS_INLINE u32v ge(uint32_t c) const { return {vcgeq_u32(v, vdupq_n_u32(c))}; }
  static TAGPIPE_ALWAYS_INLINE u32v select(u32v m, u32v a, u32v b) { return {vbslq_u32(m.v, a.v, b.v)}; }
  TAGPIPE_ALWAYS_INLINE bool any() const { return vmaxvq_u32(v) != 0; }
  static TAGPIPE_ALWAYS_INLINE u32v lookup(const Lut32& lut, u32v idx) {  // idx < 32
    const uint32_t r[4] = {lut.t[vgetq_lane_u32(idx.v, 0)], lut.t[vgetq_lane_u32(idx.v, 1)],
                           lut.t[vgetq_lane_u32(idx.v, 2)], lut.t[vgetq_lane_u32(idx.v, 3)]};
    return {vld1q_u32(r)};
  }
  // No gather instruction: four scalar loads, no branches.
  static TAGPIPE_ALWAYS_INLINE u32v gather_u16(const uint16_t* base, u32v idx) {
    const uint32_t r[4] = {base[vgetq_lane_u32(idx.v, 0)], base[vgetq_lane_u32(idx.v, 1)],
                           base[vgetq_lane_u32(idx.v, 2)], base[vgetq_lane_u32(idx.v, 3)]};
    return {vld1q_u32(r)};
  }
  static TAGPIPE_ALWAYS_INLINE u32v gather_u8(const uint8_t* base, u32v idx) {
    const uint32_t r[4] = {base[vgetq_lane_u32(idx.v, 0)], base[vgetq_lane_u32(idx.v, 1)],
                           base[vgetq_lane_u32(idx.v, 2)], base[vgetq_lane_u32(idx.v, 3)]};
    return {vld1q_u32(r)};
  }
  TAGPIPE_ALWAYS_INLINE void store_u8(uint8_t* out) const {
    const uint8x8_t b = vmovn_u16(vcombine_u16(vmovn_u32(v), vdup_n_u16(0)));
    const uint32_t w = vget_lane_u32(vreinterpret_u32_u8(b), 0);
    std::memcpy(out, &w, 4);
  }
};

// One 16-byte register for the replace kernel (kernels/replace/replace_generic.h).
struct Bytes16 {
  uint8x16_t v;
  static TAGPIPE_ALWAYS_INLINE Bytes16 halves(uint64_t lo, uint64_t hi) {
    return {vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))};
  }
  // Bit i: byte i (of the low eight) is c.
  TAGPIPE_ALWAYS_INLINE unsigned low8_eq(uint8_t c) const {
    const uint8x8_t weights = {1, 2, 4, 8, 16, 32, 64, 128};
    return vaddv_u8(vand_u8(vceq_u8(vget_low_u8(v), vdup_n_u8(c)), weights));
  }
  // Byte k of the result: byte idx[k] of this, or 0 where idx[k] >= 16 (tbl).
  TAGPIPE_ALWAYS_INLINE Bytes16 shuffle(const uint8_t* idx) const { return {vqtbl1q_u8(v, vld1q_u8(idx))}; }
  TAGPIPE_ALWAYS_INLINE void store(uint8_t* p) const { vst1q_u8(p, v); }
};

// Sixteen code units at s (1, 2 or 4 bytes each): when all are ASCII, stores them as
// sixteen bytes at d and returns true (the transcode kernel).
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint8_t* s, uint8_t* d) {
  const uint8x16_t v = vld1q_u8(s);
  if (vmaxvq_u8(v) >= 0x80) return false;
  vst1q_u8(d, v);
  return true;
}
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint16_t* s, uint8_t* d) {
  const uint16x8_t a = vld1q_u16(s), b = vld1q_u16(s + 8);
  if (vmaxvq_u16(vorrq_u16(a, b)) >= 0x80) return false;
  vst1q_u8(d, vcombine_u8(vmovn_u16(a), vmovn_u16(b)));
  return true;
}
TAGPIPE_ALWAYS_INLINE bool ascii16(const uint32_t* s, uint8_t* d) {
  const uint32x4_t a = vld1q_u32(s), b = vld1q_u32(s + 4), c = vld1q_u32(s + 8), e = vld1q_u32(s + 12);
  if (vmaxvq_u32(vorrq_u32(vorrq_u32(a, b), vorrq_u32(c, e))) >= 0x80) return false;
  const uint16x8_t lo = vcombine_u16(vmovn_u32(a), vmovn_u32(b)), hi = vcombine_u16(vmovn_u32(c), vmovn_u32(e));
  vst1q_u8(d, vcombine_u8(vmovn_u16(lo), vmovn_u16(hi)));
  return true;
}

// Four code units widened to 32-bit lanes (the transcode kernel's general step).
struct U32x4 {
  uint32x4_t v;
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint8_t* s) {
    uint32_t w;
    std::memcpy(&w, s, 4);
    return {vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(w))))};
  }
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint16_t* s) { return {vmovl_u16(vld1_u16(s))}; }
  static TAGPIPE_ALWAYS_INLINE U32x4 load(const uint32_t* s) { return {vld1q_u32(s)}; }
  template <int N>
  TAGPIPE_ALWAYS_INLINE U32x4 shr() const { return {vshrq_n_u32(v, N)}; }
  template <int N>
  TAGPIPE_ALWAYS_INLINE U32x4 shl() const { return {vshlq_n_u32(v, N)}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator&(uint32_t c) const { return {vandq_u32(v, vdupq_n_u32(c))}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator|(uint32_t c) const { return {vorrq_u32(v, vdupq_n_u32(c))}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator|(U32x4 o) const { return {vorrq_u32(v, o.v)}; }
  TAGPIPE_ALWAYS_INLINE U32x4 operator-(uint32_t c) const { return {vsubq_u32(v, vdupq_n_u32(c))}; }
  // All ones in the lanes below c (unsigned).
  TAGPIPE_ALWAYS_INLINE U32x4 below(uint32_t c) const { return {vcltq_u32(v, vdupq_n_u32(c))}; }
  // Bit k: lane k is all ones (of a mask from below()).
  TAGPIPE_ALWAYS_INLINE unsigned bits() const {
    const uint32x4_t bit = {1, 2, 4, 8};
    return vaddvq_u32(vandq_u32(v, bit));
  }
  // Each lane from a where the mask's lane is all ones, else from b.
  static TAGPIPE_ALWAYS_INLINE U32x4 select(U32x4 mask, U32x4 a, U32x4 b) { return {vbslq_u32(mask.v, a.v, b.v)}; }
  // The 16 bytes picked by idx (tbl) stored at d.
  TAGPIPE_ALWAYS_INLINE void shuffle_store(const uint8_t* idx, uint8_t* d) const {
    vst1q_u8(d, vqtbl1q_u8(vreinterpretq_u8_u32(v), vld1q_u8(idx)));
  }
};

using LeadLanes = InPlaceLeadLanes<simd8x64, u32v>;

}  // namespace tagpipe::neon
