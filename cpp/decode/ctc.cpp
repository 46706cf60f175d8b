// The CTC decoder.
#include "decode/stages.h"

namespace tagpipe::decode {

void ctc(const Step& s, const Tokens& in, Tokens& out, Arena& arena, std::string& tmp) {
  thread_local std::string clean;
  for (size_t i = 0; i < in.size(); i++) {
    if (i && in[i] == in[i - 1]) continue;  // a repeat
    tmp.clear();
    replace_all(in[i], s.pad_token, "", tmp);
    if (s.cleanup) {
      clean.clear();
      wordpiece_cleanup(tmp, clean);
      tmp.clear();
      replace_all(clean, s.word_delimiter_token, " ", tmp);
    }
    if (tmp.empty()) continue;
    out.push_back(tmp == in[i] ? in[i] : arena.copy(tmp));
  }
}

}  // namespace tagpipe::decode
