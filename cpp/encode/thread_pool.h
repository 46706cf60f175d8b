// The threads encode_batch runs on: started once, parked between calls.
//
// Starting threads for every call cost more than their creation: a new thread is woken on
// the CPU of the thread that made it, and on a short batch (a few milliseconds) the kernel
// may not move it to an idle core before the batch ends -- measured as two threads using
// one core.  Parked threads wake on the core they last ran on, their thread-local scratch
// (and so their buffers) survives between calls, and nothing is allocated per call.
//
// One batch runs on the pool at a time; a call that finds it busy (another Python thread
// in encode_batch) starts threads of its own for that call instead of waiting.  After
// fork() the child starts with an empty pool (the parent's threads do not exist there).
#pragma once
#include <functional>

namespace tagpipe {

// Runs fn(0), ..., fn(n - 1) concurrently, fn(0) on the calling thread, and returns when
// every one has returned.  An exception thrown by any of them is rethrown here.
void parallel_for_threads(int n, const std::function<void(int)>& fn);

}  // namespace tagpipe
