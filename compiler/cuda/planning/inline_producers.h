// Recomputes cheap elementwise producers in their consumers instead of
// materializing them, on the GPU's copy of the kernel IR.
//
// A bf16 softmax or layer_norm lowers to a cast kernel that writes the input
// upcast to an f32 temp, then row reductions that read that temp: 2 + 4 + 4
// bytes per element moved besides the output, instead of 2. When a kernel is
// a pure elementwise map (one loop nest, one store to a temp at the nest's
// row-major flat index, reading only graph inputs and constants), every load
// of that temp in later kernels is replaced by the producer's expression at
// the loaded element (loop variables recovered by div/mod of the flat index;
// the producer's own loads at its flat index become loads at the consumer's
// index, so they stay contiguous). A producer whose temp has no reader left
// is dropped. Values are the same expression on the same inputs, so results
// do not change.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc (bf16 softmax and layer_norm
// become one kernel) and on a GPU by compiler/tests/cuda_program_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_INLINE_PRODUCERS_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_INLINE_PRODUCERS_H_

#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

// Rewrites `program.kernels` in place; returns whether anything changed.
bool InlineElementwiseProducers(kernel::Program& program);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_INLINE_PRODUCERS_H_
