// An array in its own allocation (common/pages.h), on transparent huge pages where the OS
// gives them (the word cache's tables, the merge table): lookups land anywhere in it, and
// with 4 KiB pages most of them would also miss the TLB -- a page walk before the cache
// miss itself.
#pragma once
#include <cstddef>
#include <cstring>
#include <utility>

#include "common/pages.h"

namespace tagpipe {

template <class T>
class HugeTable {
 public:
  HugeTable() = default;
  HugeTable(const HugeTable&) = delete;
  HugeTable& operator=(const HugeTable&) = delete;
  ~HugeTable() { free_pages(data_, size_ * sizeof(T)); }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void reset(size_t n) {  // n zeroed entries
    allocate(n);          // (alloc_pages' bytes are zero: no page is touched here)
  }
  void copy(const HugeTable& from) {  // from's entries (T is copied as bytes)
    allocate(from.size_);
    if (size_) std::memcpy(static_cast<void*>(data_), from.data_, size_ * sizeof(T));
  }
  void assign(size_t n, const T& value) {
    reset(n);
    for (size_t i = 0; i < n; i++) data_[i] = value;
  }
  void swap(HugeTable& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

 private:
  void allocate(size_t n) {  // n zeroed entries
    free_pages(data_, size_ * sizeof(T));
    data_ = nullptr, size_ = 0;
    if (!n) return;
    const size_t bytes = n * sizeof(T);
    data_ = static_cast<T*>(alloc_pages(bytes, bytes >= kHugePage ? kHugePage : 64));
    size_ = n;
  }
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tagpipe
