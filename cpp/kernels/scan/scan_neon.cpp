// The neon scan kernel: the generic algorithm over simd/neon.h.
#include "common/target.h"

#if TAGPIPE_AARCH64
#include <cstring>

#include "kernels/scan/lead_tables.h"
#include "kernels/scan/scan.h"
#include "simd/neon.h"
#define TAGPIPE_ARCH neon
#include "kernels/scan/scan_generic.h"
#undef TAGPIPE_ARCH
#endif
