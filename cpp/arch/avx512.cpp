// The avx512 kernels: every family's generic algorithm over simd/avx512.h, compiled once
// inside the avx512 target region -- but replace_byte and transcode, which are sse42's
// (arch/sse42.h says why).
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "arch/sse42.h"
#include "dispatch/cpu.h"
#include "kernels/kernels.h"

// The instructions the region may use: what dispatch/cpu.cpp checks for avx512.
TAGPIPE_TARGET_REGION_BEGIN("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx2,bmi,bmi2,popcnt,lzcnt")
#include "simd/avx512.h"
#define TAGPIPE_ARCH avx512
#include "kernels/boundaries/boundaries_generic.h"
#include "kernels/classify/classify_generic.h"
#include "kernels/find/find_generic.h"
#include "kernels/marks/marks_generic.h"
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END

namespace tagpipe::avx512 {

// (extern: a namespace-scope const would be internal; the registry, dispatch/kernels.cpp, reads it)
extern const kernels::Kernel kKernel = {
    "avx512",                               // name
    [] { return cpu::features().avx512; },  // whether this CPU runs it
    classify,
    boundaries,
    window,
    sse42::replace_byte,  // (arch/sse42.h)
    marks,
    find_bytes,
    sse42::transcode,  // (arch/sse42.h)
};

}  // namespace tagpipe::avx512
#endif
