// The window algorithm, written once for every SIMD architecture (see window.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// Remap the tags at q+j and at q+j-1 .. q+j-4 and q+j+1 .. q+j+4 (unaligned loads of the
// padded tag buffer, one table lookup each).  The character before a start is the first
// non-Cont of the four before it, the character after is the first non-Cont of the four
// after it (a UTF-8 character is at most four bytes).  Lanes that read before b or at or
// past e are zeroed first.  Then one mask per class bit and direction.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {

void window(const uint8_t* tags, uint32_t q, uint32_t b, uint32_t e, const uint8_t* remap, Window& w) {
  const Lut16 lut(remap);
  const simd8x64 zero = simd8x64::splat(0);
  const uint32_t left = e - q;  // > 0
  const uint64_t in_piece = left >= 64 ? ~uint64_t(0) : (uint64_t(1) << left) - 1;
  // lanes j whose byte q + j + d lies inside [b, e)
  auto valid = [&](int d) -> uint64_t {
    uint64_t m = ~uint64_t(0);
    const int64_t lo = int64_t(b) - int64_t(q) - d;  // first valid lane
    if (lo > 0) m = lo >= 64 ? 0 : m << lo;
    const int64_t hi = int64_t(e) - int64_t(q) - d;  // first invalid lane
    if (hi < 64) m &= hi <= 0 ? 0 : (uint64_t(1) << hi) - 1;
    return m;
  };
  auto at = [&](int d) {
    const simd8x64 c = simd8x64::load(tags + q + d).lookup16(lut);
    return simd8x64::select(valid(d), c, zero);
  };
  const simd8x64 c0 = at(0);
  // First non-Cont going outward: select(is_zero(nearer), farther, nearer).
  simd8x64 p = at(-4);
  for (int d = -3; d <= -1; d++) {
    const simd8x64 c = at(d);
    p = simd8x64::select(c.eq(zero), p, c);
  }
  simd8x64 n = at(4);
  for (int d = 3; d >= 1; d--) {
    const simd8x64 c = at(d);
    n = simd8x64::select(c.eq(zero), n, c);
  }
  const uint64_t start = ~c0.eq(zero) & in_piece;
  w.start = start;
  for (int x = 0; x < 8; x++) {
    w.cur[x] = c0.test_bit(x) & start;
    w.prev[x] = p.test_bit(x) & start;
    w.next[x] = n.test_bit(x) & start;
  }
}

}  // namespace tagpipe::TAGPIPE_ARCH
