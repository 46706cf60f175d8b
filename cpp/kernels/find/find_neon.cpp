// The neon find kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "kernels/find/find.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/find/find_generic.h"
#undef TAGPIPE_ARCH
#endif
