#include "encode/cache_pool.h"

#include <algorithm>

namespace tagpipe {

bool CachePool::is_free(const ThreadCache* c) const { return std::find(free_.begin(), free_.end(), c) != free_.end(); }

ThreadCache* CachePool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  ThreadCache* c;
  if (!free_.empty()) {
    // (free: nobody writes them, so their counts can be read under the lock)
    auto warmest = std::max_element(free_.begin(), free_.end(), [](const ThreadCache* a, const ThreadCache* b) {
      return a->words.entries() < b->words.entries();
    });
    c = *warmest;
    free_.erase(warmest);
  } else {
    caches_.push_back(std::make_unique<ThreadCache>(0));
    c = caches_.back().get();
    c->words.set_seed(seed_);
    const size_t share = budget_ / caches_.size();
    for (auto& other : caches_) {
      if (other.get() == c || other->words.budget() <= share) continue;
      if (is_free(other.get())) other->words.set_budget(share);  // nobody uses it now
      else other->words.ask_rebudget();                          // its owner shrinks it
    }
  }
  rebudget_locked(c->words);
  return c;
}

// The share of c, as far as the others' budgets leave room for it; still pending while it
// gets less than its share (an owner has yet to shrink its cache).
void CachePool::rebudget_locked(WordCache& c) {
  const size_t share = budget_ / caches_.size();
  size_t others = 0;
  for (const auto& o : caches_)
    if (&o->words != &c) others += o->words.budget();
  const size_t room = budget_ > others ? budget_ - others : 0;
  c.apply(std::min(share, room), room < share);
}

void CachePool::rebudget(WordCache& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  rebudget_locked(c);
}

void CachePool::release(ThreadCache* c) {
  std::lock_guard<std::mutex> lock(mutex_);
  rebudget_locked(c->words);
  free_.push_back(c);
}

size_t CachePool::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& c : caches_) n += c->words.used();
  return n;
}

void CachePool::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& c : caches_) {
    if (is_free(c.get())) c->words.clear();
    else c->words.ask_clear();
  }
}

}  // namespace tagpipe
