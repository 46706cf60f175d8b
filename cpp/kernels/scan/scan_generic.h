// The scan algorithm, written once for every SIMD architecture (see scan.h).
// Included by scan_<arch>.cpp after simd/<arch>.h, with TAGPIPE_ARCH set.
//
// ASCII bytes get their tags from byte predicates, one mask each (the regex alphabet's
// ASCII tags are ranges and single bytes: scan_scalar.cpp's table is checked against them
// below).  A block with bytes >= 0x80 also finds its well-formed sequences as classify
// does (classify_generic.h, chunk), and looks up each one's tag from its first bytes
// (lead_tables.h): straight into the masks when there are few, else into a byte per
// position, turned into masks by one compare per tag a sequence can have.
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {
namespace {

// What ScanAscii below assumes of the generated table.
constexpr bool ascii_predicates_hold() {
  using namespace tables::regex;
  for (int b = 0; b < 128; b++) {
    const int want = b >= 'A' && b <= 'Z'          ? Upper
                     : b >= 'a' && b <= 'z'        ? Lower
                     : b >= '0' && b <= '9'        ? Digit
                     : b == ' '                    ? Space
                     : b == '\n' || b == '\r'      ? Newline
                     : b >= 9 && b <= 13           ? WsOther
                     : b == '\''                   ? Apostrophe
                     : b == '/'                    ? Slash
                                                   : Other;
    if (kAscii[b] != want) return false;
  }
  return tables::regex::kFffdTag == Other;
}
static_assert(ascii_predicates_hold(), "the regex alphabet's ASCII tags changed: update scan_generic.h");

// Bytes 64..66 (those below avail) as three bits of a predicate.
template <class Pred>
TAGPIPE_ALWAYS_INLINE uint64_t tail_bits(const uint8_t* p, uint32_t avail, Pred pred) {
  uint64_t t = 0;
  for (uint32_t k = 0; k < 3; k++) t |= uint64_t(64 + k < avail && pred(p[64 + k])) << k;
  return t;
}

TAGPIPE_ALWAYS_INLINE uint32_t scan_block(const uint8_t* p, uint32_t avail, uint32_t carry, ScanMasks& m) {
  using namespace tables::regex;
  const simd8x64 v = simd8x64::load(p);
  const uint64_t in = avail >= 64 ? ~uint64_t(0) : (uint64_t(1) << avail) - 1;
  const uint64_t hi = v.msb() & in;
  const uint64_t newline = (v.eq('\n') | v.eq('\r')) & in;
  m.tag[Cont] = 0;
  m.tag[Upper] = v.in_range('A', 'Z') & in;
  m.tag[Lower] = v.in_range('a', 'z') & in;
  m.tag[LetterOther] = m.tag[Mark] = m.tag[Number] = 0;
  m.tag[Digit] = v.in_range('0', '9') & in;
  m.tag[Space] = v.eq(' ') & in;
  m.tag[Newline] = newline;
  m.tag[WsOther] = v.in_range(9, 13) & in & ~newline;
  m.tag[Apostrophe] = v.eq('\'') & in;
  m.tag[Slash] = v.eq('/') & in;
  const uint64_t named = m.tag[Upper] | m.tag[Lower] | m.tag[Digit] | m.tag[Space] | newline | m.tag[WsOther] |
                         m.tag[Apostrophe] | m.tag[Slash];
  m.tag[Other] = in & ~hi & ~named;
  if (TAGPIPE_LIKELY(hi == 0)) {  // (carry is 0 too: a continued character's bytes are >= 0x80)
    m.start = in;
    return 0;
  }
  // Well-formed leads (classify_generic.h): the right number of continuation bytes, and a
  // second byte in the lead's range.  Bits past 63 come from bytes 64..66.
  const auto is_cont = [](uint8_t b) { return (b & 0xC0) == 0x80; };
  const uint64_t cont = v.in_range(0x80, 0xBF) & in, tc = tail_bits(p, avail, is_cont);
  const uint64_t a0 = v.in_range(0xA0, 0xBF) & in, ta = tail_bits(p, avail, [](uint8_t b) { return b >= 0xA0 && b <= 0xBF; });
  const uint64_t x8 = v.in_range(0x80, 0x8F) & in, t8 = tail_bits(p, avail, [](uint8_t b) { return b >= 0x80 && b <= 0x8F; });
  const uint64_t c1 = (cont >> 1) | (tc << 63), c2 = (cont >> 2) | (tc << 62), c3 = (cont >> 3) | (tc << 61);
  const uint64_t second_a0 = (a0 >> 1) | (ta << 63), second_8x = (x8 >> 1) | (t8 << 63);
  const uint64_t bad_second = (v.eq(0xE0) & ~second_a0) | (v.eq(0xED) & second_a0) | (v.eq(0xF0) & second_8x) |
                              (v.eq(0xF4) & ~second_8x);
  const uint64_t ok2 = v.in_range(0xC2, 0xDF) & in & c1;
  const uint64_t ok34 = v.in_range(0xE0, 0xF4) & in & c1 & c2 & ~bad_second;
  const uint64_t ok4 = ok34 & v.in_range(0xF0, 0xF4) & c3;
  const uint64_t ok3 = ok34 & v.in_range(0xE0, 0xEF);
  const uint64_t lead = ok2 | ok3 | ok4, three_four = ok3 | ok4;
  const uint64_t covered = (lead << 1) | (three_four << 2) | (ok4 << 3) | carry;
  m.start = in & ~covered;
  m.tag[Other] |= hi & ~lead & ~covered;  // ill-formed bytes: U+FFFD's tag
  if (__builtin_popcountll(lead) <= 4) {
    for (uint64_t l = lead; l; l &= l - 1) {
      const int j = __builtin_ctzll(l);
      m.tag[scan_tables::lead_tag(p + j)] |= uint64_t(1) << j;
    }
  } else {
    alignas(64) uint8_t tags[64] = {};
    for (uint64_t l = lead; l; l &= l - 1) {
      const int j = __builtin_ctzll(l);
      tags[j] = scan_tables::lead_tag(p + j);
    }
    const simd8x64 t = simd8x64::load(tags);
    constexpr uint8_t kLeadTags[] = {Upper, Lower, LetterOther, Mark, Number, WsOther, Other};
    for (uint8_t tag : kLeadTags) m.tag[tag] |= t.eq(tag);
  }
  return uint32_t((lead >> 63) | (three_four >> 62) | (ok4 >> 61));
}

}  // namespace

uint32_t scan(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t blocks, ScanMasks* out) {
  for (uint32_t k = 0; k < blocks; k++) carry = scan_block(p + 64 * k, avail - 64 * k, carry, out[k]);
  return carry;
}

// Each cut's position stored twice at once (the end of its piece, the begin of the next):
// eight whatever the block's count, so that the loop's exit is a branch on the count.
uint32_t cut_pieces(const uint64_t* cuts, uint32_t blocks, uint32_t q0, uint32_t from, uint32_t* out) {
  out[0] = from;
  uint32_t n = 0;
  for (uint32_t k = 0; k < blocks; k++) {
    uint64_t cut = cuts[k];
    const uint32_t q = q0 + 64 * k, count = uint32_t(__builtin_popcountll(cut));
    uint32_t* o = out + 2 * n + 1;
    auto put = [&](uint32_t i, uint64_t bits) {
      const uint64_t pos = q + uint32_t(__builtin_ctzll(bits));
      const uint64_t twice = pos | (pos << 32);
      std::memcpy(o + 2 * i, &twice, 8);
    };
    for (uint32_t i = 0; i < 8; i++, cut &= cut - 1) put(i, cut | (uint64_t(1) << 63));  // (garbage past the count)
    for (uint32_t i = 8; i < count; i++, cut &= cut - 1) put(i, cut);
    n += count;
  }
  return n;
}

}  // namespace tagpipe::TAGPIPE_ARCH
