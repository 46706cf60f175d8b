// scan: the regex alphabet's tags (alphabet_regex.h) of one 64-byte block of a piece, as
// masks, straight from its bytes -- no tag array.  The gpt2, cl100k and o200k families read
// their blocks through it (pretokenize/fsm/scan_blocks.h).
//
// For the blocks at p, p + 64, ... (`blocks` of them) of a piece whose bytes from p on are
// p[0..avail) (avail > 0; the piece ends there, whatever follows in memory), and `carry`:
// which of p[0..2] continue a character that started before p (bits 0..2: what the call
// for the block before returned; 0 for the piece's first block), out[k] holds block k:
//   start    bit j set iff byte 64k + j (< avail) starts a character
//   tag[t]   bit j set iff a character with tag t starts there (tag[0], Cont, is 0)
//   first    the tag of the block's first character (0 when none starts in it)
// The characters are those classify (classify/classify.h) finds in the piece alone: a byte
// that is not part of a well-formed sequence is a one-byte character with the tag of U+FFFD.
// `merge` (ScanMerge bits) folds tags of ASCII characters that the caller's classes do not
// tell apart into one, so that those take fewer predicates.  Returns the carry for the block
// after the last: which of its first three bytes continue a character that starts before
// it.  p[0..64 * (blocks - 1) + kScanReads) must be readable (bytes from avail on are never
// counted).
//
// Every kernel returns exactly what the scalar kernel returns (cpp/selftest checks).
#pragma once
#include <cstdint>

#include "alphabet_regex.h"

namespace tagpipe {

constexpr int kScanTags = tables::regex::kTagCount;

struct ScanMasks {
  uint64_t start;
  uint64_t tag[kScanTags];
  uint64_t first;  // (a whole word: no padding for a memcmp to trip on)
};

// The bytes a kernel reads at p.
constexpr uint32_t kScanReads = 67;

// Tags of ASCII characters reported as another: Lower as Upper, Newline as WsOther, Slash
// as Other (the characters of other tags, and every one >= 0x80, keep theirs).
enum ScanMerge : uint32_t { kMergeCase = 1, kMergeNewline = 2, kMergeSlash = 4, kMergeAll = 7 };

using ScanFn = uint32_t (*)(const uint8_t* p, uint32_t avail, uint32_t carry, uint32_t blocks, uint32_t merge,
                            ScanMasks* out);

// The pieces between cuts: bit j of cuts[k] is a cut at q0 + 64k + j (blocks k < `blocks`).
// Writes out[2i], out[2i + 1] = the begin and end of the i-th piece -- the first begins at
// `from`, each ends at a cut and the next begins there -- and returns their number.  out
// has room for 2 * (64 * blocks + 9) values (past the last piece's, garbage).
using CutPiecesFn = uint32_t (*)(const uint64_t* cuts, uint32_t blocks, uint32_t q0, uint32_t from, uint32_t* out);

// The scalar kernel's character reader (scan_scalar.h), declared here because the block
// driver (pretokenize/fsm/scan_blocks.h) reads the characters the masks leave to it.
namespace scalar {
// One character: the tag of the one that starts at s[0] (s[0..n) the piece's bytes from
// there, n > 0), and its length in *len (no merge).
uint8_t scan_char(const uint8_t* s, uint32_t n, uint32_t* len);
}  // namespace scalar

}  // namespace tagpipe
