// Internal to compiler/cuda/codegen: emits one NVPTX entry for one kernel, or
// for a row group (row_group.h: row-reduction kernels run as stages of one
// block per row), or the two entries of a split row reduction (split_rows.h)
// (nvptx_emitter.cc for the entry and grid-stride kernels, nvptx_rows.cc for
// row reductions and row groups, nvptx_warp_rows.cc for short rows a warp
// each (warp_rows.h), nvptx_split_rows.cc for the two passes,
// nvptx_matmul.cc for matmul, nvptx_mma_matmul.cc for its tensor-core form,
// nvptx_wgmma_matmul.cc for the sm_90a one).
//
// Thread mapping of a strided chain of P points over T threads: where P is a
// multiple of T * V (V consecutive points a thread, V chosen so accesses are
// up to 16 bytes wide) and the thread does at most kMaxUnrolledPoints of
// them, the points are p = (j * T + t) * V + v for constant j and v, emitted
// straight-line: loads are independent (several in flight), adjacent ones
// merge into vector loads, and identical loads in later stages of a row group
// (the same row element, same thread) are loaded once. Otherwise a loop.
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_KERNEL_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_KERNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "compiler/cuda/codegen/nvptx_emitter.h"
#include "compiler/cuda/planning/kernel_shape.h"
#include "compiler/cuda/planning/mma_matmul.h"
#include "compiler/cuda/planning/split_rows.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "compiler/llvm_ir/value_emitter.h"
#include "llvm/IR/IRBuilder.h"

namespace rk::compiler::cuda {

inline constexpr int kMaxUnrolledPoints = 16;

// Adds `!nvvm.annotations` {fn, key, value} (e.g. "kernel", "maxntidx").
void Annotate(llvm::Module& module, llvm::Function* fn, const char* key, int value);

class NvptxKernel {
 public:
  // `kernels` are this emitter's own copies (the matmul form rewrites one
  // expr); more than one only for a row group of row-reduction kernels.
  NvptxKernel(llvm::Module& module, const llvm_ir::CodegenOptions& options,
              const kernel::Program& program, std::vector<kernel::Kernel> kernels,
              std::vector<KernelShape> shapes);

  // Emits the entry and fills `launch`.
  void Emit(KernelLaunch& launch);
  // A single row-reduction kernel as two entries (split_rows.h).
  void EmitSplit(const SplitRows& plan, KernelLaunch& partials, KernelLaunch& combine);

 private:
  struct Stage {
    kernel::Kernel kernel;
    KernelShape shape;
    std::unique_ptr<llvm_ir::ValueEmitter> values;
  };
  // Makes stage `i` the one kernel_, shape_ and values_ refer to.
  void UseStage(size_t i);
  // Creates the entry `rk_<kernel><suffix>`; with `scratch` it takes the
  // scratch buffer after the program buffers (scratch_); `tensor_maps` > 0
  // adds that many 128-byte tensor maps by value (grid constants) after the
  // run counter (tensor_maps_).
  void Begin(KernelLaunch& launch, const std::string& suffix = "", bool scratch = false,
             int tensor_maps = 0);
  void EmitGridStride();
  void EmitRowReduction(KernelLaunch& launch);
  int RowGroupThreads() const;
  // Short rows (warp_rows.h): `warps` warps a block, each taking its own rows.
  void EmitWarpRows(KernelLaunch& launch, int warps);
  // One stage of a warp row: reduction, combine, epilogue. Per-row results
  // it stores go into `row_values` (buffer -> value) for later stages.
  void WarpRowStage(llvm::Value* lane, std::vector<std::pair<int32_t, llvm::Value*>>& row_values);
  // Runs `chain` split over the 32 lanes of a warp as constant vector points
  // (lane l's are (j * 32 + l) * width + v), loaded all at once or one
  // vector at a time; where the vectors do not divide by 32, the last one a
  // lane loads is clamped into the row and runs only if it is its own.
  // Chains with more than 32 * kMaxWarpRowPoints points loop instead.
  enum class WarpLoads { kAllFirst, kByVector };
  void WarpStridedChain(const LoopChain& chain, llvm::Value* lane, WarpLoads loads);
  // The accumulators' partial values combined across the warp; every lane
  // ends up holding the same result.
  void WarpCombine(const kernel::Stmt& update);
  void EmitRowPartials(const SplitRows& plan, KernelLaunch& launch);
  void EmitRowCombine(const SplitRows& plan, KernelLaunch& launch);
  // Runs `chain`'s points [lo, hi) split over the block's threads_ threads,
  // vector-wide where the chain allows (lo a multiple of kChunkAlign).
  void ChunkStridedChain(const LoopChain& chain, llvm::Value* lo, llvm::Value* hi);
  // The scratch slot `slot` of the partial values (or of argmax indices at
  // byte offset `offset`).
  llvm::Value* ScratchSlot(llvm::Value* slot, int64_t offset);
  // The SIMT tiles, or the tensor-core form where the options and the
  // kernel allow it (mma_matmul.h).
  void EmitMatmul(KernelLaunch& launch);
  void EmitMmaMatmul(KernelLaunch& launch, const MmaPlan& plan);
  // The sm_90a form of the same plan (wgmma_matmul.h, nvptx_wgmma_matmul.cc).
  void EmitWgmmaMatmul(KernelLaunch& launch, const MmaPlan& plan, const WgmmaTiling& tiling);
  // Tensor maps the entry takes: 2 for a matmul on the wgmma form with TMA
  // loads (wgmma_matmul.h, tma=1), else 0.
  int WgmmaTensorMaps() const;

  // Sequential statements on the current thread.
  void EmitStmts(const std::vector<const kernel::Stmt*>& stmts);
  void EmitStmt(const kernel::Stmt& s);
  // for (v = lo; v < hi; v += step) body(v), all i64; `unroll` > 1 has
  // LLVM unroll it that many times (a remainder loop takes the rest), else
  // it stays rolled.
  void ForLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
               const std::function<void(llvm::Value*)>& body, int unroll = 0);
  // Sets the chain's loop variables from a flat index (innermost fastest).
  void SetChainVars(const LoopChain& chain, llvm::Value* flat);
  // Runs `chain` with its points split as [first, first + step, ...).
  void StridedChain(const LoopChain& chain, llvm::Value* first, llvm::Value* step);
  // Runs `chain` split over the block's threads_ threads (see above).
  void BlockStridedChain(const LoopChain& chain);
  // Runs the chain's body at points base + v, v in [0, width), for each
  // base in turn: the innermost variable steps by one (the caller keeps the
  // points in one innermost row). Loads of every point come first; each
  // base's elementwise stores follow its points. With `last_base_valid`, the
  // last base's points are loaded (the caller keeps them in bounds) but run
  // only where it is true.
  void VectorPoints(const LoopChain& chain, const std::vector<llvm::Value*>& bases, int width,
                    llvm::Value* last_base_valid = nullptr);
  void VectorPoints(const LoopChain& chain, llvm::Value* base, int width) {
    VectorPoints(chain, std::vector<llvm::Value*>{base}, width);
  }
  // The bodies of one base's `points` (VectorPoints), then its stores; with
  // `valid`, only where it is true.
  void PointBodies(const LoopChain& chain,
                   absl::Span<const std::unique_ptr<llvm_ir::ValueEmitter>> points,
                   bool only_stores, llvm::Value* valid);
  // VectorPoints' emitters, one per point (bases outer, v inner), each with
  // the `loads` of read-only buffers already emitted.
  std::vector<std::unique_ptr<llvm_ir::ValueEmitter>> PointEmitters(
      const LoopChain& chain, const std::vector<llvm::Value*>& bases, int width,
      const std::vector<int32_t>& loads);
  // Widest V <= 16 bytes / the largest element that `points` allow.
  int VectorWidth(int64_t points, int64_t inner_extent) const;
  // The accumulators' partial values combined across the block; every
  // thread ends up holding the block's result.
  void BlockCombine(const kernel::Stmt& update);
  // Butterfly over the warp's 32 lanes of an accumulator value (and, for
  // argmax, its index): every lane ends with a combination of all 32.
  void WarpButterfly(const kernel::Stmt& update, llvm::Value*& value, llvm::Value*& index);
  llvm::Value* ShuffleXor(llvm::Value* v, int lane_mask);
  // Lane `lane`'s `v`, on every lane.
  llvm::Value* ShuffleIdx(llvm::Value* v, int lane);
  llvm::Value* Shuffle(llvm::Value* v, int lane_arg, unsigned i32_intrinsic,
                       unsigned f32_intrinsic);
  llvm::Value* CombineArgmax(DType dtype, llvm::Value* value, llvm::Value* index,
                             llvm::Value* other_value, llvm::Value* other_index,
                             llvm::Value** out_index);
  // Combines a partial (value, and index for argmax) into the update's
  // accumulators.
  void CombineIntoAccumulator(const kernel::Stmt& update, llvm::Value* other_value,
                              llvm::Value* other_index);
  llvm::Value* Special(unsigned intrinsic);
  llvm::Value* SharedArray(llvm::Type* element, int64_t count, const char* name);
  void Barrier();
  // if (cond) then(); with the insert point after.
  void If(llvm::Value* cond, const std::function<void()>& then);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const llvm_ir::CodegenOptions& options_;
  const kernel::Program& program_;
  std::vector<std::unique_ptr<Stage>> stages_;
  kernel::Kernel* kernel_ = nullptr;
  KernelShape* shape_ = nullptr;
  llvm_ir::ValueEmitter* values_ = nullptr;
  int threads_ = 0;        // block size of row reductions
  int max_elem_bytes_ = 1; // widest element any stage accesses
  int64_t value_ops_ = 0;  // kOp and kCast expressions of all stages
  llvm::Function* fn_ = nullptr;
  llvm::Value* scratch_ = nullptr;  // the split form's partials
  std::vector<llvm::Value*> tensor_maps_;  // generic addresses of Begin's tensor maps
  llvm::BasicBlock* entry_block_ = nullptr;
};

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_KERNEL_H_
