// The Metaspace decoder.
#include "decode/stages.h"

namespace tagpipe::decode {

void metaspace_token(const Step& s, std::string_view token, bool first, std::string& out) {
  const std::string_view mark = s.replacement;
  const bool drop = first && s.prepended;
  size_t at = 0;
  for (size_t hit; (hit = token.find(mark, at)) != std::string_view::npos; at = hit + mark.size()) {
    out.append(token.substr(at, hit - at));
    if (!drop) out.push_back(' ');
  }
  out.append(token.substr(at));
}

}  // namespace tagpipe::decode
