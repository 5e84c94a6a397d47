// Tensor-core matmuls: which matched matmul kernels (kernel_shape.h) the
// NVPTX backend runs on `mma.sync` (nvptx_mma_matmul.cc) instead of the
// SIMT tiles.
//
// A kernel qualifies when both operands are f16 (or both bf16) tensors read
// straight from memory and widened to the accumulator (f64 by default, f32
// under fast_math), i.e. each operand expression is
// cast<acc>(load(buffer, index)), and each index is affine in
// the row, k and column variables with the element steps the tiles copy 16
// bytes at a time:
//   - the left operand has k contiguous (step 1), rows `row_stride` apart;
//   - the right operand has either its columns contiguous (a [K, N] row-major
//     matrix, rows `row_stride` apart) or k contiguous (a [N, K] matrix, the
//     transpose of a linear layer's weight);
//   - the contiguous extent, the row stride and the offset the batch
//     variables add are multiples of 8 elements, so every 16-byte chunk is
//     aligned and lies wholly inside or outside the matrix.
// Anything else (fused prologues, gathers, odd strides, f32 operands) keeps
// the SIMT form, so the choice never changes which graphs compile.
// The tensor cores sum in f32 whatever the accumulator: products of f16/bf16
// values are exact in f32, so the forms differ only in the sums (f32 instead
// of f64 by default), whose error stays far below the f16/bf16 rounding of
// the matmul's result. CompileOptions::tensor_cores = false keeps the SIMT
// form and its accumulator.
//
// Tested by compiler/cuda/codegen/ptx_mma_matmul_test.cc (plans and PTX), and
// on a GPU by compiler/tests/cuda_mma_matmul_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_MMA_MATMUL_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_MMA_MATMUL_H_

#include <cstdint>
#include <optional>

#include "compiler/cuda/planning/kernel_shape.h"

namespace rk::compiler::cuda {

struct MmaOperand {
  int32_t buffer = -1;
  // The load's flat index: evaluated with the row, k and column variables
  // at zero it is the operand's base for the current batch.
  int32_t index = -1;
  int64_t row_stride = 0;    // elements between the rows of the stored matrix
  bool k_contiguous = true;  // right operand only: false = columns contiguous
};

struct MmaPlan {
  DType dtype = DType::kBF16;  // of both operands
  MmaOperand a, b;
};

// Elements a 16-byte chunk holds, the unit every condition above is about.
inline constexpr int64_t kMmaChunk = 8;

std::optional<MmaPlan> PlanMmaMatmul(const kernel::Program& program, const kernel::Kernel& kernel,
                                     const MatmulPattern& matmul);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_MMA_MATMUL_H_
