// The scalar kernels: every family's specification, plain code that any CPU runs.  The
// other kernels are checked against these (cpp/selftest, tests/).
#include "kernels/boundaries/boundaries_scalar.h"
#include "kernels/classify/classify_scalar.h"
#include "kernels/find/find_scalar.h"
#include "kernels/kernels.h"
#include "kernels/marks/marks_scalar.h"
#include "kernels/replace/replace_scalar.h"
#include "kernels/transcode/transcode_scalar.h"
#include "kernels/window/window_scalar.h"

namespace tagpipe::scalar {

// (extern: a namespace-scope const would be internal; the registry, dispatch/kernels.cpp, reads it)
extern const kernels::Kernel kKernel = {
    "scalar",             // name
    [] { return true; },  // whether this CPU runs it
    classify,
    boundaries,
    window,
    replace_byte,
    marks,
    find_bytes,
    transcode,
};

}  // namespace tagpipe::scalar
