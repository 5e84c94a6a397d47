// How a kernel of the target-neutral kernel IR maps onto a GPU grid.
//
// Every kernel the kernel builder makes is one of a few loop structures; this
// reads which, without changing the IR:
//   - grid-stride: independent top-level loop nests (elementwise groups,
//     concat pieces, anything else); each nest is flattened and every point
//     runs its innermost statements sequentially on one thread;
//   - row reduction: an outer nest of rows whose body is accumulator inits,
//     one reduction nest ending in a single update, and an epilogue; a block
//     takes a row, its threads split the reduction and combine through warp
//     shuffles, then split the epilogue (few, long rows: two passes,
//     split_rows.h);
//   - matmul: rows of a local accumulator row updated in i-k-j order
//     (compiler/kernel/matmul_lowering.cc); becomes a shared-memory tiled
//     kernel that evaluates the same operand and store expressions.
// Anything unrecognized falls back to grid-stride with sequential bodies, so
// every kernel has a correct mapping.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_KERNEL_SHAPE_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_KERNEL_SHAPE_H_

#include <cstdint>
#include <vector>

#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

// The last two are the launches of a row reduction split in two passes
// (split_rows.h); AnalyzeKernel never returns them.
enum class KernelForm : uint8_t { kGridStride, kRowReduction, kMatmul, kRowPartials, kRowCombine };

const char* KernelFormName(KernelForm form);

// A perfectly nested chain of loops (outermost first) and the statements
// inside the innermost one. No loops: `body` is the statements themselves.
struct LoopChain {
  std::vector<const kernel::Stmt*> loops;
  std::vector<const kernel::Stmt*> body;
  int64_t points = 1;  // product of the loop extents
};

// Peels loops while the statement list is exactly one loop.
LoopChain PeelChain(const std::vector<const kernel::Stmt*>& stmts);

struct RowReduction {
  std::vector<const kernel::Stmt*> inits;  // kAccInit
  LoopChain reduce;                        // body: the one update
  std::vector<const kernel::Stmt*> rest;   // epilogue (loops split, others on thread 0)
};

struct MatmulPattern {
  int32_t row_buffer = -1;               // the kLocal accumulator row
  std::vector<const kernel::Stmt*> batch_loops;
  int32_t i_var = -1;                    // -1 when m == 1
  int32_t k_var = -1, j_var = -1;        // of the update loop
  int32_t lhs = -1, rhs = -1;            // operand exprs, already in the accumulator type
  int32_t out_j_var = -1;                // of the store loop
  int32_t row_load = -1;                 // Load(row, out_j) inside the store's value
  const kernel::Stmt* store = nullptr;   // the output store
  DType acc_dtype = DType::kF32;
  int64_t batch = 1, m = 1, n = 1, k = 1;
};

struct KernelShape {
  KernelForm form = KernelForm::kGridStride;
  bool null_load = false;         // the runtime_crash fault's leading kNullLoad
  std::vector<LoopChain> phases;  // grid-stride: independent nests; else the one row nest
  RowReduction row;
  MatmulPattern matmul;
  int64_t work = 1;               // points of the largest phase, rows, or batch
  int64_t local_bytes = 0;        // per-thread scratch of kLocal buffers
  // A row reduction run as grid-stride, a thread per row and one row a thread
  // (thread_rows.h: its loads coalesce across rows, not along them).
  bool thread_per_row = false;
};

// Below this many reduced elements per row, a thread reduces a row alone.
inline constexpr int64_t kMinBlockReduction = 32;

KernelShape AnalyzeKernel(const kernel::Program& program, const kernel::Kernel& kernel);

// Threads per block for a block-per-row reduction of `reduce_points` elements.
int RowReductionThreads(int64_t reduce_points);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_KERNEL_SHAPE_H_
