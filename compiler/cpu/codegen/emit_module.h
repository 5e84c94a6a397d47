// Kernel IR -> LLVM IR for the x86 JIT, one module per kernel: an internal
// function `kernel` (buffer pointers as noalias arguments, the outermost loop
// bounded by [begin, end) so it can be split across threads) and an external
// thunk `rk_kernel(args, begin, end, run_counter)` that reads the pointers from
// `args`, one per KernelArguments() entry. Nothing in the module depends on the
// kernel's name or its position in the program, so two kernels doing the same
// work on buffers of the same types print to the same text (the kernel cache's
// key, kernel_cache.h). Innermost loops carry vectorization metadata when a
// width is requested.
//
// Tested by compiler/driver/compile_cache_test.cc (and every end-to-end test).
#ifndef REPROKIT_COMPILER_CPU_CODEGEN_EMIT_MODULE_H_
#define REPROKIT_COMPILER_CPU_CODEGEN_EMIT_MODULE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/llvm_ir/codegen_options.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace rk::compiler::cpu {

inline constexpr const char* kThunkName = "rk_kernel";

// The program buffers a kernel's thunk takes, in `args` order (sorted, unique;
// kernel-local scratch excluded).
std::vector<int32_t> KernelArguments(const kernel::Kernel& kernel);

// `verify` runs the LLVM verifier (Internal on invalid IR).
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitKernelModule(const kernel::Program& program,
                                                               const kernel::Kernel& kernel,
                                                               const llvm_ir::CodegenOptions& options,
                                                               llvm::LLVMContext& context,
                                                               bool verify);

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_EMIT_MODULE_H_
