// UTF-8 that may be invalid: what ByteLevel and ByteFallback make of byte tokens.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tagpipe::decode {

// The length of the longest prefix of s[0..n) that is valid UTF-8.
size_t utf8_valid_prefix(const uint8_t* s, size_t n);

inline bool is_utf8(std::string_view s) {
  return utf8_valid_prefix(reinterpret_cast<const uint8_t*>(s.data()), s.size()) == s.size();
}

// Appends s[0..n) to out with each maximal ill-formed subsequence replaced by one U+FFFD:
// Rust's String::from_utf8_lossy (the oracle's), which is also Python's errors="replace".
void append_lossy(std::string& out, const uint8_t* s, size_t n);

inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace tagpipe::decode
