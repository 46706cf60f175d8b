// Decoding ids as a generation loop makes them, one chunk of text at a time: the oracle's
// DecodeStream (tokenizers/src/tokenizer/mod.rs, step_decode_stream).
//
// It keeps the ids since the last chunk's start and the text they decoded to (the prefix);
// each step decodes them with the new ids and returns what follows the prefix -- unless the
// text ends in U+FFFD (an incomplete character: wait for more ids) or is no longer than the
// prefix.  Decoding the window, not the new ids alone, keeps what depends on neighbours
// (Metaspace's and Strip's first-token rules, WordPiece's joins, a character split across
// byte tokens) as decoding the whole sequence would.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/decoder.h"

namespace tagpipe::decode {

class DecodeStream {
 public:
  DecodeStream(std::shared_ptr<const Decoder> decoder, bool skip_special, std::vector<uint32_t> ids = {})
      : decoder_(std::move(decoder)), skip_(skip_special), ids_(std::move(ids)) {}

  enum Status {
    kChunk,          // `chunk` is the next text
    kWait,           // no text yet
    kPanics,         // the oracle panics decoding failed_ids()
    kInvalidPrefix,  // the oracle raises: error() is its message
  };
  Status step(const uint32_t* ids, size_t n, std::string& chunk);

  const std::vector<uint32_t>& failed_ids() const { return failed_; }
  const std::string& error() const { return error_; }
  const std::vector<uint32_t>& ids() const { return ids_; }
  const std::string& prefix() const { return prefix_; }
  bool skip_special() const { return skip_; }

 private:
  bool decode(const std::vector<uint32_t>& ids, std::string& out);

  std::shared_ptr<const Decoder> decoder_;
  bool skip_;
  std::vector<uint32_t> ids_;  // the window: what the prefix was read from, and the ids since
  std::string prefix_;         // the text of ids_[0, prefix_index_)
  size_t prefix_index_ = 0;
  std::vector<uint32_t> failed_;
  std::string error_;
};

}  // namespace tagpipe::decode
