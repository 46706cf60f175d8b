// One decoder of a tokenizer.json's "decoder" section, as the plan (tagpipe.plan.decoders)
// builds it: a Sequence is flattened into a list of these, in order.  The fields are the
// JSON's, each used by the kinds named beside it.
#pragma once
#include <cstdint>
#include <string>

namespace tagpipe::decode {

struct Step {
  enum class Kind : uint8_t { ByteLevel, Metaspace, WordPiece, BPEDecoder, CTC, Replace, Fuse, Strip, ByteFallback };
  Kind kind = Kind::Fuse;
  std::string pattern;                     // Replace: the literal string (a regex is never native)
  std::string content;                     // Replace: what replaces it; Strip: the character
  std::string replacement;                 // Metaspace: the character
  bool prepended = true;                   // Metaspace: prepend_scheme is not "never" (the first token drops it)
  std::string prefix = "##";               // WordPiece
  bool cleanup = true;                     // WordPiece, CTC
  std::string suffix = "</w>";             // BPEDecoder
  std::string pad_token = "<pad>";         // CTC
  std::string word_delimiter_token = "|";  // CTC
  uint64_t start = 0, stop = 0;            // Strip: how many characters at most, each end
};

}  // namespace tagpipe::decode
