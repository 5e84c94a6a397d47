// Which consecutive row-reduction kernels run as one GPU kernel.
//
// Softmax and layer_norm lower to two or three row-reduction kernels over the
// same rows (max, then sum + divide; mean, then variance + normalize), the
// later ones reading per-row values the earlier ones stored. On the GPU each
// is a block per row, so they can run as stages of one kernel: a block does
// stage 1 for its row, a barrier, stage 2 for the same row, and so on. The
// row is then read from device memory once (later stages hit the cache, or
// registers where the loads are identical) and there is one launch.
//
// Kernels b > a join a's group when both are row reductions over rows of the
// same extents, and every dependency between group members is row-local:
//   - whatever a later member reads that an earlier one writes is stored once
//     by the earlier member outside its loops (one value per row) and loaded
//     by the later member at the same element for every row (checked by
//     evaluating both index expressions over all rows);
//   - no member writes memory (a buffer, or bytes of the temp arena) that an
//     earlier member reads or writes.
// Faults that crash (a leading null load) keep their kernel alone, and so do
// kernels that take the two-pass form (split_rows.h): with few, long rows, a
// row's reduction over many blocks beats reading the row once in one block.
// (Row groups themselves keep the one-block-per-row form.)
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc (one entry for softmax and
// layer_norm; kernels that must stay apart stay apart) and on a GPU by
// compiler/tests/cuda_program_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_ROW_GROUP_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_ROW_GROUP_H_

#include <vector>

#include "compiler/cuda/planning/kernel_shape.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

// Partitions the program's kernels, in order, into groups of consecutive
// kernel indices; every kernel is in exactly one group. `shapes[i]` is
// AnalyzeKernel of kernel i.
std::vector<std::vector<int>> PlanRowGroups(const kernel::Program& program,
                                            const std::vector<KernelShape>& shapes);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_ROW_GROUP_H_
