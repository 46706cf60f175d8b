// The avx512 kernel: the generic algorithm over simd/avx512.h, compiled in a avx512 target region.
#include "common/target.h"

#if TAGPIPE_X86_64
#include <cstring>

#include "classify/classify.h"

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 warns inside its own _mm512_undefined_epi32() (a self-initialised local).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
TAGPIPE_TARGET_REGION_BEGIN("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx2,bmi,bmi2,popcnt,lzcnt")
#include "simd/avx512.h"
#define TAGPIPE_ARCH avx512
#include "classify/classify_generic.h"
#undef TAGPIPE_ARCH
TAGPIPE_TARGET_REGION_END
#endif
