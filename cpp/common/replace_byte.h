// One byte replaced by a string of 1-4 bytes (' ' -> '▁'): the Replace normalizer's fast
// path and Metaspace's rewrite when no origins are kept.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tagpipe {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a byte is stored as the low one of a word");

// Appends `in` to `out` with every `from` byte as `to` (to.size() in 1..4).  No branch on
// the text (a space every few bytes defeats prediction): four bytes are stored at every
// step -- `to`, or the byte and three that the next step overwrites.
inline void append_replacing_byte(std::string_view in, uint8_t from, const std::string& to, std::string& out) {
  const size_t step = to.size(), at = out.size();
  const size_t size = in.size() + size_t(std::count(in.begin(), in.end(), char(from))) * (step - 1);
  uint32_t word = 0;
  std::memcpy(&word, to.data(), step);
  out.resize(at + size + 4);
  auto* d = reinterpret_cast<uint8_t*>(out.data()) + at;
  const auto* s = reinterpret_cast<const uint8_t*>(in.data());
  for (size_t i = 0; i < in.size(); i++) {
    const bool hit = s[i] == from;
    const uint32_t w = hit ? word : s[i];
    std::memcpy(d, &w, 4);
    d += hit ? step : 1;
  }
  out.resize(at + size);
}

}  // namespace tagpipe
