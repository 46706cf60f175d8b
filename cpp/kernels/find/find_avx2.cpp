// The avx2 find kernel: the generic algorithm over simd/avx2.h, in a avx2 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include "kernels/find/find.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_AVX2)
#include "simd/avx2.h"
#define TAGPIPE_ARCH avx2
#include "kernels/find/find_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
