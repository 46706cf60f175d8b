// The find algorithm, written once for every SIMD architecture (see find.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// One load, one compare per byte of the set, or'd as 64-bit masks.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {

uint64_t find_bytes(const uint8_t* t, const uint8_t* set) {
  const simd8x64 v = simd8x64::load(t);
  uint64_t m = 0;
  for (int i = 0; i < kFindBytes; i++) m |= v.eq(set[i]);
  return m;
}

}  // namespace tagpipe::TAGPIPE_ARCH
