// The pybind-free self-test: every available kernel of every family (classify, boundaries,
// window, replace, marks, find, transcode, scan) must write exactly what the scalar kernel
// writes, for every alphabet; on every kernel, every regex family's block state machine
// must cut exactly where its scalar state machine does; and the model's tables must
// answer as the maps they stand for.
//
// Built by CMake (target tagpipe_selftest) and by scripts/selftest.sh, which also
// cross-compiles it for AArch64 and runs it under qemu-aarch64, so that CI checks the NEON
// kernel on x86.  Prints one line per check, the compiled kernels this CPU cannot run, and
// a closing "N passed, N failed" line; exits non-zero on any failure.
//
//   tagpipe_selftest [--quick]     --quick: fewer offsets/iterations (for emulators)
#include <cstdio>
#include <cstring>

#include "selftest/selftest.h"

namespace tagpipe::selftest {
namespace {

// Every family's kernel of k against the scalar one (transcode's scalar kernel is checked
// too: against append_utf8).
void check_kernel(const kernels::Kernel& k, bool quick) {
  check_transcode(k, quick);
  if (&k == &scalar()) return;
  for (int id = 0; id < int(AlphabetId::count); id++) check_classify(k, alphabet(AlphabetId(id)), quick);
  check_boundaries(k, quick);
  check_window(k, quick);
  check_replace(k, quick);
  check_marks(k, quick);
  check_find(k, quick);
  check_scan(k, quick);
}

// Every check, in order; the compiled kernels this CPU cannot run are named at the end.
int run(bool quick) {
  std::printf("tagpipe selftest: kernels available here:");
  for (const auto* k : kernels::available()) std::printf(" %s", k->name);
  std::printf("\n");
  for (const auto* k : kernels::available()) {
    check_kernel(*k, quick);
    check_patterns(*k, quick);
    check_scan_patterns(*k, quick);
  }
  check_scan_spec(quick);
  check_merge_table(quick);
  check_word_cache(quick);
  check_word_cache_seed(quick);
  check_bridge_cuts(quick);
  check_cjk_ids();
  for (const kernels::Kernel& k : kernels::compiled())
    if (!k.supported()) std::printf("%s: compiled, not run (CPU lacks it)\n", k.name);
  std::printf("%d passed, %d failed\n", passed_count(), failed_count());
  return failed_count() ? 1 : 0;
}

}  // namespace
}  // namespace tagpipe::selftest

int main(int argc, char** argv) { return tagpipe::selftest::run(argc > 1 && std::strcmp(argv[1], "--quick") == 0); }
