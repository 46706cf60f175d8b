// Architecture detection and per-function target regions.
//
// tagpipe is built without any ISA flag (-mavx2, -march=native, ...): one binary runs on
// any CPU of its architecture.  Kernels for newer instruction sets are compiled inside a
// target region instead -- one per instruction set, in cpp/arch/<isa>.cpp, which names
// the instructions -- and only called after the CPU says it has those instructions
// (cpp/dispatch/).  The region pragmas apply to every function defined between BEGIN and
// END, including inline functions of the simd wrapper and of the generic algorithm.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#define TAGPIPE_X86_64 1
#else
#define TAGPIPE_X86_64 0
#endif

#if defined(__aarch64__) || defined(_M_ARM64)
#define TAGPIPE_AARCH64 1
#else
#define TAGPIPE_AARCH64 0
#endif

#define TAGPIPE_STRINGIFY_(x) #x
#define TAGPIPE_STRINGIFY(x) TAGPIPE_STRINGIFY_(x)

#if defined(__clang__)
#define TAGPIPE_TARGET_REGION_BEGIN(T) \
  _Pragma(TAGPIPE_STRINGIFY(clang attribute push(__attribute__((target(T))), apply_to = function)))
#define TAGPIPE_TARGET_REGION_END _Pragma("clang attribute pop")
#elif defined(__GNUC__)
#define TAGPIPE_TARGET_REGION_BEGIN(T) _Pragma("GCC push_options") _Pragma(TAGPIPE_STRINGIFY(GCC target(T)))
#define TAGPIPE_TARGET_REGION_END _Pragma("GCC pop_options")
#else
#error "tagpipe needs GCC or Clang (target regions)"
#endif

#if defined(__GNUC__)
#define TAGPIPE_ALWAYS_INLINE inline __attribute__((always_inline))
#define TAGPIPE_LIKELY(x) __builtin_expect(!!(x), 1)
#define TAGPIPE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TAGPIPE_ALWAYS_INLINE inline
#define TAGPIPE_LIKELY(x) (x)
#define TAGPIPE_UNLIKELY(x) (x)
#endif
