// The neon window kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "simd/neon.h"
#include "kernels/window/window.h"
#define TAGPIPE_ARCH neon
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH
#endif
