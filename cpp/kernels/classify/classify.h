// classify: one pass over UTF-8 bytes -> one tag per byte + a char-start bitplane.
//
//   tags[i]   the alphabet's tag of the character that starts at byte i, or Cont (0) when
//             byte i continues a character;
//   starts    bit (i % 64) of word (i / 64) is set iff byte i starts a character; bits past
//             n in the last word are zero.
//
// Ill-formed UTF-8 (lone continuation bytes, overlongs, truncated sequences, encoded
// surrogates, code points past U+10FFFF, bytes C0 C1 F5..FF) never stops the pass: every
// byte that is not part of a well-formed sequence is a one-byte character with the tag of
// U+FFFD.  A lead byte is well-formed only together with all of its continuation bytes.
//
// Every kernel writes exactly what the scalar kernel writes (tests and cpp/selftest check).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/classify/alphabet.h"

namespace tagpipe {

using ClassifyFn = void (*)(const uint8_t* in, size_t n, const Alphabet& a, uint8_t* tags,
                            uint64_t* starts);

inline size_t start_words(size_t n) { return (n + 63) / 64; }

}  // namespace tagpipe
