// One byte replaced by a string of 0-4 bytes (' ' -> '▁'): the Replace normalizer's fast
// path and Metaspace's rewrite when no origins are kept.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "dispatch/kernels.h"
#include "kernels/replace/replace.h"

namespace tagpipe {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a byte is stored as the low one of a word");

// Appends `in` to `out` with every `from` byte as `to` (to.size() in 0..4), by the active
// kernel (kernels/replace/replace.h).
inline void append_replacing_byte(std::string_view in, uint8_t from, const std::string& to, std::string& out) {
  const size_t at = out.size();
  // (Counted with no branch: std::count's `if` mispredicts on a space every few bytes.  In
  // blocks of 255 into a byte, which the compiler sums 16 or more at a time; a size_t count
  // widens every compare to 64 bits.)
  size_t hits = 0;
  for (size_t b = 0; b < in.size(); b += 255) {
    uint8_t block = 0;
    for (size_t k = b, e = std::min(in.size(), b + 255); k < e; k++) block += uint8_t(in[k]) == from;
    hits += block;
  }
  const size_t size = in.size() - hits + hits * to.size();
  const ReplaceSpec r = ReplaceSpec::of(from, to.data(), to.size());
  out.resize(at + size + kReplaceSlack);
  kernels::active().replace_byte(reinterpret_cast<const uint8_t*>(in.data()), in.size(), r,
                                 reinterpret_cast<uint8_t*>(out.data()) + at);
  out.resize(at + size);
}

}  // namespace tagpipe
