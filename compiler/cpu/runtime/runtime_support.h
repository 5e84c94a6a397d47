// Functions generated code calls back into (C ABI), resolved by the JIT from
// this process: the parallel-for behind threaded loops and conversions too
// awkward to inline.
//
// Tested by compiler/cpu/runtime/runtime_test.cc.
#ifndef REPROKIT_COMPILER_CPU_RUNTIME_RUNTIME_SUPPORT_H_
#define REPROKIT_COMPILER_CPU_RUNTIME_RUNTIME_SUPPORT_H_

#include <cstdint>

extern "C" {

// A kernel thunk: runs iterations [begin, end) of the kernel's outer loop.
typedef void (*RkLoopBody)(void** table, int64_t begin, int64_t end, int64_t run_counter);

// Splits [0, extent) into `threads` contiguous chunks and runs them in
// parallel; returns when all are done.
void rk_parallel_for(RkLoopBody body, void** table, int64_t extent, int32_t threads,
                     int64_t run_counter);

// double -> int64: truncate toward zero, wrap modulo 2^64; NaN and Inf give 0.
int64_t rk_double_to_i64_wrapped(double v);

}  // extern "C"

#endif  // REPROKIT_COMPILER_CPU_RUNTIME_RUNTIME_SUPPORT_H_
