// The scalar scan kernel: the specification the SIMD ones are checked against.
// Plain on purpose -- the characters one at a time, found as classify_scalar.h finds them.
// Included once, by arch/scalar.cpp (no include guard).
#include "alphabet_regex.h"
#include "common/utf8.h"
#include "kernels/classify/alphabet.h"
#include "kernels/scan/scan.h"

namespace tagpipe::scalar {

uint8_t scan_char(const uint8_t* s, uint32_t n, uint32_t* len) {
  const Alphabet& a = alphabet(AlphabetId::regex);
  if (s[0] < 0x80) {
    *len = 1;
    return a.ascii[s[0]];
  }
  *len = utf8_valid_length(s, n, 0);
  if (*len == 0) {
    *len = 1;
    return a.fffd_tag;
  }
  return a.lookup(code_point(s, *len, *len));
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
