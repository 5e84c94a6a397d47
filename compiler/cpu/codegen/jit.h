// The x86 backend's LLVM plumbing: one process-wide ORC LLJIT, a pool of host
// TargetMachines (one per code generation level per thread at work: a
// TargetMachine is not thread-safe, and building one costs less than a kernel's
// code generation), the kernel optimization pipelines (new pass manager, host
// TTI so loops vectorize), machine code for one module at a time (so kernels
// compile on several threads, each in its own LLVMContext), assembly for dumps,
// and JitCode: any number of object files linked into one JITDylib, given back
// when its last owner lets go. libm resolves from this process, the runtime's
// rk_* helpers from one JITDylib defined at start-up and linked by every
// JitCode.
//
// Tested by compiler/cpu/codegen/host_compiler_test.cc and
// compiler/driver/compile_cache_test.cc (and every end-to-end test).
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

// What the host's machine code depends on besides the IR: the triple, the
// CPU name and its feature string.
absl::StatusOr<std::string> HostTargetDescription();

// The optimization pipelines, as new-pass-manager text (the text is part of
// the on-disk cache key, so a changed pipeline never reuses old objects).
// kKernelPipeline is O2's function simplification and vectorization without the
// interprocedural passes (kernels are leaf functions called once);
// kSmallKernelPipeline the cleanup that small kernels need (host_compiler.h
// says which kernels are small and why).
extern const char* const kKernelPipeline;
extern const char* const kSmallKernelPipeline;
// opt_level 0, 1, 3: LLVM's default pipelines ("default<O1>", ...); 2:
// kKernelPipeline, or kSmallKernelPipeline for a small kernel.
const char* PipelineFor(int opt_level, bool small_kernel);

// Runs `pipeline` (PipelineFor's text) on `module`. Thread-safe for modules of
// different LLVMContexts.
absl::Status OptimizeModule(llvm::Module& module, const char* pipeline);

// An ELF object for `module` (consumed in the sense that codegen may rewrite
// its IR). `fast_codegen`: CodeGenOptLevel::None (FastISel, fast register
// allocation: several times cheaper to generate, slower to run) instead of
// Less. Thread-safe for modules of different LLVMContexts.
absl::StatusOr<std::string> EmitObject(llvm::Module& module, bool fast_codegen);

// Host assembly for `module` (not consumed).
absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, bool fast_codegen);

class JitCode {
 public:
  ~JitCode();
  JitCode(const JitCode&) = delete;
  JitCode& operator=(const JitCode&) = delete;

  // Links `objects` (EmitObject's, or the same bytes from the disk cache) into
  // one fresh JITDylib and resolves `symbols` (external functions of those
  // objects) in one lookup.
  static absl::StatusOr<std::shared_ptr<JitCode>> Link(absl::Span<const std::string> objects,
                                                      absl::Span<const std::string> symbols);

  // The address of symbols[i].
  void* address(size_t i) const { return addresses_[i]; }

 private:
  JitCode() = default;
  void* dylib_ = nullptr;  // llvm::orc::JITDylib*
  std::vector<void*> addresses_;
};

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_JIT_H_
