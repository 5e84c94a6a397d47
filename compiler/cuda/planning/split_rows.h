// The two-pass form of a row reduction whose rows are few and long.
//
// The one-pass form (kernel_shape.h, nvptx_rows.cc) runs a block per row. With
// fewer rows than the GPU holds blocks (a full reduction is one row;
// reduce_sum over axis 1 of f32[8, 4M]; argmax of a long vector) most SMs
// idle. Such a kernel runs as two launches instead:
//   pass 1, `rk_kN_partials`, grid (C, rows): block (c, r) reduces points
//     [c * L, min((c + 1) * L, P)) of row r's reduction exactly as the
//     one-pass block reduces a row (threads split the points, warp shuffles,
//     warps combined through shared memory in a fixed order) and stores its
//     accumulator (the value in the accumulator's compute type, and for
//     argmax the index) to slot r * C + c of the program's scratch buffer;
//   pass 2, `rk_kN_combine`, grid (E, rows): every block of row r combines
//     the row's C partials in a fixed order (thread t takes partials t,
//     t + T, ... left to right, then the block combine), so all E blocks hold
//     bitwise the same value, and runs the row's epilogue: its loops split
//     into E chunks, its other statements on block 0's thread 0.
// No atomics: a result depends on the shape only, never on timing. Chunks
// start at multiples of 16 points, so 16-byte accesses never straddle them.
//
// The scratch buffer (scratch_bytes, values then argmax indices, 8 bytes a
// slot) is allocated once per loaded program (cuda_program.h) and shared by
// its split kernels, which run one after another.
//
// Tested by compiler/cuda/codegen/split_rows_test.cc (the plan),
// compiler/cuda/codegen/ptx_compiler_test.cc (entries, launch plan, scratch) and on a
// GPU by compiler/tests/cuda_program_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_SPLIT_ROWS_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_SPLIT_ROWS_H_

#include <cstdint>
#include <optional>

#include "compiler/cuda/planning/kernel_shape.h"

namespace rk::compiler::cuda {

// When to split. The one-pass form's long rows take 1024-thread blocks, two
// of which fill an SM: from 264 rows on, a 132-SM H100 is full and splitting
// would only add a launch and the partials' round trip. Below that, a row is
// split when it gives at least kMinChunks chunks of kMinChunkPoints (64
// points a thread of pass 1), enough work a block to amortize its combine and
// the partial's store (shorter rows take about as long as the second launch
// would). C = min(kSplitTargetBlocks / rows, P / kMinChunkPoints): rows * C
// stays within kSplitTargetBlocks, eight resident 256-thread blocks an SM of
// an H100, i.e. one wave (a partly filled second wave would only add a tail).
// A fixed count, not the device's, so a shape's results are the same on
// every GPU.
inline constexpr int64_t kSplitMaxRows = 264;
inline constexpr int64_t kMinChunkPoints = 16384;
inline constexpr int64_t kMinChunks = 4;
inline constexpr int64_t kSplitTargetBlocks = 1056;
// Pass 2 splits epilogue loops (softmax's divide) the same way, E =
// min(kSplitTargetBlocks / rows, ceil(points / kMinEpiloguePoints)): at
// least 16 points a thread.
inline constexpr int64_t kMinEpiloguePoints = 4096;

inline constexpr int kPartialThreads = 256;  // pass 1 block
inline constexpr int kCombineThreads = 256;  // pass 2 block
inline constexpr int64_t kPartialSlotBytes = 8;  // compute types are at most 64 bits
inline constexpr int64_t kChunkAlign = 16;       // points; the widest vector

struct SplitRows {
  int64_t rows = 1;
  int64_t points = 0;            // P: reduced points per row
  int64_t chunks = 1;            // C: pass-1 blocks per row
  int64_t chunk_points = 0;      // L: a multiple of kChunkAlign
  int64_t epilogue_chunks = 1;   // E: pass-2 blocks per row (1 without epilogue loops)
  bool argmax = false;           // partials carry an i64 index too

  int64_t slots() const { return rows * chunks; }
  // Byte offset of the argmax indices in the scratch buffer.
  int64_t index_offset() const { return slots() * kPartialSlotBytes; }
  int64_t scratch_bytes() const { return slots() * kPartialSlotBytes * (argmax ? 2 : 1); }
};

// Points per chunk when `points` are split into (at most) `chunks` chunks
// starting at multiples of kChunkAlign: chunk c is [c * L, min((c + 1) * L,
// points)); ceil(points / L) chunks are non-empty.
int64_t ChunkLength(int64_t points, int64_t chunks);

// The two-pass plan for a kernel AnalyzeKernel read as a row reduction, or
// nullopt when its rows keep the one-pass form.
std::optional<SplitRows> PlanSplitRows(const KernelShape& shape);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_SPLIT_ROWS_H_
