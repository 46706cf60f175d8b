// The boundaries algorithm, written once for every SIMD architecture (see boundaries.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// Per 64 bytes: remap the tags at i and at i-1 .. i-4 (unaligned loads of the padded tag
// buffer, one 16-entry table lookup each); the class of the character before i is the
// first non-Cont one of those four (a UTF-8 character has at most three continuation
// bytes).  A boundary is a character start whose class differs from that, or is single;
// the bits are extracted with count-trailing-zeros.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {

size_t boundaries(const uint8_t* tags, uint32_t b, uint32_t e, const uint8_t* remap, uint32_t* out) {
  const Lut16 lut(remap);
  const simd8x64 zero = simd8x64::splat(0);
  size_t n = 0;
  for (uint32_t i = b + 1; i < e; i += 64) {
    const simd8x64 c0 = simd8x64::load(tags + i).lookup16(lut);
    const simd8x64 c1 = simd8x64::load(tags + i - 1).lookup16(lut);
    const simd8x64 c2 = simd8x64::load(tags + i - 2).lookup16(lut);
    const simd8x64 c3 = simd8x64::load(tags + i - 3).lookup16(lut);
    const simd8x64 c4 = simd8x64::load(tags + i - 4).lookup16(lut);
    simd8x64 previous = simd8x64::select(c3.eq(zero), c4, c3);
    previous = simd8x64::select(c2.eq(zero), previous, c2);
    previous = simd8x64::select(c1.eq(zero), previous, c1);
    uint64_t m = ~c0.eq(zero) & (~c0.eq(previous) | c0.msb());
    const uint32_t left = e - i;
    if (left < 64) m &= (uint64_t(1) << left) - 1;
    while (m) {
      out[n++] = i + uint32_t(__builtin_ctzll(m));
      m &= m - 1;
    }
  }
  return n;
}

}  // namespace tagpipe::TAGPIPE_ARCH
