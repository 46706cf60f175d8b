// The neon transcode kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include "kernels/transcode/transcode.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/transcode/transcode_generic.h"
#undef TAGPIPE_ARCH
#endif
