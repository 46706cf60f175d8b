#include "dispatch/cpu.h"

#include "common/target.h"

#if TAGPIPE_X86_64
#include <cpuid.h>

#include <cstdint>
#endif

namespace tagpipe::cpu {
namespace {

#if TAGPIPE_X86_64
bool bit(unsigned reg, int b) { return (reg >> b) & 1u; }

uint64_t xcr0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

Features detect() {
  Features f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool ssse3 = bit(c, 9), sse41 = bit(c, 19), sse42 = bit(c, 20), popcnt = bit(c, 23);
  const bool osxsave = bit(c, 27), avx = bit(c, 28);
  f.sse42 = ssse3 && sse41 && sse42 && popcnt;
  const uint64_t xcr = osxsave ? xcr0() : 0;
  const bool ymm = (xcr & 0x6) == 0x6;           // XMM + YMM state
  const bool zmm = ymm && (xcr & 0xE0) == 0xE0;  // opmask + ZMM_Hi256 + Hi16_ZMM
  unsigned b7 = 0, c7 = 0, d7 = 0;
  __cpuid_count(7, 0, a, b7, c7, d7);
  unsigned c81 = 0;
  if (__get_cpuid(0x80000001, &a, &b, &c81, &d)) {
  }
  const bool lzcnt = bit(c81, 5);
  f.avx2 = f.sse42 && avx && ymm && bit(b7, 5) && bit(b7, 3) && bit(b7, 8) && lzcnt;
  f.avx512 = f.avx2 && zmm && bit(b7, 16) && bit(b7, 30) && bit(b7, 31) && bit(c7, 1) && bit(c7, 6);
  return f;
}
#else
Features detect() {
  Features f;
  f.neon = TAGPIPE_AARCH64;
  return f;
}
#endif

}  // namespace

const Features& features() {
  static const Features f = detect();
  return f;
}

}  // namespace tagpipe::cpu
