// The neon boundaries kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "boundaries/boundaries.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "boundaries/boundaries_generic.h"
#undef TAGPIPE_ARCH
#endif
