#include "decode/stream.h"

#include "decode/utf8.h"

namespace tagpipe::decode {
namespace {

bool ends_incomplete(const std::string& s) {
  return s.size() >= kReplacementChar.size() && s.compare(s.size() - 3, 3, kReplacementChar) == 0;
}

}  // namespace

bool DecodeStream::decode(const std::vector<uint32_t>& ids, std::string& out) {
  if (decoder_->decode(ids.data(), ids.size(), skip_, out) == Decoder::kOk) return true;
  failed_ = ids;
  return false;
}

DecodeStream::Status DecodeStream::step(const uint32_t* ids, size_t n, std::string& chunk) {
  std::string text;
  if (prefix_.empty() && !ids_.empty()) {  // (ids given at the start, or a prefix that was empty)
    if (!decode(ids_, text)) return kPanics;
    if (!ends_incomplete(text)) {
      prefix_ = text;
      prefix_index_ = ids_.size();
    }
  }
  ids_.insert(ids_.end(), ids, ids + n);
  if (!decode(ids_, text)) return kPanics;
  if (text.size() <= prefix_.size() || ends_incomplete(text)) return kWait;
  if (text.compare(0, prefix_.size(), prefix_) != 0) {
    error_ = "Invalid prefix encountered while decoding stream. Token ID: " + std::to_string(ids_.back()) +
             ", Expected prefix: '" + prefix_ + "', Actual string: '" + text + "'";
    return kInvalidPrefix;
  }
  chunk.assign(text, prefix_.size());
  const size_t new_prefix_index = ids_.size() - prefix_index_;
  ids_.erase(ids_.begin(), ids_.begin() + prefix_index_);
  if (!decode(ids_, prefix_)) return kPanics;
  prefix_index_ = new_prefix_index;
  return kChunk;
}

}  // namespace tagpipe::decode
