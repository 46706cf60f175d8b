// The kernel registry: every SIMD kernel (classify, boundaries, window, replace, marks, find,
// transcode, scan) this build has, which of them this CPU can run, and the active one (chosen
// once from CPU features, or forced by name).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "kernels/boundaries/boundaries.h"
#include "kernels/classify/classify.h"
#include "kernels/find/find.h"
#include "kernels/marks/marks.h"
#include "kernels/replace/replace.h"
#include "kernels/scan/scan.h"
#include "kernels/transcode/transcode.h"
#include "kernels/window/window.h"

namespace tagpipe::kernels {

struct Kernel {
  const char* name;  // "scalar", "sse42", "avx2", "avx512", "neon"
  bool (*supported)();
  ClassifyFn classify;
  BoundariesFn boundaries;
  WindowFn window;
  ReplaceFn replace_byte;
  MarksFn marks;
  FindBytesFn find_bytes;
  TranscodeFn transcode;
  ScanFn scan;
  CutPiecesFn cut_pieces;
};

// Kernels compiled into this build, best last.
const std::vector<Kernel>& compiled();
// Compiled and runnable on this CPU, best last.
std::vector<const Kernel*> available();
// nullptr if no compiled kernel has this name.
const Kernel* find(std::string_view name);

// The active kernel: the best available one unless set_active() chose another.
const Kernel& active();
// Throws std::invalid_argument naming the problem (unknown name, or not runnable here).
void set_active(std::string_view name);

}  // namespace tagpipe::kernels
