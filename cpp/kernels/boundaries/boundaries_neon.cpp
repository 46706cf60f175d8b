// The neon boundaries kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "kernels/boundaries/boundaries.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/boundaries/boundaries_generic.h"
#undef TAGPIPE_ARCH
#endif
