// A read-only map from byte strings to 32-bit values (the vocabulary, added tokens):
// open addressing over one arena of keys.  Built once, then shared between threads.  Every
// u32 is a value (the oracle takes id 2^32 - 1 too): a slot's own flag says it is empty.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/hash.h"

namespace tagpipe {

class StringTable {
 public:
  // Adds or replaces key -> value.
  void put(std::string_view key, uint32_t value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    Slot* s = probe(key, hash_bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    if (!s->used) {
      s->offset = uint32_t(arena_.size());
      s->length = uint32_t(key.size());
      s->used = true;
      arena_.append(key);
      count_++;
    }
    s->value = value;
  }

  // Room for n keys without growing (a growing table holds its old slots and new ones).
  void reserve(size_t n) {
    size_t size = slots_.empty() ? 16 : slots_.size();
    while ((n + 1) * 2 > size) size *= 2;
    if (size > slots_.size()) rehash(size);
  }

  // The value of key, or nullopt.
  std::optional<uint32_t> get(const uint8_t* key, size_t n) const { return get(key, n, hash_bytes(key, n)); }
  std::optional<uint32_t> get(const uint8_t* key, size_t n, uint64_t h) const {  // h = hash_bytes(key, n)
    if (slots_.empty()) return std::nullopt;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return std::nullopt;
      if (s.hash == h && s.length == n && std::memcmp(arena_.data() + s.offset, key, n) == 0) return s.value;
    }
  }
  std::optional<uint32_t> get(std::string_view key) const {
    return get(reinterpret_cast<const uint8_t*>(key.data()), key.size());
  }
  size_t size() const { return count_; }

  template <class F>  // f(key, value) for every entry
  void for_each(F f) const {
    for (const Slot& s : slots_)
      if (s.used) f(std::string_view(arena_.data() + s.offset, s.length), s.value);
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0, length = 0;
    uint32_t value = 0;
    bool used = false;
  };
  static_assert(sizeof(Slot) == 24, "the flag sits in what was padding");

  Slot* probe(std::string_view key, uint64_t h) {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.hash = h;
        return &s;
      }
      if (s.hash == h && s.length == key.size() && std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
        return &s;
    }
  }
  void grow() { rehash(slots_.empty() ? 16 : slots_.size() * 2); }
  void rehash(size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.used) {
        size_t i = s.hash & mask_;
        while (slots_[i].used) i = (i + 1) & mask_;
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
  std::string arena_;
};

// A set of 64-bit hashes that may say yes to a hash it was not given (0 and 1 are one),
// never no to one it was: a filter in front of a StringTable.
class HashSet {
 public:
  void add(uint64_t h) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    count_ += insert(h | (h == 0));
  }
  bool may_hold(uint64_t h) const {
    if (slots_.empty()) return false;
    h |= h == 0;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == h) return true;
      if (slots_[i] == 0) return false;
    }
  }

 private:
  bool insert(uint64_t h) {  // (h != 0) whether h is new
    size_t i = h & mask_;
    while (slots_[i] != 0 && slots_[i] != h) i = (i + 1) & mask_;
    const bool added = slots_[i] == 0;
    slots_[i] = h;
    return added;
  }
  void grow() {
    std::vector<uint64_t> old(std::max<size_t>(16, slots_.size() * 2), 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (uint64_t h : old)
      if (h) insert(h);
  }
  std::vector<uint64_t> slots_;
  size_t mask_ = 0, count_ = 0;
};

}  // namespace tagpipe
