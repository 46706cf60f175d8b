// The Strip decoder.
#include "decode/stages.h"

namespace tagpipe::decode {

bool strip_token(const Step& s, std::string_view token, std::string_view* out) {
  const std::string_view c = s.content;  // one character
  size_t begin = 0;
  for (uint64_t i = 0; i < s.start && token.substr(begin, c.size()) == c; i++) begin += c.size();
  size_t end = token.size();
  for (uint64_t i = 0; i < s.stop; i++) {
    if (end == 0) return false;  // every character stripped and more asked for: the oracle panics
    if (end < c.size() || token.substr(end - c.size(), c.size()) != c) break;
    end -= c.size();
  }
  if (begin > end) return false;  // the cuts cross: the oracle's slice panics
  *out = token.substr(begin, end - begin);
  return true;
}

}  // namespace tagpipe::decode
