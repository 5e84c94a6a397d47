// Gathered GPU rows: which row reductions run a thread per row.
//
// The block and warp forms (nvptx_rows.cc, warp_rows.h) give a row to a block
// or a warp whose lanes take consecutive points of the row. That reads
// memory well when a row is contiguous (softmax, layer_norm), and badly when
// a row is gathered: a direct convolution's row is a window of input
// channels (cin x kh x kw), so the 32 lanes of one load touch 32 different
// cache lines, and a batch-1 ResNet-18 spent ~7 ms on an H200 issuing them.
// Consecutive rows of such a reduction (neighbouring output pixels) read
// neighbouring input elements and the same weight, so a thread per row reads
// each tap as one coalesced warp access (and a broadcast weight).
//
// A row reduction runs a thread per row (the grid-stride form, one point a
// thread) when
//   - it has at least kMinThreadRows rows (the thread form's whole
//     parallelism) and rows of at most kMaxThreadRowPoints points (a thread
//     reduces its row alone, in order);
//   - its epilogue has no loops (a softmax's divide stays in the row forms);
//   - the loads of its update touch fewer 128-byte cache lines (each line a
//     pass of the L1 over a warp's access) when a warp's lanes take 32
//     consecutive rows at one point of the row than when they take 32
//     consecutive points of one row (summed over three places along the rows;
//     index expressions evaluated, data-dependent ones not counted). A tie
//     keeps the row forms, which have more threads.
// On ResNet-18 (batch 1, 224x224): 19 of its 20 convolutions (2-4 lines a
// warp access against 5-33); the stride-2 3x3 into layer4 (14x14 in, 7x7
// out) ties and stays in the row forms.
// Numerics: the same update and accumulator type, summed left to right by
// one thread instead of combined across lanes; both are the kernel IR's sum.
//
// Tested by compiler/cuda/codegen/ptx_thread_rows_test.cc (which kernels take
// it: convolutions and column sums do, softmax, patch-embedding strides, few
// rows and long rows do not; the PTX has no shuffles) and on a GPU by
// compiler/tests/cuda_thread_rows_test.cc (part of cuda_program_test).
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_THREAD_ROWS_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_THREAD_ROWS_H_

#include <cstdint>

#include "compiler/cuda/planning/kernel_shape.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

inline constexpr int64_t kMinThreadRows = 16384;
inline constexpr int64_t kMaxThreadRowPoints = 16384;
// Threads a block of a thread-row kernel (the grid-stride form's blocks have
// 256): a batch-1 CNN's late layers have 25088 or 50176 rows, 98 or 196
// blocks of 256 on 132 SMs (a quarter idle, or half of them with twice the
// work of the others); in blocks of 64 every SM gets 3 or 6.
inline constexpr int kThreadRowBlockThreads = 64;
// The emitter unrolls a thread row's loops of at most this many iterations
// inside its outermost one (a 3x3 or 7x7 window's), so their bounds checks
// and offsets fold.
inline constexpr int64_t kUnrolledWindowExtent = 8;

// Off until measured on a GPU: the form has run only in PTX and ptxas tests
// so far. $REPROKIT_CUDA_THREAD_ROWS="1" turns it on, "0" off; unset:
// kThreadRowsByDefault.
inline constexpr bool kThreadRowsByDefault = false;
bool ThreadRowsEnabled();

// Whether the row reduction `row` over the rows `rows` of `kernel` reads
// memory better with a thread per row (above).
bool PrefersThreadPerRow(const kernel::Program& program, const kernel::Kernel& kernel,
                         const LoopChain& rows, const RowReduction& row);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_THREAD_ROWS_H_
