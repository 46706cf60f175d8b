// The avx512 kernel: the generic algorithm over simd/avx512.h, compiled in a avx512 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "kernels/classify/classify.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_AVX512)
#include "simd/avx512.h"
#define TAGPIPE_ARCH avx512
#include "kernels/classify/classify_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
