// The avx2 kernels: every family's generic algorithm over simd/avx2.h, compiled once
// inside the avx2 target region -- but replace_byte and transcode, which are sse42's
// (arch/sse42.h says why).
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "arch/sse42.h"
#include "dispatch/cpu.h"
#include "kernels/kernels.h"

// The instructions the region may use: what dispatch/cpu.cpp checks for avx2.
TAGPIPE_TARGET_REGION_BEGIN("avx2,bmi,bmi2,popcnt,lzcnt")
#include "simd/avx2.h"
#define TAGPIPE_ARCH avx2
#include "kernels/boundaries/boundaries_generic.h"
#include "kernels/classify/classify_generic.h"
#include "kernels/find/find_generic.h"
#include "kernels/marks/marks_generic.h"
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END

namespace tagpipe::avx2 {

// (extern: a namespace-scope const would be internal; the registry, dispatch/kernels.cpp, reads it)
extern const kernels::Kernel kKernel = {
    "avx2",                               // name
    [] { return cpu::features().avx2; },  // whether this CPU runs it
    classify,
    boundaries,
    window,
    sse42::replace_byte,  // (arch/sse42.h)
    marks,
    find_bytes,
    sse42::transcode,  // (arch/sse42.h)
};

}  // namespace tagpipe::avx2
#endif
