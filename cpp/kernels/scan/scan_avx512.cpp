// The avx512 scan kernel: the generic algorithm over simd/avx512.h, in a avx512 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "kernels/scan/lead_tables.h"
#include "kernels/scan/scan.h"

TAGPIPE_TARGET_REGION_BEGIN(TAGPIPE_TARGET_AVX512)
#include "simd/avx512.h"
#define TAGPIPE_ARCH avx512
#include "kernels/scan/scan_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
