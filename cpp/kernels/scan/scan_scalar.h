// The scalar scan kernel: the specification the SIMD ones are checked against.
// Plain on purpose -- the characters one at a time, found as classify_scalar.h finds them.
// Included once, by arch/scalar.cpp (no include guard).
#include "alphabet_regex.h"
#include "kernels/classify/alphabet.h"
#include "kernels/scan/scan.h"

namespace tagpipe::scalar {
// (helpers apart from classify_scalar.h's, which arch/scalar.cpp compiles in the same unit)
namespace scan_spec {
namespace {

bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence at s[i] (s[0..n) count), or 0 if there is none.
uint32_t sequence_length(const uint8_t* s, uint32_t n, uint32_t i) {
  const uint8_t b0 = s[i];
  uint32_t len;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + len > n) return 0;
  if (s[i + 1] < lo || s[i + 1] > hi) return 0;
  for (uint32_t k = 2; k < len; k++)
    if (!is_cont(s[i + k])) return 0;
  return len;
}

uint32_t decode(const uint8_t* s, uint32_t len) {
  uint32_t cp = s[0] & (0xFF >> (len + 1));
  for (uint32_t k = 1; k < len; k++) cp = (cp << 6) | (s[k] & 0x3F);
  return cp;
}

}  // namespace
}  // namespace scan_spec

uint8_t scan_char(const uint8_t* s, uint32_t n, uint32_t* len) {
  const Alphabet& a = alphabet(AlphabetId::regex);
  if (s[0] < 0x80) {
    *len = 1;
    return a.ascii[s[0]];
  }
  *len = scan_spec::sequence_length(s, n, 0);
  if (*len == 0) {
    *len = 1;
    return a.fffd_tag;
  }
  return a.lookup(scan_spec::decode(s, *len));
}

namespace scan_spec {
namespace {

uint8_t merged(uint8_t tag, uint8_t byte, uint32_t merge) {
  using namespace tables::regex;
  if (byte >= 0x80) return tag;
  if ((merge & kMergeCase) && tag == Lower) return Upper;
  if ((merge & kMergeNewline) && tag == Newline) return WsOther;
  if ((merge & kMergeSlash) && tag == Slash) return Other;
  return tag;
}

uint32_t scan_block(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t merge, ScanMasks& out) {
  out = ScanMasks{};
  const uint32_t n = avail < kScanReads ? avail : kScanReads;  // the bytes that count
  const uint32_t stop = avail < 64 ? avail : 64;
  uint32_t i = 0;
  while (i < 3 && ((carry >> i) & 1)) i++;  // the end of a character from the block before
  while (i < stop) {
    uint32_t len;
    const uint8_t tag = merged(scan_char(p + i, n - i, &len), p[i], merge);
    if (!out.start) out.first = tag;
    out.start |= uint64_t(1) << i;
    out.tag[tag] |= uint64_t(1) << i;
    i += len;
  }
  return i > 64 ? (1u << (i - 64)) - 1 : 0;
}

}  // namespace
}  // namespace scan_spec

uint32_t scan(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t blocks, uint32_t merge, ScanMasks* out) {
  for (uint32_t k = 0; k < blocks; k++) carry = scan_spec::scan_block(p + 64 * k, avail - 64 * k, carry, merge, out[k]);
  return carry;
}

uint32_t cut_pieces(const uint64_t* cuts, uint32_t blocks, uint32_t q0, uint32_t from, uint32_t* out) {
  uint32_t n = 0, begin = from;
  for (uint32_t k = 0; k < blocks; k++)
    for (uint32_t j = 0; j < 64; j++)
      if ((cuts[k] >> j) & 1) {
        out[2 * n] = begin;
        out[2 * n + 1] = begin = q0 + 64 * k + j;
        n++;
      }
  return n;
}

}  // namespace tagpipe::scalar
