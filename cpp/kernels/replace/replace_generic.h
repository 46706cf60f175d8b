// The replace algorithm, written once for every SIMD architecture (see replace.h).
// Included by arch/<isa>.cpp after simd/<isa>.h, with TAGPIPE_ARCH set to the ISA.
//
// Eight input bytes at a time: one compare gives the mask of `from` bytes, and the mask
// picks a precomputed shuffle that spreads the eight bytes out and puts the replacement in
// the holes -- two 16-byte shuffles (up to 32 output bytes) stored whole; the output
// pointer then moves by that mask's length.  No branch on the text: a space every few
// bytes defeats prediction.  The last 1-7 bytes the same way when eight bytes are readable
// there (the mask cut to them, the bytes after them left in the output's slack), else
// through the scalar kernel.  (gemma-3 normalizes each line apart -- its '\n' is an added
// token -- so a text is mostly tails.)
// No include guard: one copy per architecture namespace.
#include <cstring>

#include "common/read_ahead.h"

namespace tagpipe::TAGPIPE_ARCH {

uint8_t* replace_byte(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d) {
  const ReplaceShuffles& t = replace_shuffles(r.size);
  // The eight bytes at p spread out at d, those of `keep`'s bits that are `from` replaced;
  // returns their mask.
  auto expand = [&](const uint8_t* p, unsigned keep) {
    uint64_t eight;
    std::memcpy(&eight, p, 8);
    const Bytes16 src = Bytes16::halves(eight, r.word);
    const unsigned m = src.low8_eq(r.from) & keep;
    src.shuffle(t.index[m]).store(d);
    src.shuffle(t.index[m] + 16).store(d + 16);
    return m;
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) d += t.length[expand(s + i, 0xFF)];
  if (i < n && may_read_ahead(s + i, 8)) {
    const unsigned left = unsigned(n - i), hits = unsigned(__builtin_popcount(expand(s + i, (1u << left) - 1)));
    return d + left - hits + hits * r.size;
  }
  return scalar::replace_byte(s + i, n - i, r, d);
}

}  // namespace tagpipe::TAGPIPE_ARCH
