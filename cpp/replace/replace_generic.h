// The replace algorithm, written once for every SIMD architecture (see replace.h).
// Included by replace_<arch>.cpp after simd/<arch>.h, with TAGPIPE_ARCH set.
//
// Eight input bytes at a time: one compare gives the mask of `from` bytes, and the mask
// picks a precomputed shuffle that spreads the eight bytes out and puts the replacement in
// the holes -- two 16-byte shuffles (up to 32 output bytes) stored whole; the output
// pointer then moves by that mask's length.  No branch on the text: a space every few
// bytes defeats prediction.  The last 0-7 bytes go through the scalar kernel.
// No include guard: one copy per architecture namespace.
#include <cstring>

namespace tagpipe::TAGPIPE_ARCH {

uint8_t* replace_byte(const uint8_t* s, size_t n, const ReplaceSpec& r, uint8_t* d) {
  const ReplaceShuffles& t = replace_shuffles(r.size);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t eight;
    std::memcpy(&eight, s + i, 8);
    const Bytes16 src = Bytes16::halves(eight, r.word);
    const unsigned m = src.low8_eq(r.from);
    src.shuffle(t.index[m]).store(d);
    src.shuffle(t.index[m] + 16).store(d + 16);
    d += t.length[m];
  }
  return scalar::replace_byte(s + i, n - i, r, d);
}

}  // namespace tagpipe::TAGPIPE_ARCH
