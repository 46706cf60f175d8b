// The scan algorithm, written once for every SIMD architecture (see scan.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA, and
// after kernels/scan/lead_tables.h (outside the target region: its tables are shared).
//
// ASCII bytes get their tags from byte predicates, one mask each (the regex alphabet's
// ASCII tags are ranges and single bytes: the generated table is checked against them
// below).  A block with bytes >= 0x80 also finds its well-formed sequences and looks up
// each one's tag from its first bytes (lead_tables.h): one at a time when there are few
// such bytes (sparse), else by masks as classify does (dense).
// No include guard: one copy per architecture namespace.

namespace tagpipe::TAGPIPE_ARCH {
namespace {

// What ScanAscii below assumes of the generated table.
constexpr bool ascii_predicates_hold() {
  using namespace tables::regex;
  for (int b = 0; b < 128; b++) {
    const int want = b >= 'A' && b <= 'Z'     ? Upper
                     : b >= 'a' && b <= 'z'   ? Lower
                     : b >= '0' && b <= '9'   ? Digit
                     : b == ' '               ? Space
                     : b == '\n' || b == '\r' ? Newline
                     : b >= 9 && b <= 13      ? WsOther
                     : b == '\''              ? Apostrophe
                     : b == '/'               ? Slash
                                              : Other;
    if (kAscii[b] != want) return false;
  }
  return tables::regex::kFffdTag == Other;
}
static_assert(ascii_predicates_hold(), "the regex alphabet's ASCII tags changed: update scan_generic.h");

// The ASCII bytes' tags (bits of bytes >= 0x80 and past `in` clear), merged as Merge
// says (scan.h); returns the bytes >= 0x80.
template <uint32_t Merge>
TAGPIPE_ALWAYS_INLINE uint64_t ascii_tags(const simd8x64& v, uint64_t in, ScanMasks& m) {
  using namespace tables::regex;
  const uint64_t hi = v.msb() & in;
  m.tag[Cont] = 0;
  m.tag[LetterOther] = m.tag[Mark] = m.tag[Number] = 0;
  if (Merge & kMergeCase) {
    m.tag[Upper] = (v | 0x20).in_range('a', 'z') & in;
    m.tag[Lower] = 0;
  } else {
    m.tag[Upper] = v.in_range('A', 'Z') & in;
    m.tag[Lower] = v.in_range('a', 'z') & in;
  }
  m.tag[Digit] = v.in_range('0', '9') & in;
  m.tag[Space] = v.eq(' ') & in;
  if (Merge & kMergeNewline) {
    m.tag[Newline] = 0;
    m.tag[WsOther] = v.in_range(9, 13) & in;
  } else {
    m.tag[Newline] = (v.eq('\n') | v.eq('\r')) & in;
    m.tag[WsOther] = v.in_range(9, 13) & in & ~m.tag[Newline];
  }
  m.tag[Apostrophe] = v.eq('\'') & in;
  m.tag[Slash] = Merge & kMergeSlash ? 0 : v.eq('/') & in;
  const uint64_t named = m.tag[Upper] | m.tag[Lower] | m.tag[Digit] | m.tag[Space] | m.tag[Newline] | m.tag[WsOther] |
                         m.tag[Apostrophe] | m.tag[Slash];
  m.tag[Other] = in & ~hi & ~named;
  return hi;
}

// Length of the well-formed sequence at p[j] (p[0..n) count), 0 if there is none (as
// scan_scalar.h).
TAGPIPE_ALWAYS_INLINE uint32_t sequence_length(const uint8_t* p, uint32_t n, uint32_t j) {
  const uint8_t b0 = p[j];
  uint32_t len;
  uint8_t lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) len = 3, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
  else if (b0 >= 0xF0 && b0 <= 0xF4) len = 4, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (j + len > n || p[j + 1] < lo || p[j + 1] > hi) return 0;
  for (uint32_t k = 2; k < len; k++)
    if ((p[j + k] & 0xC0) != 0x80) return 0;
  return len;
}

// A block with a few bytes >= 0x80 (English: a quote mark or an accented letter): each
// sequence found and looked up on its own.
TAGPIPE_ALWAYS_INLINE uint32_t sparse(const uint8_t* p, uint32_t avail, uint64_t in, uint64_t hi, uint32_t carry,
                                      ScanMasks& m) {
  const uint32_t n = avail < kScanReads ? avail : kScanReads;
  uint64_t covered = carry, todo = hi & ~uint64_t(carry);
  uint32_t end = 0;  // one past the last sequence
  while (todo) {
    const uint32_t j = uint32_t(__builtin_ctzll(todo));
    const uint32_t len = sequence_length(p, n, j);
    if (!len) {  // ill-formed: U+FFFD's tag
      m.tag[tables::regex::Other] |= uint64_t(1) << j;
      todo &= todo - 1;
      continue;
    }
    const uint64_t span = ((uint64_t(1) << len) - 1) << j;  // (bits past 63 fall off)
    m.tag[scan_tables::lead_tag_checked(p + j)] |= uint64_t(1) << j;
    covered |= span & ~(uint64_t(1) << j);
    todo &= ~span;
    end = j + len;
  }
  m.start = in & ~covered;
  return end > 64 ? (1u << (end - 64)) - 1 : 0;
}

// Bytes 64..66 (those below avail) as three bits of a predicate.
template <class Pred>
TAGPIPE_ALWAYS_INLINE uint64_t tail(const uint8_t* p, uint32_t avail, Pred pred) {
  uint64_t t = 0;
  for (uint32_t k = 0; k < 3; k++) t |= uint64_t(64 + k < avail && pred(p[64 + k])) << k;
  return t;
}

// A block with many bytes >= 0x80 (Russian, Chinese): the sequences found as classify finds
// them (classify_generic.h), by their structure -- a lead and as many continuation bytes
// as it asks for; the rare code point that is still not a scalar value (an overlong, a
// surrogate, past U+10FFFF) sends the block to sparse(), which checks every byte -- then
// each one's tag into a byte per position, and the masks from those bytes.
TAGPIPE_ALWAYS_INLINE uint32_t dense(const uint8_t* p, const simd8x64& v, uint32_t avail, uint64_t in, uint64_t hi,
                                     uint32_t carry, ScanMasks& m) {
  using namespace tables::regex;
  const uint64_t cont = v.in_range(0x80, 0xBF) & in;
  const uint64_t tc = tail(p, avail, [](uint8_t b) { return (b & 0xC0) == 0x80; });
  const uint64_t c1 = (cont >> 1) | (tc << 63), c2 = (cont >> 2) | (tc << 62), c3 = (cont >> 3) | (tc << 61);
  const uint64_t ok2 = v.in_range(0xC2, 0xDF) & in & c1;
  const uint64_t ok34 = v.in_range(0xE0, 0xF4) & in & c1 & c2;
  const uint64_t ok4 = ok34 & v.in_range(0xF0, 0xF4) & c3, ok3 = ok34 & ~v.in_range(0xF0, 0xF4);
  const uint64_t lead = ok2 | ok3 | ok4, three_four = ok3 | ok4;
  alignas(64) uint8_t tags[64] = {};
  for (uint64_t l = ok2; l; l &= l - 1) {  // (two-byte sequences: every one a scalar value)
    const int j = __builtin_ctzll(l);
    tags[j] = scan_tables::two_byte_tag(p + j);
  }
  uint32_t bad = 0;
  for (uint64_t l = ok3; l; l &= l - 1) {
    const int j = __builtin_ctzll(l);
    tags[j] = scan_tables::three_byte_tag(p + j, bad);
  }
  for (uint64_t l = ok4; l; l &= l - 1) {
    const int j = __builtin_ctzll(l);
    tags[j] = scan_tables::lead_tag_checked(p + j);
    bad |= tags[j] == scan_tables::kBad ? scan_tables::kBadBlock : 0;
  }
  if (TAGPIPE_UNLIKELY(bad & scan_tables::kBadBlock)) return sparse(p, avail, in, hi, carry, m);
  const uint64_t covered = (lead << 1) | (three_four << 2) | (ok4 << 3) | carry;
  m.start = in & ~covered;
  m.tag[Other] |= hi & ~lead & ~covered;  // ill-formed bytes: U+FFFD's tag
  const simd8x64 t = simd8x64::load(tags);
  constexpr uint8_t kLeadTags[] = {Upper, Lower, LetterOther, Mark, Number, WsOther, Other};
  for (uint8_t tag : kLeadTags) m.tag[tag] |= t.eq(tag);
  return uint32_t((lead >> 63) | (three_four >> 62) | (ok4 >> 61));
}

// The tag of ASCII byte b, merged as Merge says.
template <uint32_t Merge>
TAGPIPE_ALWAYS_INLINE uint64_t ascii_tag(uint8_t b) {
  using namespace tables::regex;
  const uint8_t t = kAscii[b];
  if ((Merge & kMergeCase) && t == Lower) return Upper;
  if ((Merge & kMergeNewline) && t == Newline) return WsOther;
  if ((Merge & kMergeSlash) && t == Slash) return Other;
  return t;
}

template <uint32_t Merge>
TAGPIPE_ALWAYS_INLINE uint32_t scan_block(const uint8_t* p, uint32_t avail, uint32_t carry, ScanMasks& m) {
  const simd8x64 v = simd8x64::load(p);
  const uint64_t in = avail >= 64 ? ~uint64_t(0) : (uint64_t(1) << avail) - 1;
  const uint64_t hi = ascii_tags<Merge>(v, in, m);
  if (TAGPIPE_LIKELY(hi == 0)) {  // (carry is 0 too: a continued character's bytes are >= 0x80)
    m.start = in;
    m.first = ascii_tag<Merge>(p[0]);
    return 0;
  }
  const uint32_t next =
      __builtin_popcountll(hi) <= 8 ? sparse(p, avail, in, hi, carry, m) : dense(p, v, avail, in, hi, carry, m);
  m.first = 0;
  if (m.start) {  // (the tag of the character at the first start: a lead's, an ASCII byte's, or U+FFFD's)
    const uint32_t j = uint32_t(__builtin_ctzll(m.start));
    m.first = p[j] < 0x80                                                      ? ascii_tag<Merge>(p[j])
              : sequence_length(p, avail < kScanReads ? avail : kScanReads, j) ? scan_tables::lead_tag_checked(p + j)
                                                                               : uint8_t(tables::regex::Other);
  }
  return next;
}

template <uint32_t Merge>
uint32_t scan_blocks(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t blocks, ScanMasks* out) {
  for (uint32_t k = 0; k < blocks; k++) carry = scan_block<Merge>(p + 64 * k, avail - 64 * k, carry, out[k]);
  return carry;
}

}  // namespace

uint32_t scan(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t blocks, uint32_t merge, ScanMasks* out) {
  switch (merge & kMergeAll) {  // (one loop per set of merges, each with its predicates only)
    case 0:
      return scan_blocks<0>(p, avail, carry, blocks, out);
    case 1:
      return scan_blocks<1>(p, avail, carry, blocks, out);
    case 2:
      return scan_blocks<2>(p, avail, carry, blocks, out);
    case 3:
      return scan_blocks<3>(p, avail, carry, blocks, out);
    case 4:
      return scan_blocks<4>(p, avail, carry, blocks, out);
    case 5:
      return scan_blocks<5>(p, avail, carry, blocks, out);
    case 6:
      return scan_blocks<6>(p, avail, carry, blocks, out);
    default:
      return scan_blocks<7>(p, avail, carry, blocks, out);
  }
}

// The cuts' positions from a table a mask byte at a time -- eight of them written whatever
// the byte's count (offset as one vector), with no branch on the mask (a
// tzcnt loop paid a mispredicted exit and a dependent chain per cut) -- then each written
// twice, as the end of its piece and the begin of the next.
uint32_t cut_pieces(const uint64_t* cuts, uint32_t blocks, uint32_t q0, uint32_t from, uint32_t* out) {
  typedef uint32_t u32x8 __attribute__((vector_size(32)));
  constexpr uint32_t kRound = 64;  // blocks
  uint32_t at[64 * kRound + 8];
  uint32_t total = 0;
  out[0] = from;
  for (uint32_t k0 = 0; k0 < blocks; k0 += kRound) {
    const uint32_t round = blocks - k0 < kRound ? blocks - k0 : kRound;
    uint32_t n = 0;
    for (uint32_t k = 0; k < round; k++) {
      const uint64_t cut = cuts[k0 + k];
      const uint32_t q = q0 + 64 * (k0 + k);
      if (!cut) continue;  // (a block inside a long word)
      for (uint32_t b = 0; b < 8; b++) {
        const uint32_t byte = uint32_t(cut >> (8 * b)) & 0xFF;
        u32x8 pos;
        std::memcpy(&pos, scan_tables::kBitTables.positions[byte], sizeof pos);
        pos += q + 8 * b;
        std::memcpy(at + n, &pos, sizeof pos);
        n += scan_tables::kBitTables.count[byte];
      }
    }
    uint32_t* o = out + 2 * total + 1;
    for (uint32_t i = 0; i < n; i++) o[2 * i] = o[2 * i + 1] = at[i];
    total += n;
  }
  return total;
}

}  // namespace tagpipe::TAGPIPE_ARCH
