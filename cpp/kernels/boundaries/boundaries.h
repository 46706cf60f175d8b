// Segment boundaries of a run-split pre-tokenizer, from the tag stream.
//
// A consumer remaps tags (< 16) to its classes with a 16-entry table: 0 for Cont (entry
// 0 must be 0), and for a character its class, with bit 7 (kSingle) set when every
// character of that class is a segment of its own (a character-predicate match: one
// Punctuation character, one whitespace character to remove, ...).
//
// boundaries() writes, in increasing order, every i in (b, e) where a new segment starts:
// i starts a character and its class differs from the class of the character before it,
// or its class is single.  b must start a character; tags must be readable from b - 4 to
// e + 63 (the tag buffers are padded).  Returns how many it wrote (at most e - b - 1).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tagpipe {

constexpr uint8_t kSingle = 0x80;

using BoundariesFn = size_t (*)(const uint8_t* tags, uint32_t b, uint32_t e, const uint8_t* remap, uint32_t* out);

}  // namespace tagpipe
