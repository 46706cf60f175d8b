// The neon marks kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "kernels/marks/marks.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/marks/marks_generic.h"
#undef TAGPIPE_ARCH
#endif
