// The BPEDecoder.
#include "decode/stages.h"

namespace tagpipe::decode {

void bpe_token(const Step& s, std::string_view token, bool last, std::string& out) {
  replace_all(token, s.suffix, last ? "" : " ", out);
}

}  // namespace tagpipe::decode
