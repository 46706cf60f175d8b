// The transcode algorithm, written once for every SIMD architecture (see transcode.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// Sixteen units at a time when they are all ASCII (ascii16: one test of their high bits,
// then they are narrowed to sixteen bytes).  Otherwise four units a step, each widened to
// a 32-bit lane that holds its UTF-8 form, first byte lowest:
//   < 0x80      u
//   < 0x800     110xxxxx 10xxxxxx                   (u >> 6 | 0xC0, then u & 0x3F | 0x80)
//   < 0x10000   1110xxxx 10xxxxxx 10xxxxxx
//   else        11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
// -- every form the width can need computed for every lane (Latin-1: the first two, UCS-2:
// three) and the right one selected by its range; then a shuffle picked by the four
// lengths (two bits each: an 8-bit code) packs the lanes' bytes together
// (transcode_shuffles), and the output moves by their sum.  No branch on the text:
// Russian and Chinese mix one-byte spaces with two- and three-byte letters, and the scalar
// kernel's branches mispredict there.  A step holding a surrogate ends the conversion.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {

namespace {

template <class Unit>
TAGPIPE_ALWAYS_INLINE uint8_t* step4(const Unit* s, uint8_t* d, const TranscodeShuffles& t) {
  const U32x4 u = U32x4::load(s);
  const U32x4 m1 = u.below(0x80), c0 = (u & 0x3F) | 0x80;
  const U32x4 two = (u.template shr<6>() | 0xC0) | c0.template shl<8>();
  if (sizeof(Unit) == 1) {  // (Latin-1: nothing above 0x7FF)
    const unsigned code = 0x55 - t.spread[m1.bits()];
    U32x4::select(m1, u, two).shuffle_store(t.index[code], d);
    return d + t.length[code];
  }
  if ((u - 0xD800).below(0x800).bits()) return nullptr;
  const U32x4 m2 = u.below(0x800), c1 = (u.template shr<6>() & 0x3F) | 0x80;
  const U32x4 three = (u.template shr<12>() | 0xE0) | c1.template shl<8>() | c0.template shl<16>();
  if (sizeof(Unit) == 2) {  // (UCS-2: nothing above 0xFFFF)
    const unsigned code = 0xAA - t.spread[m1.bits()] - t.spread[m2.bits()];
    U32x4::select(m1, u, U32x4::select(m2, two, three)).shuffle_store(t.index[code], d);
    return d + t.length[code];
  }
  const U32x4 m3 = u.below(0x10000), c2 = (u.template shr<12>() & 0x3F) | 0x80;
  const U32x4 four = (u.template shr<18>() | 0xF0) | c2.template shl<8>() | c1.template shl<16>() | c0.template shl<24>();
  // Lane k's length less one is 3 less the ranges it is below (they nest): two bits at 2k.
  const unsigned code = 0xFF - t.spread[m1.bits()] - t.spread[m2.bits()] - t.spread[m3.bits()];
  U32x4::select(m1, u, U32x4::select(m2, two, U32x4::select(m3, three, four))).shuffle_store(t.index[code], d);
  return d + t.length[code];
}

template <class Unit>
uint8_t* encode(const Unit* s, size_t n, unsigned width, uint8_t* d) {
  const TranscodeShuffles& t = transcode_shuffles();
  size_t i = 0;
  while (i + 16 <= n) {
    if (ascii16(s + i, d)) {
      i += 16, d += 16;
      continue;
    }
    for (const size_t end = i + 16; i < end; i += 4)
      if (!(d = step4(s + i, d, t))) return nullptr;
  }
  for (; i + 4 <= n; i += 4)
    if (!(d = step4(s + i, d, t))) return nullptr;
  return scalar::transcode(s + i, n - i, width, d);
}

}  // namespace

uint8_t* transcode(const void* s, size_t n, unsigned width, uint8_t* d) {
  if (width == 1) return encode(static_cast<const uint8_t*>(s), n, width, d);
  if (width == 2) return encode(static_cast<const uint16_t*>(s), n, width, d);
  return encode(static_cast<const uint32_t*>(s), n, width, d);
}

}  // namespace tagpipe::TAGPIPE_ARCH
