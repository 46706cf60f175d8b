// The ByteLevel decoder's per-token half: GPT-2's characters back to the bytes they stand for.
#include "common/utf8.h"
#include "decode/stages.h"
#include "pretokenize/bytelevel.h"

namespace tagpipe::decode {

void byte_level_token(std::string_view token, std::string& out) {
  const size_t start = out.size();
  const auto* s = reinterpret_cast<const uint8_t*>(token.data());
  for (size_t i = 0; i < token.size();) {
    const uint32_t len = utf8_length(s[i]);
    const int b = pretok::char_byte(code_point(s + i, len, uint32_t(token.size() - i)));
    if (b < 0) {  // a character that stands for no byte: the token is its own UTF-8
      out.resize(start);
      out.append(token);
      return;
    }
    out.push_back(char(b));
    i += len;
  }
}

}  // namespace tagpipe::decode
