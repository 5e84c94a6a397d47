// Short GPU rows: which row reductions and row groups run a warp per row.
//
// The block form (nvptx_rows.cc) gives each row a block; its threads combine
// partials through shuffles, then through shared memory between two block
// barriers, once per stage. On short rows that is mostly waiting: a
// 768-wide bf16 row is 96 threads with one 16-byte load each, and every
// stage stalls the whole block twice. Rows a warp can hold in registers run
// instead as warp rows (nvptx_warp_rows.cc): a block of several warps, each
// warp taking its own rows; a lane holds up to kMaxWarpRowPoints points of
// every stage, loaded 16 bytes at a time and all issued before the math;
// partials combine by `shfl.sync.bfly` butterflies only; a row group's
// stages follow each other with no barrier, a stage's per-row results (a
// row's max, mean) reaching later stages in registers. No shared memory, no
// block barrier. The grid covers the rows (a block per kWarpRowsPerBlock
// rows); the entry still grid-strides, so any grid is correct.
//
// Same numerics as the block form: every lane accumulates its points in a
// fixed order, the butterfly fixes the combine order (so results depend on
// the row length only), sums stay in f64 unless fast_math/low_precision, the
// epilogue is the kernel's own, argmax keeps the first maximum.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc (the form chosen, its PTX: no
// barriers or shared memory, 16-byte loads; longer rows keep the block form)
// and on a GPU by compiler/tests/cuda_program_test.cc (CudaWarpRowsTest).
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_WARP_ROWS_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_WARP_ROWS_H_

#include <vector>

#include "compiler/cuda/planning/kernel_shape.h"

namespace rk::compiler::cuda {

// Most points of a stage's reduction or epilogue loop one lane holds.
inline constexpr int kMaxWarpRowPoints = 32;
// What those points may take in registers, in their compute types (f16 and
// bf16 are computed in f32): 32 points of 4 bytes (rows of up to 1024
// elements), 16 of 8 bytes (rows of up to 512 f64 or i64 elements).
inline constexpr int kMaxWarpRowBytes = 128;
// Rows (warps) per block.
inline constexpr int kWarpRowsPerBlock = 8;

// Warps per block for the row group whose stages (row reductions over the
// same rows, in order) are `stages`, each warp taking its own rows; 0 keeps
// the block form. `element_bytes` is the widest element the stages stream.
// Rows qualify when every stage's reduction and epilogue loops have at most
// 32 points per lane, and at most kMaxWarpRowBytes of them in compute types.
int WarpRowsPerBlock(const std::vector<const KernelShape*>& stages, int element_bytes);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_WARP_ROWS_H_
