// The classify algorithm, written once for every SIMD architecture.
//
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the
// architecture's namespace (sse42, avx2, avx512, neon) and inside its target region.  The
// wrapper provides:
//   simd8x64  64 bytes in one or more registers; comparisons return a uint64_t bitmask
//             (bit i = byte i), select() takes one.
//   u32v      u32v::N 32-bit lanes, for decoding code points and gathering table entries.
//   AsciiLut  a 128-entry byte table held in registers (simd8x64::lookup128).
//   Lut32     a 32-entry uint16 table held in registers (u32v::lookup).
//   LeadLanes where the lead bytes of a chunk are decoded (see lead_tags).
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {
namespace {

// The state one 64-byte chunk hands to the next: which of the next chunk's first three
// bytes continue a well-formed sequence that started in this chunk.
struct Carry {
  uint64_t covered = 0;
};

// Tags of the well-formed lead bytes in `lead`.  LeadLanes (from the wrapper) says where
// the lanes to decode are: packed together where the ISA can compress (AVX-512 VBMI2),
// in place elsewhere (then groups with no lead are skipped).  Each u32v lane decodes the
// code point that would start there -- garbage for lanes that are not leads, so the
// stage-1 index is clamped into the table instead of branching; the caller masks those
// lanes off.  A group of two-byte characters only (cp < 0x800, blocks 0..31) reads its
// stage-1 entries from registers instead of memory.
TAGPIPE_ALWAYS_INLINE simd8x64 lead_tags(LeadLanes& lanes, const Alphabet& a, const Lut32& low_blocks) {
  constexpr int N = u32v::N;
  for (int g = 0; g < lanes.count(); g += N) {
    if (lanes.empty(g)) continue;
    const u32v b0 = u32v::load_u8(lanes.src(0) + g);
    const u32v c1 = u32v::load_u8(lanes.src(1) + g) & 0x3F;
    const u32v c2 = u32v::load_u8(lanes.src(2) + g) & 0x3F;
    const u32v c3 = u32v::load_u8(lanes.src(3) + g) & 0x3F;
    const u32v cp2 = ((b0 & 0x1F) << 6) | c1;
    const u32v three_or_four = b0.ge(0xE0);
    u32v cp, block;
    if (!three_or_four.any()) {
      cp = cp2;
      block = u32v::lookup(low_blocks, cp >> 6);
    } else {
      const u32v cp3 = ((b0 & 0x0F) << 12) | (c1 << 6) | c2;
      const u32v cp4 = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      cp = u32v::select(b0.ge(0xF0), cp4, u32v::select(three_or_four, cp3, cp2));
      block = u32v::gather_u16(a.stage1, (cp >> 6).min(uint32_t(a.stage1_len - 1)));
    }
    u32v::gather_u8(a.stage2, (block << 6) | (cp & 63)).store_u8(lanes.out() + g);
  }
  return lanes.result();
}

// One 64-byte chunk: tags to out[0..64), returns the char-start word.
TAGPIPE_ALWAYS_INLINE uint64_t chunk(const uint8_t* p, const Alphabet& a, const AsciiLut& lut,
                                     const Lut32& low_blocks, uint8_t* out, Carry& carry) {
  const simd8x64 v = simd8x64::load(p);
  const uint64_t non_ascii = v.msb();
  simd8x64 tags = v.lookup128(lut);
  if (TAGPIPE_LIKELY(non_ascii == 0)) {  // carry.covered is 0 too: covered bytes are >= 0x80
    tags.store(out);
    return ~uint64_t(0);
  }
  const simd8x64 v1 = simd8x64::load(p + 1), v2 = simd8x64::load(p + 2),
                 v3 = simd8x64::load(p + 3);
  // Well-formed leads: the right number of continuation bytes, and a second byte in the
  // lead's allowed range (E0: A0..BF no overlongs; ED: 80..9F no surrogates; F0: 90..BF;
  // F4: 80..8F, nothing past U+10FFFF).
  const uint64_t c1 = v1.in_range(0x80, 0xBF), c2 = v2.in_range(0x80, 0xBF),
                 c3 = v3.in_range(0x80, 0xBF);
  const uint64_t bad_second = (v.eq(0xE0) & v1.in_range(0x80, 0x9F)) |
                              (v.eq(0xED) & v1.in_range(0xA0, 0xBF)) |
                              (v.eq(0xF0) & v1.in_range(0x80, 0x8F)) |
                              (v.eq(0xF4) & v1.in_range(0x90, 0xBF));
  const uint64_t ok2 = v.in_range(0xC2, 0xDF) & c1;
  const uint64_t ok3 = v.in_range(0xE0, 0xEF) & c1 & c2 & ~bad_second;
  const uint64_t ok4 = v.in_range(0xF0, 0xF4) & c1 & c2 & c3 & ~bad_second;
  const uint64_t lead = ok2 | ok3 | ok4;
  // A lead covers the 1, 2 or 3 bytes after it; the bits shifted out belong to the next chunk.
  const uint64_t one = lead, two = ok3 | ok4, three = ok4;
  const uint64_t covered = (one << 1) | (two << 2) | (three << 3) | carry.covered;
  carry.covered = (one >> 63) | (two >> 62) | (three >> 61);
  const uint64_t invalid = non_ascii & ~lead & ~covered;

  LeadLanes lanes(p, v, v1, v2, v3, lead);
  tags = simd8x64::select(lead, lead_tags(lanes, a, low_blocks), tags);
  tags = simd8x64::select(invalid, simd8x64::splat(a.fffd_tag), tags);
  tags = simd8x64::select(covered, simd8x64::splat(0), tags);  // Cont
  tags.store(out);
  return ~covered;
}

}  // namespace

void classify(const uint8_t* in, size_t n, const Alphabet& a, uint8_t* tags, uint64_t* starts) {
  const AsciiLut lut(a.ascii);
  const Lut32 low_blocks(a.stage1);  // stage-1 entries of U+0000..U+07FF
  Carry carry;
  size_t i = 0;
  for (; i + 64 + 3 <= n; i += 64) starts[i / 64] = chunk(in + i, a, lut, low_blocks, tags + i, carry);
  if (i == n) return;
  // The last 1..66 bytes: classify a zero-padded copy (zeros are ASCII, so a sequence cut
  // by the end of the input is ill-formed, as it should be).
  alignas(64) uint8_t buf[128 + 4] = {};
  alignas(64) uint8_t tbuf[128];
  const size_t rest = n - i;
  std::memcpy(buf, in + i, rest);
  for (size_t j = 0; j < rest; j += 64) {
    uint64_t word = chunk(buf + j, a, lut, low_blocks, tbuf + j, carry);
    const size_t bits = rest - j;
    if (bits < 64) word &= (uint64_t(1) << bits) - 1;
    starts[(i + j) / 64] = word;
  }
  std::memcpy(tags + i, tbuf, rest);
}

}  // namespace tagpipe::TAGPIPE_ARCH
