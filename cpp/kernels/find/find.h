// Which of 64 bytes are in a small set: the added-token splitter's search for the bytes its
// tokens start with (added/added.cpp), when there are a few of them (gemma-3: '<', '\n',
// '\t', the first byte of '▁', '['), 64 bytes per step instead of a table lookup a byte.
//
// Bit k of the result is set iff t[k] equals one of the kFindBytes bytes at `set`
// (repeats allowed).  t[0..63] must be readable.
#pragma once
#include <cstdint>

namespace tagpipe {

constexpr int kFindBytes = 8;

using FindBytesFn = uint64_t (*)(const uint8_t* t, const uint8_t* set);

}  // namespace tagpipe
