// The neon kernel: the generic algorithm over simd/neon.h (ASIMD is baseline on AArch64).
#include "common/target.h"

#if TAGPIPE_AARCH64
#include <cstring>

#include "kernels/classify/classify.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/classify/classify_generic.h"
#undef TAGPIPE_ARCH
#endif
