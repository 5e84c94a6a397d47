// Kernel IR -> callable x86 kernels. Every kernel is looked up by its kernel
// IR (compiler/kernel/kernel_key.h), codegen options and optimization level,
// before any LLVM runs: first in the process-wide KernelCache, then in the
// DiskKernelCache (under a SHA-256 of that key, the host target and the LLVM
// and reprokit versions). The kernels found nowhere are emitted, each in its
// own LLVMContext (emit_module.h), optimized and compiled to one object each
// on several threads (base's
// ParallelFor over CompileThreads, at least two kernels a thread), stored on
// disk, and all objects of the call are linked into one JITDylib in one lookup
// (jit.h). A kernel's object depends only on its own module, so the machine
// code is the same whatever the thread count or the kernels around it. Kernels
// identical within one program are compiled once.
//
// Kernels with less than 64K innermost iterations (the harness's graphs), or
// less than 1,024 per LLVM instruction (tiled matmuls of small shapes), are
// small: at opt_level=2 they get kSmallKernelPipeline and CodeGenOptLevel::None,
// the others kKernelPipeline and Less. Without fast_math no pipeline changes a
// value (no reassociation, no contraction), so results agree either way. f32
// exp is computed inline (accurate_exp.h, vectorizes) in kernels of 64K
// iterations or more and by expf in the others: both within 1 ulp of exp, not
// always the same bits.
//
// With `use_cache` off every kernel is compiled here (dumps need the whole
// program's IR and assembly) and nothing is cached, in memory or on disk.
//
// Tested by compiler/cpu/codegen/host_compiler_test.cc (thread counts, the disk
// cache through the compiler), compiler/driver/compile_cache_test.cc and
// compiler/cpu/codegen/kernel_key_emit_test.cc (the key decides the module).
#ifndef REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_
#define REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cpu/runtime/executor.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/llvm_ir/codegen_options.h"
#include "compiler/support/disk_kernel_cache.h"

namespace rk::compiler::cpu {

struct HostCompileOptions {
  llvm_ir::CodegenOptions codegen;
  int opt_level = 2;
  bool use_cache = true;
  DiskKernelCache* disk_cache = nullptr;  // with use_cache; nullptr: memory only
  int threads = 0;         // compile threads; 0: CompileThreads(kernels to compile)
  bool verify = false;     // run the LLVM verifier on every emitted module
  bool keep_text = false;  // fill HostProgram's IR and assembly texts
};

// Where one kernel of the program came from, and what it cost.
struct HostKernelTiming {
  std::string name;          // the kernel's name in the program
  std::string source;        // "compiled", "memory", "disk" or "duplicate" (of an earlier one)
  double emit_ms = 0;        // LLVM IR emission (none for a cached kernel)
  double optimize_ms = 0;
  double codegen_ms = 0;
};

struct HostProgram {
  std::vector<KernelCall> kernels;  // program order
  std::vector<std::shared_ptr<const void>> code;  // keeps the kernels' machine code alive
  int cached_kernels = 0;       // kernels taken from the in-process cache
  int disk_cached_kernels = 0;  // kernels taken from the disk cache
  int threads = 1;              // threads that emitted and compiled
  // Summed over threads: emission and cache keys (llvm_ir_ms also counts the
  // lookups), optimization, code generation. link_ms and wall_ms are wall.
  double llvm_ir_ms = 0;
  double optimize_ms = 0;
  double codegen_ms = 0;
  double link_ms = 0;
  double wall_ms = 0;  // the whole of CompileForHost
  std::vector<HostKernelTiming> timings;  // program order
  // keep_text only: every kernel's module before and after optimization, and
  // its assembly, in program order.
  std::string ir_before, ir_after, assembly;
};

absl::StatusOr<HostProgram> CompileForHost(const kernel::Program& program,
                                           const HostCompileOptions& options);

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_HOST_COMPILER_H_
