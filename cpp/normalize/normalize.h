// Native normalizers: the ones tagpipe runs itself, each exactly as the oracle's
// (tokenizers/src/normalizers).  A normalizer turns one gap of text (between added
// tokens) into the content the pre-tokenizer reads, with the origin of every byte when
// asked (Metaspace's prepend_scheme "first" needs to know which piece starts at 0).
//
//   prepend  Prepend(s): s before a non-empty text
//   replace  Replace with a String pattern: every leftmost, non-overlapping occurrence
//   nfc      NFC, when the text passes the quick check (every character Inert in the nfc
//            alphabet): then NFC is the identity.  Otherwise the caller must delegate.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pretok/text.h"

namespace tagpipe::normalize {

struct Step {
  enum class Kind : uint8_t { Prepend, Replace, Nfc };
  Kind kind;
  std::string a, b;  // Prepend: a = what; Replace: a = pattern, b = content
};

struct Scratch {
  std::vector<uint8_t> tags;
  std::vector<uint64_t> starts;
  std::string buf[2];
  std::vector<pretok::Origin> origin[2];
};

class Normalizer {
 public:
  explicit Normalizer(std::vector<Step> steps) : steps_(std::move(steps)) {}
  bool empty() const { return steps_.empty(); }

  // Normalizes in[0..n) into `out` (which aliases `in` when nothing changes).  Returns
  // false when this text needs a normalization tagpipe does not run (delegate the call).
  bool run(const uint8_t* in, uint32_t n, pretok::Text& out, Scratch& scratch, bool need_origin) const;

 private:
  std::vector<Step> steps_;
};

}  // namespace tagpipe::normalize
