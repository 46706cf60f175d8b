// The class window of one 64-byte block: for every character start, its class bits, the
// class bits of the character before it and of the character after it -- all as 64-bit
// masks (bit j = byte q + j), so a regex family's state machine can decide its cuts for
// 64 bytes with a few dozen bit operations (pretokenize/fsm/blocks.h).
//
// A consumer remaps tags (< 16) to up to eight class bits with a 16-entry table (entry 0,
// Cont, must be 0).  Inside the piece [b, e), for block q (b <= q < e):
//   start    bit j set iff byte q + j (< e) starts a character
//   cur[k]   bit j set iff that character has class bit k
//   prev[k]  ... the character before it (none before b) has class bit k
//   next[k]  ... the character after it (none at or past e) has class bit k
// Tags must be readable from q - 4 to q + 68 (the tag buffers are padded).
#pragma once
#include <cstdint>

namespace tagpipe {

struct Window {
  uint64_t start;
  uint64_t cur[8], prev[8], next[8];
};

using WindowFn = void (*)(const uint8_t* tags, uint32_t q, uint32_t b, uint32_t e, const uint8_t* remap, Window& w);

}  // namespace tagpipe
