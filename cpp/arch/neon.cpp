// The neon kernels: every family's generic algorithm over simd/neon.h.  ASIMD is part of
// every AArch64 CPU, so there is no target region (and no build flag).
#include "common/target.h"

#if TAGPIPE_AARCH64
#include <cstring>

#include "dispatch/cpu.h"
#include "kernels/kernels.h"
#include "simd/neon.h"

#define TAGPIPE_ARCH neon
#include "kernels/boundaries/boundaries_generic.h"
#include "kernels/classify/classify_generic.h"
#include "kernels/find/find_generic.h"
#include "kernels/marks/marks_generic.h"
#include "kernels/replace/replace_generic.h"
#include "kernels/transcode/transcode_generic.h"
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH

namespace tagpipe::neon {

// (extern: a namespace-scope const would be internal; the registry, dispatch/kernels.cpp, reads it)
extern const kernels::Kernel kKernel = {
    "neon",                               // name
    [] { return cpu::features().neon; },  // whether this CPU runs it
    classify,
    boundaries,
    window,
    replace_byte,
    marks,
    find_bytes,
    transcode,
};

}  // namespace tagpipe::neon
#endif
