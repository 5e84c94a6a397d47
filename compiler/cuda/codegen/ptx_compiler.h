// Kernel IR -> PTX through LLVM's NVPTX backend, with no GPU needed:
// nvptx_emitter.h builds the module, math calls bind to libdevice (linked
// lazily, only the functions used), everything but the entries is
// internalized, LLVM's O2 pipeline runs for the NVPTX TargetMachine
// (NVVMReflect included), and the backend prints PTX for options.arch.
//
// libdevice.10.bc is looked up in $REPROKIT_LIBDEVICE, next to the running
// binary, under $CUDA_PATH/nvvm/libdevice and /usr/local/cuda/nvvm/libdevice;
// a program using transcendental math without it is FailedPrecondition.
//
// With GpuOptions::disk_cache every unit of emission is a module of its own
// whose entries (and shared arrays) are named after a SHA-256 of the unit's
// LLVM IR as emitted, its arch and opt level and the LLVM and reprokit
// versions, so the same unit in any program, minimizer candidate or process
// has the same PTX text: the cache keeps that text under the same key (LLVM's
// O2 and code generation are skipped on a hit), and the CUDA driver's own JIT
// cache keeps the SASS it compiles from it.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc and ptx_module_cache_test.cc
// (no GPU needed).
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_PTX_COMPILER_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_PTX_COMPILER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cuda/codegen/nvptx_emitter.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

struct PtxProgram {
  // The units of emission (row groups or kernels, nvptx_emitter.h) in
  // consecutive runs, a module a compile thread (GpuOptions::compile_threads,
  // else CompileThreads in base/parallel_for.h: up to 8), or one
  // module for all when LLVM text is kept (dumps). The driver loads them on
  // as many threads.
  std::vector<std::string> modules;
  std::string ptx;                     // all modules, in order (for dumps and tests)
  std::vector<KernelLaunch> launches;  // in launch order (a row group is one, a split row two)
  std::string llvm_before_opt;         // filled when asked for
  std::string llvm_after_opt;
  // Per phase, summed over modules (thread time; modules overlap in wall time).
  double emit_ms = 0;      // planning + kernel IR -> LLVM IR
  double optimize_ms = 0;  // libdevice link + O2
  double codegen_ms = 0;   // NVPTX instruction selection and printing
  double wall_ms = 0;      // all of CompileToPtx
  int threads = 1;         // threads the modules compiled on
  int disk_cached_modules = 0;  // modules read from GpuOptions::disk_cache
};

absl::StatusOr<PtxProgram> CompileToPtx(const kernel::Program& program, const GpuOptions& options,
                                        bool keep_llvm_text = false);

// The newest arch LLVM prints PTX for that a device of compute capability
// cc_major.cc_minor runs: its own (sm_86 for 8.6), else the newest older one
// (sm_90 for 10.0: the driver compiles PTX forward); never an "a" arch.
std::string NvptxArchFor(int cc_major, int cc_minor);

// One line per launch: entry, form, block, grid, work, buffers, scratch bytes
// when it takes the scratch buffer (for dumps).
std::string PrintLaunches(const std::vector<KernelLaunch>& launches);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_PTX_COMPILER_H_
