// ParallelFor: runs fn(0) .. fn(n - 1) on up to `threads` threads (the
// calling thread is one of them) and returns when all have finished. Indices
// are handed out in increasing order; which thread runs which index is not
// fixed, so fn writes its results by index. threads <= 1 or n <= 1 runs
// everything on the caller, in order.
//
// Tested by base/parallel_for_test.cc.
#ifndef REPROKIT_BASE_PARALLEL_FOR_H_
#define REPROKIT_BASE_PARALLEL_FOR_H_

#include <functional>

namespace rk {

void ParallelFor(int n, int threads, const std::function<void(int)>& fn);

// Threads for `tasks` independent compiles: at most the machine's hardware
// threads, 8, and the limit below, or $REPROKIT_COMPILE_THREADS when set
// (which overrides the limit); 0 when there is nothing to do.
int CompileThreads(int tasks);

// Caps CompileThreads for this process (0: no cap). Processes that run side
// by side (a worker pool's workers) share the machine's threads this way.
void SetCompileThreadLimit(int threads);

}  // namespace rk

#endif  // REPROKIT_BASE_PARALLEL_FOR_H_
