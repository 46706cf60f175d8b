// The sse42 scan kernel: the generic algorithm over simd/sse42.h, in a sse42 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "kernels/scan/lead_tables.h"
#include "kernels/scan/scan.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_SSE42)
#include "simd/sse42.h"
#define TAGPIPE_ARCH sse42
#include "kernels/scan/scan_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
