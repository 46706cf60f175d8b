// id -> token string, every string in one buffer, with a few flags per id.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tagpipe::decode {

class Table {
 public:
  enum Flag : uint8_t { kPresent = 1, kSpecial = 2, kPanics = 4 };

  // Room for ids below `bound`, none present.
  void reset(size_t bound) {
    blob_.clear();
    begin_.assign(bound + 1, 0);
    flags_.assign(bound, 0);
  }
  // Appends id's string: ids must come in increasing order.
  void put(uint32_t id, std::string_view s, uint8_t flags) {
    if (blob_.size() + s.size() > UINT32_MAX) throw std::length_error("decoder vocabulary over 4 GiB");
    for (size_t i = next_; i <= id; i++) begin_[i] = uint32_t(blob_.size());
    blob_.append(s);
    flags_[id] = flags | kPresent;
    next_ = size_t(id) + 1;
    begin_[next_] = uint32_t(blob_.size());
  }
  void finish() {
    for (size_t i = next_; i < begin_.size(); i++) begin_[i] = uint32_t(blob_.size());
  }

  size_t bound() const { return flags_.size(); }
  uint8_t flags(uint32_t id) const { return id < flags_.size() ? flags_[id] : 0; }
  std::string_view get(uint32_t id) const { return {blob_.data() + begin_[id], size_t(begin_[id + 1] - begin_[id])}; }
  size_t bytes() const { return blob_.size() + begin_.size() * 4 + flags_.size(); }

 private:
  std::string blob_;
  std::vector<uint32_t> begin_;
  std::vector<uint8_t> flags_;
  size_t next_ = 0;
};

}  // namespace tagpipe::decode
