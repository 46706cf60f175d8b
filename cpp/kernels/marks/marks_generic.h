// The marks algorithm, written once for every SIMD architecture (see marks.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// Six unaligned loads, at t - 3 .. t + 2: a position k starts a run when the bytes at
// k, k + 1, k + 2 equal the mark's and those at k - 3, k - 2, k - 1 do not; a pair is two
// bytes without their top bit, not both in 'a'..'z' or 'A'..'Z'; `after` compares the
// bytes at k - 1 with each given byte.  Every test is one compare per register into a
// 64-bit mask.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {

MarkMasks marks(const uint8_t* t, const uint8_t* mark, const uint8_t* after) {
  const simd8x64 v = simd8x64::load(t), n1 = simd8x64::load(t + 1), n2 = simd8x64::load(t + 2);
  const simd8x64 p1 = simd8x64::load(t - 1), p2 = simd8x64::load(t - 2), p3 = simd8x64::load(t - 3);
  const uint64_t here = v.eq(mark[0]) & n1.eq(mark[1]) & n2.eq(mark[2]);
  const uint64_t before = p3.eq(mark[0]) & p2.eq(mark[1]) & p1.eq(mark[2]);
  const uint64_t letter = v.in_range('a', 'z') | v.in_range('A', 'Z');
  const uint64_t letter_before = p1.in_range('a', 'z') | p1.in_range('A', 'Z');
  const uint64_t ascii = ~(v.msb() | p1.msb());
  uint64_t follows = 0;
  for (int i = 0; after && i < kAfterBytes; i++) follows |= p1.eq(after[i]);
  return {here & ~before, ascii & ~(letter & letter_before), follows};
}

}  // namespace tagpipe::TAGPIPE_ARCH
