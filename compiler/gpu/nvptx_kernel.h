// Internal to compiler/gpu: emits one kernel's NVPTX entry (nvptx_emitter.cc
// for grid-stride and row-reduction kernels, nvptx_matmul.cc for matmul).
#ifndef REPROKIT_COMPILER_GPU_NVPTX_KERNEL_H_
#define REPROKIT_COMPILER_GPU_NVPTX_KERNEL_H_

#include <functional>
#include <vector>

#include "compiler/codegen/value_emitter.h"
#include "compiler/gpu/kernel_shape.h"
#include "compiler/gpu/nvptx_emitter.h"
#include "llvm/IR/IRBuilder.h"

namespace rk::compiler::gpu {

class NvptxKernel {
 public:
  // `kernel` is this emitter's own copy (the matmul form rewrites one expr).
  NvptxKernel(llvm::Module& module, const codegen::CodegenOptions& options,
              const kernel::Program& program, kernel::Kernel kernel, KernelShape shape);

  // Emits the entry and fills `launch`.
  void Emit(KernelLaunch& launch);

 private:
  void Begin(KernelLaunch& launch);
  void EmitGridStride();
  void EmitRowReduction(KernelLaunch& launch);
  void EmitMatmul(KernelLaunch& launch);

  // Sequential statements on the current thread.
  void EmitStmts(const std::vector<const kernel::Stmt*>& stmts);
  void EmitStmt(const kernel::Stmt& s);
  // for (v = lo; v < hi; v += step) body(v), all i64; `unroll` leaves the
  // loop to LLVM's unroller.
  void ForLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
               const std::function<void(llvm::Value*)>& body, bool unroll = false);
  // Sets the chain's loop variables from a flat index (innermost fastest).
  void SetChainVars(const LoopChain& chain, llvm::Value* flat);
  // Runs `chain` with its points split as [first, first + step, ...).
  void StridedChain(const LoopChain& chain, llvm::Value* first, llvm::Value* step);
  // The accumulators' partial values combined across the block; every
  // thread ends up holding the block's result.
  void BlockCombine(const kernel::Stmt& update);
  llvm::Value* ShuffleXor(llvm::Value* v, int lane_mask);
  llvm::Value* CombineArgmax(DType dtype, llvm::Value* value, llvm::Value* index,
                             llvm::Value* other_value, llvm::Value* other_index,
                             llvm::Value** out_index);
  llvm::Value* Special(unsigned intrinsic);
  llvm::Value* SharedArray(llvm::Type* element, int64_t count, const char* name);
  void Barrier();
  // if (cond) then(); with the insert point after.
  void If(llvm::Value* cond, const std::function<void()>& then);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const codegen::CodegenOptions& options_;
  const kernel::Program& program_;
  kernel::Kernel kernel_;
  KernelShape shape_;
  codegen::ValueEmitter values_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_block_ = nullptr;
};

}  // namespace rk::compiler::gpu

#endif  // REPROKIT_COMPILER_GPU_NVPTX_KERNEL_H_
