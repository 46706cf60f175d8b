// What this CPU (and its OS) can run.
#pragma once

namespace tagpipe::cpu {

struct Features {
  bool sse42 = false;   // SSE4.2 + SSSE3 + POPCNT
  bool avx2 = false;    // AVX2 + BMI1/2 + LZCNT, YMM state enabled by the OS
  bool avx512 = false;  // AVX-512 F/BW/VL/VBMI/VBMI2, ZMM state enabled by the OS
  bool neon = false;    // AArch64 ASIMD
};

const Features& features();

}  // namespace tagpipe::cpu
