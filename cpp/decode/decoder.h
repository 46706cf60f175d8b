// A tokenizer's decode: ids -> their tokens (the model's id -> token map, the added tokens
// over it) -> the decoder chain -> one string, as the oracle's TokenizerImpl::decode.
//
// The chain's leading per-token decoders (Replace, Metaspace, WordPiece, BPEDecoder, Strip,
// and the per-token half of ByteLevel) are run once per vocabulary entry when the Decoder is
// built: a decode then reads each token already through them, and runs them again only on
// the first and last tokens where one of them treats those apart.  The rest of the chain
// runs per call on the list of tokens.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "decode/arena.h"
#include "decode/step.h"
#include "decode/table.h"

namespace tagpipe::decode {

struct DecoderSpec {
  std::vector<Step> steps;       // the decoder section, a Sequence flattened
  bool join_with_space = false;  // no decoder section: the tokens are joined by spaces
  // (id, token): the model's tokens, and the added tokens (their decoded form), which
  // replace the model's of the same id.
  std::vector<std::pair<uint32_t, std::string>> model, added;
  std::vector<std::string> special;  // skip_special_tokens drops a token equal to one of these
};

class Decoder {
 public:
  explicit Decoder(DecoderSpec&& spec);

  enum Result : uint8_t { kOk = 0, kPanics = 1 };  // kPanics: the oracle panics on these ids
  Result decode(const uint32_t* ids, size_t n, bool skip_special, std::string& out) const;

  struct Doc {
    const uint32_t* ids;
    size_t size;
  };
  // Each document on up to `threads` threads; results[i], status[i] as decode's.
  void decode_batch(const std::vector<Doc>& docs, bool skip_special, int threads, std::vector<std::string>& results,
                    std::vector<uint8_t>& status) const;

  size_t folded() const { return head_; }  // how many of the steps run per vocabulary entry
  size_t table_bytes() const { return raw_.bytes() + (head_ ? folded_.bytes() : 0); }

 private:
  // What runs per call, after the folded steps.
  struct Stage {
    enum Op : uint8_t { kMap, kLossyJoin, kByteLevel, kByteFallback, kCtc, kFuse } op;
    const Step* step;
  };
  bool map_head(std::string_view raw, bool first, bool last, std::string& out, std::string& tmp) const;
  Result tokens_of(const uint32_t* ids, size_t n, bool skip_special, Scratch& s) const;
  Result run_tail(Scratch& s, std::string& out) const;

  std::vector<Step> steps_;
  std::vector<Stage> tail_;
  size_t head_ = 0;                              // steps_[0, head_) are folded into folded_
  bool head_first_ = false, head_last_ = false;  // a folded step treats the first / last token apart
  std::string sep_;                              // what joins the final tokens
  Table raw_, folded_;
};

// Runs a per-token step on one token; false where the oracle panics.
bool map_token(const Step& s, std::string_view in, bool first, bool last, std::string& out);

}  // namespace tagpipe::decode
