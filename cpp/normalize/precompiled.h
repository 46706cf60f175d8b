// SentencePiece's precompiled_charsmap (T5, XLM-R, Marian, ...), as the oracle's
// spm_precompiled crate reads it: a little-endian u32 trie size in bytes, the trie (a
// darts-clone double array of u32 units over UTF-8 bytes), then the replacement strings,
// each ending in NUL.  A trie value is the offset of its replacement.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tagpipe::normalize {

class Charsmap {
 public:
  // Parses the decoded charsmap; throws std::invalid_argument when it is malformed.
  explicit Charsmap(std::string_view blob);

  // The oracle's transform(chunk): the replacement of the shortest key that is a prefix of
  // key[0..n) (the search stops at a NUL byte); -1 when no key is.  The length of that key
  // goes to `matched`.  -2: the trie walked out of its array (the oracle would panic).
  int64_t first_match(const uint8_t* key, uint32_t n, uint32_t& matched) const;
  std::string_view replacement(int64_t value) const;
  // Whether some key starts with byte b (else first_match is -1 wherever b starts).
  bool may_start(uint8_t b) const { return starts_[b >> 6] >> (b & 63) & 1; }
  // For ASCII a, b: whether a key starts with a at s where s[1] is b (b = 0: at the end).
  bool ascii_may_match(uint8_t a, uint8_t b) const { return ascii_pairs_[a * 128 + b]; }
  // Whether some key starts with the character cp (its UTF-8 bytes are a path of the trie).
  bool char_starts(uint32_t cp) const { return char_starts_[cp >> 6] >> (cp & 63) & 1; }

 private:
  std::vector<uint32_t> units_;
  std::string normalized_;
  uint64_t starts_[4] = {0, 0, 0, 0};
  std::vector<uint8_t> ascii_pairs_ = std::vector<uint8_t>(128 * 128, 1);
  std::vector<uint64_t> char_starts_ = std::vector<uint64_t>(0x110000 / 64, 0);

  void mark_chars(size_t pos, uint32_t cp, int left);
};

}  // namespace tagpipe::normalize
