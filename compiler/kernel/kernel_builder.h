// Lowers a fusion plan to kernel IR: one kernel per group, buffers for every
// materialized node, temporaries packed into one arena by liveness
// (buffer_plan.h).
//
// Index maps: a node is evaluated at a vector of index expressions in its own
// shape. Broadcasting maps size-1 dims to 0 and drops leading dims; transpose
// permutes; slice scales and offsets; squeeze/unsqueeze insert or drop zero
// indices; reshape linearizes and delinearizes (or reads a buffer's flat offset
// directly). Layout ops therefore never copy unless they are materialized.
// gather is an index map whose gathered position is loaded: bounds-checked,
// clamped before the read and selected to 0 when out of range
// (gather_lowering.cc).
//
// Numerics: reductions of float dtypes accumulate in f64 (sequential order,
// or pairwise with reduce_order=tree), or in f32 under low_precision (same
// orders) and fast_math (reassociated); integers wrap in their own dtype.
// Matmul (matmul_lowering.cc) is blocked for the CPU into 4x8 register tiles
// over packed panels of the right operand, or i-k-j with a row of
// accumulators (for NVPTX); either way each output sums over k in order.
// conv2d and the pools (window_lowering.cc) are a reduction per output
// element over the window's taps, padded taps clamped before the load and
// selected to the padding value; they accumulate as matmul (conv2d,
// avg_pool2d) or reduce_max (max_pool2d) do.
//
// Faults (testing only, faults.h): <op>:accuracy and <op>:nondeterministic
// rewrite the op's value, <op>:runtime_crash adds a null load to the op's
// kernel, reduce_sum:drop_last shortens the innermost reduced loop, and
// fuse:wrong_index shifts the row a fused reduction reads.
//
// Tested by compiler/kernel/kernel_builder_test.cc.
#ifndef REPROKIT_COMPILER_KERNEL_KERNEL_BUILDER_H_
#define REPROKIT_COMPILER_KERNEL_KERNEL_BUILDER_H_

#include "absl/status/statusor.h"
#include "compiler/fusion/fusion.h"
#include "compiler/ir/graph.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/options/faults.h"

namespace rk::compiler::kernel {

struct KernelOptions {
  bool fast_math = false;
  bool low_precision = false;
  int threads = 1;
  const FaultSet* faults = nullptr;
  // Order of float sums when not fast_math (which reassociates):
  // kSequential or kTree. A tree reduction over several axes becomes one
  // loop over their flattened extent.
  AccumulationOrder reduce_order = AccumulationOrder::kSequential;
  // Matmul as cache-blocked tiles (the x86 form) instead of one accumulator
  // row per output row (the form the NVPTX backend matches and retiles).
  bool tiled_matmul = false;
};

absl::StatusOr<Program> BuildProgram(const Graph& graph, const fusion::FusionPlan& plan,
                                     const KernelOptions& options);

}  // namespace rk::compiler::kernel

#endif  // REPROKIT_COMPILER_KERNEL_KERNEL_BUILDER_H_
