// Tensor-core matmuls: which matched matmul kernels (kernel_shape.h) the
// NVPTX backend runs on `mma.sync` (nvptx_mma_matmul.cc) instead of the
// SIMT tiles.
//
// A kernel qualifies when both operands are f16 (or both bf16, or with
// `tf32` both f32) tensors read straight from memory and widened to the
// accumulator (f64 by default, f32 under fast_math), i.e. each operand
// expression is cast<acc>(load(buffer, index)) (or the load itself when it
// already has the accumulator's type), and each index is affine in
// the row, k and column variables with the element steps the tiles copy 16
// bytes at a time:
//   - the left operand has k contiguous (step 1), rows `row_stride` apart;
//   - the right operand has either its columns contiguous (a [K, N] row-major
//     matrix, rows `row_stride` apart) or k contiguous (a [N, K] matrix, the
//     transpose of a linear layer's weight);
//   - the contiguous extent, the row stride and the offset the batch
//     variables add are whole 16-byte chunks (8 elements, 4 for f32), so
//     every chunk is aligned and lies wholly inside or outside the matrix.
// Anything else (fused prologues, gathers, odd strides, f32 operands) keeps
// the SIMT form, so the choice never changes which graphs compile.
// The tensor cores sum in f32 whatever the accumulator: products of f16/bf16
// values are exact in f32, so the forms differ only in the sums (f32 instead
// of f64 by default), whose error stays far below the f16/bf16 rounding of
// the matmul's result. CompileOptions::tensor_cores = false keeps the SIMT
// form and its accumulator. TF32 (f32 operands, only when asked for) rounds
// each operand to a 10-bit mantissa before its products: a numerics change
// of the kind that causes real accuracy failures, there to reproduce them.
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
  DType dtype = DType::kBF16;  // of both operands: f16, bf16, or f32 (TF32)
  MmaOperand a, b;
};

// The unit every condition above is about, and what it holds of `dtype`.
inline constexpr int64_t kMmaChunkBytes = 16;
inline int64_t MmaChunkElements(DType dtype) { return dtype == DType::kF32 ? 4 : 8; }

// `tf32`: f32 operands qualify too.
std::optional<MmaPlan> PlanMmaMatmul(const kernel::Program& program, const kernel::Kernel& kernel,
                                     const MatmulPattern& matmul, bool tf32 = false);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_MMA_MATMUL_H_
