// The sse42 transcode kernel (the avx2 and avx512 kernels use it too): the generic
// algorithm over simd/sse42.h, in a sse42 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include "kernels/transcode/transcode.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_SSE42)
#include "simd/sse42.h"
#define TAGPIPE_ARCH sse42
#include "kernels/transcode/transcode_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
