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
#if defined(__linux__)
#include <sched.h>
#endif

namespace tagpipe {
namespace {

// Where a batch's pool threads run (Linux).  A parked thread is woken where the scheduler
// chooses, and after the caller has been idle for a while that was often the caller's own
// CPU: two threads then shared one core for the whole of a short batch (a few
// milliseconds: less than the scheduler takes to move one of them), which then ran at one
// thread's speed.  So for each batch, pool thread i is bound to the i-th CPU
// after the caller's own among the CPUs the caller may use (round to the caller's own when
// there are more threads than CPUs), and unbound again -- to that same set, so the pool
// follows its caller's limits -- when its part is done.  The caller is left alone.
struct Placement {
#if defined(__linux__)
  cpu_set_t allowed;
  std::vector<int> cpus;  // the allowed CPUs, from the one after the caller's round to its own
  bool active = false;

  void plan() {
    active = false;
    cpus.clear();
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    const int here = sched_getcpu();
    if (here < 0 || here >= CPU_SETSIZE) return;
    for (int k = 1; k <= CPU_SETSIZE; k++) {  // (the caller's own last)
      const int c = (here + k) % CPU_SETSIZE;
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    }
    active = !cpus.empty();
  }
  // On pool thread `index` (1..): bind it for this batch; unbind it after.
  void bind(int index) const {
    if (!active) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[size_t(index - 1) % cpus.size()], &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  void unbind() const {
    if (active) pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
  }
#else
  void plan() {}
  void bind(int) const {}
  void unbind() const {}
#endif
};

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
  Placement placement;  // this batch's (written with fn, under m)

  void serve(int index) {
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      work.wait(lock, [&] { return generation != seen; });
      seen = generation;
      if (index >= want) continue;  // not needed this time
      const std::function<void(int)>* f = fn;
      lock.unlock();
      placement.bind(index);  // (read-only until this batch ends: the caller waits for us)
      std::exception_ptr e;
      try {
        (*f)(index);
      } catch (...) {
        e = std::current_exception();
      }
      placement.unbind();
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
    p.placement.plan();
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
