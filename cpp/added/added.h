// Added tokens, split out of the text exactly as the oracle's AddedVocabulary does
// (tokenizers/src/tokenizer/added_vocabulary.rs, find_matches):
//   - leftmost-longest matches of the token strings (daachorse LeftmostLongest);
//   - a single_word token is skipped unless no word character (regex \w) touches it on
//     either side -- and the text it covered is not searched again;
//   - lstrip takes the whitespace before the token (not before the previous split's end),
//     rstrip the whitespace after it (even past where the next match starts: the oracle
//     then reports overlapping ranges, and so do we).
// Tokens with normalized=false are matched on the raw text, the others on each normalized
// gap, by their normalized form; each kind gets its own Splitter.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/find/find.h"

namespace tagpipe::added {

struct Token {
  std::string text;  // what is matched (the normalized form for normalized tokens)
  uint32_t id;
  bool single_word = false, lstrip = false, rstrip = false;
};

struct Segment {
  uint32_t id;  // the token's (any u32: the oracle takes 2^32 - 1 too); 0 for text
  uint32_t begin, end;
  bool text;  // text between tokens, not a token
  static Segment of_text(uint32_t begin, uint32_t end) { return {0, begin, end, true}; }
};

class Splitter {
 public:
  explicit Splitter(std::vector<Token> tokens);
  bool empty() const { return tokens_.empty(); }
  // Appends the segments of s[0..n) (as find_matches: a text segment for "" too).
  void split(const uint8_t* s, uint32_t n, std::vector<Segment>& out) const;

 private:
  struct Node {
    int32_t token = -1;                             // index into tokens_ of the token ending here
    std::vector<std::pair<uint8_t, int32_t>> next;  // sorted by byte
  };
  int32_t child(int32_t node, uint8_t b) const;
  // The longest token starting at s[i], or -1; its end in *end.
  int32_t longest(const uint8_t* s, uint32_t n, uint32_t i, uint32_t* end) const;

  std::vector<Token> tokens_;
  std::vector<Node> trie_;
  bool first_byte_[256] = {};
  int only_first_byte_ = -1;  // when every token starts with the same byte: memchr for it
  // When 2..kFindBytes bytes start them: those bytes (repeated to fill), for the find kernel.
  uint8_t first_bytes_[kFindBytes] = {};
  bool find_first_ = false;
};

}  // namespace tagpipe::added
