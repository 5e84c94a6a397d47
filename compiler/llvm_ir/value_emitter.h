// Internal to compiler/llvm_ir: lowers kernel IR expressions to LLVM values
// inside one function. Storage types: f16/bf16 as i16, bool as i8. Compute
// types: f16/bf16 in f32 (rounded after every op when low_precision), bool as
// i1, others as themselves. Numeric rules follow compiler/ir/tensor.h.
#ifndef REPROKIT_COMPILER_LLVM_IR_VALUE_EMITTER_H_
#define REPROKIT_COMPILER_LLVM_IR_VALUE_EMITTER_H_

#include <unordered_map>
#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "compiler/llvm_ir/codegen_options.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace rk::compiler::llvm_ir {

class ValueEmitter {
 public:
  ValueEmitter(llvm::IRBuilder<>& b, llvm::Module& module, const CodegenOptions& options,
               const kernel::Program& program, const kernel::Kernel& kernel)
      : b_(b), module_(module), options_(options), program_(program), kernel_(kernel) {}

  llvm::Type* ComputeType(DType dtype);
  llvm::Type* StorageType(DType dtype);
  // Storage <-> compute conversions.
  llvm::Value* FromStorage(llvm::Value* v, DType dtype);
  llvm::Value* ToStorage(llvm::Value* v, DType dtype);

  // Per-function state set by the kernel emitter.
  std::vector<llvm::Value*> buffers;  // pointer per program buffer (or null)
  std::vector<llvm::Value*> vars;     // loop variables (i64)
  std::vector<llvm::Value*> accs;     // accumulator allocas
  llvm::Value* run_counter = nullptr;
  // Expressions whose values the kernel emitter already holds (the GPU's
  // short-row groups pass a stage's per-row results to later stages in
  // registers, compiler/cuda/planning/warp_rows.h): Emit returns them, ClearCache
  // keeps them.
  std::unordered_map<int32_t, llvm::Value*> known;

  // Emits expression `id` (memoized until ClearCache).
  llvm::Value* Emit(int32_t id);
  void ClearCache() { cache_.clear(); }
  llvm::Value* Pointer(int32_t buffer, llvm::Value* index);
  llvm::Value* Combine(Op combine, DType dtype, llvm::Value* acc, llvm::Value* v, bool reassoc);
  llvm::Value* ArgmaxTake(DType dtype, llvm::Value* v, llvm::Value* best);

 private:
  llvm::Value* EmitUncached(const kernel::Expr& e);
  llvm::Value* EmitCast(llvm::Value* v, DType from, DType to);
  llvm::Value* EmitOp(const kernel::Expr& e);
  llvm::Value* EmitUnary(Op op, DType dtype, llvm::Value* x);
  llvm::Value* EmitBinary(Op op, DType dtype, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitCompare(Op op, DType dtype, llvm::Value* x, llvm::Value* y);
  llvm::Value* IntDiv(llvm::Value* x, llvm::Value* y);
  // mod or floordiv (floor semantics, compiler/reference/interpreter.h).
  llvm::Value* IntFloorDivMod(Op op, llvm::Value* x, llvm::Value* y);
  llvm::Value* FloatFloorDivMod(Op op, llvm::Value* x, llvm::Value* y);
  llvm::Value* RoundTo(DType dtype, llvm::Value* v);
  llvm::Value* MathCall(const char* f32_name, const char* f64_name, llvm::Value* x);
  llvm::Value* MathCall2(const char* f32_name, const char* f64_name, llvm::Value* x,
                         llvm::Value* y);
  llvm::Value* Intrinsic(llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y = nullptr);
  llvm::Value* FastExp(llvm::Value* x);
  llvm::Value* AccurateExp(llvm::Value* x);
  llvm::Value* FastTanh(llvm::Value* x);
  // NVPTX only (CodegenOptions::approx_16bit_math): f32 in, f32 out.
  llvm::Value* ApproxExp(llvm::Value* x);
  llvm::Value* ApproxSigmoid(llvm::Value* x);
  llvm::Value* FloatToIntWrapped(llvm::Value* v, DType to);
  llvm::Value* RoundAfterOp(DType dtype, llvm::Value* v);

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
  const CodegenOptions& options_;
  const kernel::Program& program_;
  const kernel::Kernel& kernel_;
  std::unordered_map<int32_t, llvm::Value*> cache_;
};

}  // namespace rk::compiler::llvm_ir

#endif  // REPROKIT_COMPILER_LLVM_IR_VALUE_EMITTER_H_
