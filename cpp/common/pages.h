// Large blocks straight from the OS (mmap), given back to it when freed (munmap).
//
// Why not malloc: glibc serves a large block by mmap and, when it is freed, raises its mmap
// threshold to that block's size (up to 32 MiB), so every later block up to that size comes
// from a heap arena instead -- one arena per thread -- and stays resident after it is freed.
// The word caches grow by doubling and are wiped when full, over and over: through malloc,
// two threads' caches held ~1.4x the cache budget resident.  Fresh pages are also zero, so
// a new table costs no memset, and the pages a sparse table never touches are never resident.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define TAGPIPE_HAVE_MMAP 1
#endif

namespace tagpipe {

// Blocks of at least this many bytes come from mmap (smaller ones from malloc).
inline constexpr size_t kPagesFrom = size_t(128) << 10;  // (glibc's initial mmap threshold)
inline constexpr size_t kHugePage = size_t(2) << 20;

// `bytes` zeroed bytes aligned to `align` (a power of two up to kHugePage): free with
// free_pages(p, bytes, align).  Throws std::bad_alloc.
inline void* alloc_pages(size_t bytes, size_t align) {
#if defined(TAGPIPE_HAVE_MMAP)
  if (bytes >= kPagesFrom) {
    // Over-allocate by `align` and unmap the slack on both sides: an aligned mapping.
    const size_t span = bytes + align;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t at = (start + align - 1) & ~uintptr_t(align - 1);
    const size_t page = 4096;
    const uintptr_t end = (at + bytes + page - 1) & ~uintptr_t(page - 1);
    if (at > start) munmap(raw, at - start);
    if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
#if defined(MADV_HUGEPAGE)
    if (align >= kHugePage) madvise(reinterpret_cast<void*>(at), end - at, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void*>(at);
  }
#endif
  const size_t a = align < alignof(std::max_align_t) ? alignof(std::max_align_t) : align;
  void* p = std::aligned_alloc(a, (bytes + a - 1) / a * a);  // (a multiple of the alignment)
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return p;
}

inline void free_pages(void* p, size_t bytes) {
  if (!p) return;
#if defined(TAGPIPE_HAVE_MMAP)
  if (bytes >= kPagesFrom) {
    munmap(p, (bytes + 4095) / 4096 * 4096);
    return;
  }
#endif
  std::free(p);
}

// A std::vector allocator on alloc_pages: the word cache's arenas, which double and are
// freed whole like its tables.
template <class T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(alloc_pages(n * sizeof(T), 64)); }
  void deallocate(T* p, size_t n) { free_pages(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PageAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const PageAllocator<U>&) const {
    return false;
  }
};

}  // namespace tagpipe
