// The block test of MetaspaceRuns (pretokenize/pipeline.cpp, MetaspaceRunsStage): which of 64
// positions may take a cut, as two masks the stage then narrows down.
//
// For the positions k = 0..63 of the bytes at t (t[-3..65] readable), bit k of
//   runs   a run of the three-byte mark starts at t[k]: t[k..k+2] is the mark and
//          t[k-3..k-1] is not
//   pairs  t[k-1] and t[k] are both ASCII and not both ASCII letters (a pair the stage's
//          table may cut)
//   after  t[k-1] is one of the kAfterBytes bytes at `after` (repeats allowed; the bytes
//          that a guard of the stage has right before its mark), 0 when `after` is null
// Bytes past the piece are the caller's to mask off.
#pragma once
#include <cstdint>

namespace tagpipe {

struct MarkMasks {
  uint64_t runs, pairs, after;
};
constexpr int kAfterBytes = 4;

using MarksFn = MarkMasks (*)(const uint8_t* t, const uint8_t* mark, const uint8_t* after);

}  // namespace tagpipe
