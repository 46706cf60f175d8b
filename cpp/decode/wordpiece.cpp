// The WordPiece decoder, and its cleanup (CTC's too).
#include "decode/stages.h"

namespace tagpipe::decode {

void wordpiece_cleanup(std::string_view in, std::string& out) {
  // Applied one after the other, each to what the one before made.  Each starts with a space.
  static constexpr std::string_view kRules[][2] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  if (in.find(' ') == std::string_view::npos) {
    out.append(in);
    return;
  }
  thread_local std::string a, b;
  a.assign(in);
  for (const auto& rule : kRules) {
    if (a.find(rule[0]) == std::string::npos) continue;
    b.clear();
    replace_all(a, rule[0], rule[1], b);
    a.swap(b);
  }
  out.append(a);
}

void wordpiece_token(const Step& s, std::string_view token, bool first, std::string& out) {
  thread_local std::string joined;
  if (!first) {
    if (token.substr(0, s.prefix.size()) == s.prefix) {
      token.remove_prefix(s.prefix.size());
    } else {
      joined.assign(" ").append(token);
      token = joined;
    }
  }
  if (s.cleanup) {
    wordpiece_cleanup(token, out);
  } else {
    out.append(token);
  }
}

}  // namespace tagpipe::decode
