// The sse42 kernels: every family's generic algorithm over simd/sse42.h, compiled once
// inside the sse42 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "arch/sse42.h"
#include "dispatch/cpu.h"
#include "kernels/kernels.h"

// The instructions the region may use: what dispatch/cpu.cpp checks for sse42.
TAGPIPE_TARGET_REGION_BEGIN("sse4.2,ssse3,popcnt")
#include "simd/sse42.h"
#define TAGPIPE_ARCH sse42
#include "kernels/boundaries/boundaries_generic.h"
#include "kernels/classify/classify_generic.h"
#include "kernels/find/find_generic.h"
#include "kernels/marks/marks_generic.h"
#include "kernels/replace/replace_generic.h"
#include "kernels/transcode/transcode_generic.h"
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END

namespace tagpipe::sse42 {

// (extern: a namespace-scope const would be internal; the registry, dispatch/kernels.cpp, reads it)
extern const kernels::Kernel kKernel = {
    "sse42",                               // name
    [] { return cpu::features().sse42; },  // whether this CPU runs it
    classify,
    boundaries,
    window,
    replace_byte,
    marks,
    find_bytes,
    transcode,
};

}  // namespace tagpipe::sse42
#endif
