// An encoder's word caches, handed out one per concurrent encode (with the cut policy's
// state: ThreadCache) and together within one budget.
//
// Each cache's share is the budget over the number of caches, and the shares given out
// never add up to more than the budget.  A cache in use belongs to its thread alone: when
// another thread needs it to shrink (or to be wiped) it asks, and the owner applies that at
// its next insert (rebudget) or when it hands the cache back.  A free cache goes out warmest
// first (the most entries): encode_batch's first thread, which may do most of a small batch
// alone, then has the cache that knows the most words.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "encode/cut_policy.h"

namespace tagpipe {

class CachePool {
 public:
  explicit CachePool(size_t budget) : budget_(budget) {}
  size_t budget() const { return budget_; }
  // The word seed every cache starts from past its first table (WordCache::set_seed); set
  // before the first acquire.
  void set_seed(const WordSeed* seed) { seed_ = seed; }

  ThreadCache* acquire();
  void release(ThreadCache* c);
  // The owner of c, when c.pending(): takes its new share (and a wipe, if asked for).
  void rebudget(WordCache& c);
  size_t used() const;  // all caches' bytes
  void clear();         // wipes every cache (one in use: at its owner's next insert)

 private:
  void rebudget_locked(WordCache& c);
  bool is_free(const ThreadCache* c) const;

  const size_t budget_;
  const WordSeed* seed_ = nullptr;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<ThreadCache>> caches_;  // all of them
  std::vector<ThreadCache*> free_;
};

}  // namespace tagpipe
