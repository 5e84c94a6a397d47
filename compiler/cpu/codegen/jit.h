// The x86 backend's LLVM plumbing: one process-wide ORC LLJIT and host
// TargetMachine (created once: building them costs milliseconds a compile),
// the kernel optimization pipeline (new pass manager, host TTI so loops
// vectorize), assembly for dumps, and JitCode: the machine code of one module
// in its own JITDylib, given back when its last owner lets go. Code generation
// runs here on one of two shared TargetMachines (CodeGenOptLevel::Less, or
// None for kernels with little work), so it is timed apart from linking;
// ORC only links the object. libm resolves from this process, the runtime's
// rk_* helpers from one JITDylib defined at start-up and linked by every
// JitCode.
//
// Tested by compiler/driver/compile_cache_test.cc (and every end-to-end test).
#ifndef REPROKIT_COMPILER_CPU_CODEGEN_JIT_H_
#define REPROKIT_COMPILER_CPU_CODEGEN_JIT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace rk::compiler::cpu {

// Sets the host triple and data layout on `module` (before optimizing).
absl::Status PrepareForHost(llvm::Module& module);

// opt_level 2: the kernel pipeline (function simplification and
// vectorization, no interprocedural passes); 0, 1, 3: LLVM's default pipelines.
absl::Status OptimizeModule(llvm::Module& module, int opt_level);

// Host assembly for `module` (not consumed).
absl::StatusOr<std::string> EmitAssembly(llvm::Module& module);

class JitCode {
 public:
  ~JitCode();
  JitCode(const JitCode&) = delete;
  JitCode& operator=(const JitCode&) = delete;

  struct Timings {
    double codegen_ms = 0;  // instruction selection, register allocation, MC
    double link_ms = 0;     // JITDylib, object linking, symbol lookup
  };

  // Generates machine code for `module`, links it and resolves `symbols`
  // (external functions of the module). `fast_codegen`: CodeGenOptLevel::None
  // (FastISel, fast register allocation: several times cheaper to generate,
  // slower to run) instead of Less.
  static absl::StatusOr<std::shared_ptr<JitCode>> Create(std::unique_ptr<llvm::Module> module,
                                                        absl::Span<const std::string> symbols,
                                                        bool fast_codegen, Timings* timings);

  // The address of symbols[i].
  void* address(size_t i) const { return addresses_[i]; }

 private:
  JitCode() = default;
  void* dylib_ = nullptr;  // llvm::orc::JITDylib*
  std::vector<void*> addresses_;
};

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_JIT_H_
