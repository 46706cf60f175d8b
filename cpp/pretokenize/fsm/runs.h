// Class-run splitters: pre-tokenizers whose segments are runs of one class, or single
// characters of a class, in the `unicode` alphabet -- found with the SIMD boundaries
// kernel (kernels/boundaries/boundaries.h).
//
//   whitespace        Whitespace         \w+|[^\w\s]+ : word runs and symbol runs kept, whitespace dropped
//   whitespace_split  WhitespaceSplit    char::is_whitespace characters removed
//   bert              BertPreTokenizer   whitespace removed, each punctuation character alone
//   punctuation       Punctuation        each punctuation character a match (behavior from the spec)
//   digits            Digits             each numeric character a match (Isolated / Contiguous)
#pragma once
#include <cstdint>
#include <string_view>

namespace tagpipe::fsm {

constexpr uint8_t kMatch = 0x40;  // class bit: segments of this class are matches

struct Runs {
  const char* name;
  uint8_t remap[16];  // unicode tag -> class (boundaries.h: 0 = Cont, kSingle, plus kMatch)
};

// nullptr when there is no splitter of that name.
const Runs* find_runs(std::string_view name);

}  // namespace tagpipe::fsm
