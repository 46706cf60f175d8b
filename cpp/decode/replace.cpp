// The Replace decoder (a Replace normalizer with a String pattern, as a decoder), and the
// literal replace the other decoders use.
#include "decode/stages.h"

namespace tagpipe::decode {

void replace_all(std::string_view in, std::string_view from, std::string_view to, std::string& out) {
  if (from.empty()) {  // before each character, and at the end
    for (size_t i = 0; i < in.size();) {
      const uint8_t b = uint8_t(in[i]);
      const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      out.append(to).append(in.substr(i, len));
      i += len;
    }
    out.append(to);
    return;
  }
  size_t at = 0;
  for (size_t hit; (hit = in.find(from, at)) != std::string_view::npos; at = hit + from.size())
    out.append(in.substr(at, hit - at)).append(to);
  out.append(in.substr(at));
}

void replace_token(const Step& s, std::string_view token, std::string& out) {
  // The oracle matches the escaped pattern with its regex engine: like str::replace, except
  // that an empty pattern finds nothing in an empty token.
  if (s.pattern.empty() && token.empty()) return;
  replace_all(token, s.pattern, s.content, out);
}

}  // namespace tagpipe::decode
