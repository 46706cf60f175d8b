// The kernel families, and one instruction set's kernel of each: a Kernel.
//
// A family (kernels/<family>/) is its function type and contract (<family>.h), the scalar
// specification (<family>_scalar.h) and the SIMD algorithm written once over the simd/
// wrappers (<family>_generic.h).  One file per instruction set, cpp/arch/<isa>.cpp,
// compiles every family for it and defines that instruction set's Kernel; the registry
// (dispatch/kernels.h) lists them and picks the one this CPU runs best.
//
// Adding an instruction set: simd/<isa>.h (the wrapper types the generic algorithms use),
// arch/<isa>.cpp (after a sibling: its target region's instructions, its simd header, its
// Kernel), its CPU check (dispatch/cpu.{h,cpp}), one line in the registry
// (dispatch/kernels.cpp) and one in cpp/sources.txt.  Nothing in the families changes.
// Adding a family: kernels/<family>/, a field here, a line in each arch/<isa>.cpp, and
// its check in cpp/selftest/.
#pragma once

#include "kernels/boundaries/boundaries.h"
#include "kernels/classify/classify.h"
#include "kernels/find/find.h"
#include "kernels/marks/marks.h"
#include "kernels/replace/replace.h"
#include "kernels/transcode/transcode.h"
#include "kernels/window/window.h"

namespace tagpipe::kernels {

struct Kernel {
  const char* name;     // "scalar", "sse42", "avx2", "avx512", "neon"
  bool (*supported)();  // whether this CPU (and OS) runs it (dispatch/cpu.h)
  ClassifyFn classify;
  BoundariesFn boundaries;
  WindowFn window;
  ReplaceFn replace_byte;
  MarksFn marks;
  FindBytesFn find_bytes;
  TranscodeFn transcode;
};

}  // namespace tagpipe::kernels
