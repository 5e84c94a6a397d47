// ParallelFor: runs fn(0) .. fn(n - 1) on up to `threads` threads (the
// calling thread is one of them) and returns when all have finished. Indices
// are handed out in increasing order; which thread runs which index is not
// fixed, so fn writes its results by index. threads <= 1 or n <= 1 runs
// everything on the caller, in order.
//
// Tested by compiler/support/parallel_for_test.cc.
#ifndef REPROKIT_COMPILER_SUPPORT_PARALLEL_FOR_H_
#define REPROKIT_COMPILER_SUPPORT_PARALLEL_FOR_H_

#include <functional>

namespace rk {

void ParallelFor(int n, int threads, const std::function<void(int)>& fn);

// Threads for `tasks` independent compiles: at most the machine's hardware
// threads and at most 8 (0 when there is nothing to do).
int CompileThreads(int tasks);

}  // namespace rk

#endif  // REPROKIT_COMPILER_SUPPORT_PARALLEL_FOR_H_
