// The avx2 scan kernel: the generic algorithm over simd/avx2.h, in a avx2 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "kernels/scan/lead_tables.h"
#include "kernels/scan/scan.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_AVX2)
#include "simd/avx2.h"
#define TAGPIPE_ARCH avx2
#include "kernels/scan/scan_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
