#include "encode/thread_pool.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace tagpipe {
namespace {

// Everything the pool threads share.  Heap-allocated and never freed: a pool thread may
// still be returning from its last wait when the process exits, and after fork() the
// child abandons the parent's pool (its threads are gone) and makes a new one.
struct Pool {
  std::mutex busy;  // held for the whole of one batch
  std::mutex m;
  std::condition_variable work, done;
  const std::function<void(int)>* fn = nullptr;
  unsigned long long generation = 0;  // one per batch: a parked thread wakes when it changes
  int want = 0;                       // threads 1..want-1 take part in this batch
  int pending = 0;                    // of those, how many have not finished
  int started = 0;                    // pool threads that exist (they are 1..started)
  std::exception_ptr error;

  void serve(int index) {
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      work.wait(lock, [&] { return generation != seen; });
      seen = generation;
      if (index >= want) continue;  // not needed this time
      const std::function<void(int)>* f = fn;
      lock.unlock();
      std::exception_ptr e;
      try {
        (*f)(index);
      } catch (...) {
        e = std::current_exception();
      }
      lock.lock();
      if (e && !error) error = e;
      if (--pending == 0) done.notify_one();
    }
  }
};

Pool* g_pool = nullptr;
std::mutex g_pool_mutex;

#if defined(__unix__) || defined(__APPLE__)
void forget_pool_in_child() {
  g_pool = nullptr;  // the parent's threads do not exist here; leak their state
  new (&g_pool_mutex) std::mutex();
}
#endif

Pool& pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool == nullptr) {
#if defined(__unix__) || defined(__APPLE__)
    static bool registered = (pthread_atfork(nullptr, nullptr, forget_pool_in_child), true);
    (void)registered;
#endif
    g_pool = new Pool();
  }
  return *g_pool;
}

// The fallback when the pool is busy: threads for this call only.
void run_on_new_threads(int n, const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto guarded = [&](int t) {
    try {
      fn(t);
    } catch (...) {
      errors[size_t(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < n; t++) threads.emplace_back(guarded, t);
  guarded(0);
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

void parallel_for_threads(int n, const std::function<void(int)>& fn) {
  if (n <= 1) {
    fn(0);
    return;
  }
  Pool& p = pool();
  std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
  if (!busy.owns_lock()) {
    run_on_new_threads(n, fn);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(p.m);
    for (; p.started < n - 1; p.started++) std::thread([&p, i = p.started + 1] { p.serve(i); }).detach();
    p.fn = &fn;
    p.want = n;
    p.pending = n - 1;
    p.error = nullptr;
    p.generation++;
  }
  p.work.notify_all();
  std::exception_ptr mine;
  try {
    fn(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(p.m);
  p.done.wait(lock, [&] { return p.pending == 0; });
  p.fn = nullptr;
  std::exception_ptr theirs = p.error;
  lock.unlock();
  if (mine) std::rethrow_exception(mine);
  if (theirs) std::rethrow_exception(theirs);
}

}  // namespace tagpipe
