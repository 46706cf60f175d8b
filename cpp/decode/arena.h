// The token lists a decode passes from stage to stage: views of the vocabulary's strings, or
// of strings a stage made, which live in an Arena until the call ends.
#pragma once
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tagpipe::decode {

using Tokens = std::vector<std::string_view>;

// Strings that never move once made (views into them stay valid), freed all at once by
// clear(), which keeps the memory for the next call.
class Arena {
 public:
  std::string_view copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = alloc(s.size());
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  void clear() { block_ = used_ = 0; }

 private:
  char* alloc(size_t n) {
    while (block_ < blocks_.size()) {
      if (used_ + n <= blocks_[block_].size) {
        char* p = blocks_[block_].data.get() + used_;
        used_ += n;
        return p;
      }
      block_++, used_ = 0;
    }
    const size_t size = n > kBlock ? n : kBlock;
    blocks_.push_back({std::make_unique<char[]>(size), size});
    used_ = n;
    return blocks_.back().data.get();
  }
  static constexpr size_t kBlock = 64 << 10;
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };
  std::vector<Block> blocks_;
  size_t block_ = 0, used_ = 0;
};

// What one thread reuses from call to call.
struct Scratch {
  std::vector<uint32_t> kept;  // the ids that have a token (and are not skipped)
  Tokens a, b;                 // a stage reads one, writes the other
  Arena arena;
  std::string text, tmp;
};

}  // namespace tagpipe::decode
