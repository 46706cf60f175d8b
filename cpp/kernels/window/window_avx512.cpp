// The avx512 window kernel: the generic algorithm over simd/avx512.h, in a avx512 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include "kernels/window/window.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_AVX512)
#include "simd/avx512.h"
#define TAGPIPE_ARCH avx512
#include "kernels/window/window_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
