// Kernel IR -> callable x86 kernels: emits one LLVM module per kernel
// (emit_module.h), looks each up in the process-wide KernelCache by its
// printed IR, the optimization level and the code generation level, links the
// kernels not found into one module per code generation level, optimizes it,
// generates and links machine code once (jit.h), and caches the new kernels.
// Kernels with less than 64K innermost iterations (the harness's graphs) get
// CodeGenOptLevel::None, bigger ones Less: the same optimized IR either way,
// so results agree (fast_math aside: Less may fuse multiply-adds), except
// that f32 exp is computed inline (accurate_exp.h, vectorizes) in the bigger
// kernels and by expf in the small ones: both within 1 ulp of exp, but not
// always the same bits. Kernels identical within one program are compiled
// once.
//
// With `use_cache` off every kernel is compiled here (dumps need the whole
// program's IR and assembly) and nothing is cached.
//
// Tested by compiler/driver/compile_cache_test.cc (and every end-to-end test).
#ifndef REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_
#define REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cpu/runtime/executor.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/llvm_ir/codegen_options.h"

namespace rk::compiler::cpu {

struct HostCompileOptions {
  llvm_ir::CodegenOptions codegen;
  int opt_level = 2;
  bool use_cache = true;
  bool verify = false;     // run the LLVM verifier on every emitted module
  bool keep_text = false;  // fill HostProgram's IR and assembly texts
};

struct HostProgram {
  std::vector<KernelCall> kernels;  // program order
  std::vector<std::shared_ptr<const void>> code;  // keeps the kernels' machine code alive
  int cached_kernels = 0;                         // kernels taken from the cache
  double llvm_ir_ms = 0;  // emission, cache keys, cache lookups, linking modules
  double optimize_ms = 0;
  double codegen_ms = 0;
  double link_ms = 0;
  // keep_text only: the compiled module before and after optimization, and
  // its assembly.
  std::string ir_before, ir_after, assembly;
};

absl::StatusOr<HostProgram> CompileForHost(const kernel::Program& program,
                                           const HostCompileOptions& options);

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_
