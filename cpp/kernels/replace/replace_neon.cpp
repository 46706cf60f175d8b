// The neon replace kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "kernels/replace/replace.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/replace/replace_generic.h"
#undef TAGPIPE_ARCH
#endif
