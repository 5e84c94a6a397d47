// The CUDA backend (device=cuda): the shared front end (lower_to_kernels.h),
// then kernel IR -> PTX (codegen/ptx_compiler.h) -> a loaded CudaProgram
// (runtime/cuda_program.h), with the GPU dumps written on the way, so
// `--dump` gives PTX even on a machine without a GPU (the compile then still
// ends Unavailable).
//
// Dumps in dump_dir: llvm_before_opt.ll, llvm_after_opt.ll, kernels.ptx,
// launches.txt (form, block, grid per kernel) and, on a GPU, kernels.cubin
// and kernels.sass (when cuobjdump is on the PATH).
//
// Tested by compiler/tests/cuda_program_test.cc (skips without a GPU) and
// compiler/cuda/codegen/ptx_compiler_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_CUDA_BACKEND_H_
#define REPROKIT_COMPILER_CUDA_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/backend/backend.h"
#include "compiler/cuda/runtime/cuda_program.h"
#include "compiler/cuda/runtime/device_warm_up.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

struct CudaTimings {
  double llvm_ir_ms = 0;   // kernel IR -> LLVM IR
  double optimize_ms = 0;  // libdevice + O2
  double codegen_ms = 0;   // PTX, plus the driver's load (PTX -> SASS)
  int disk_cached_modules = 0;  // PTX modules read from the disk cache
  int compile_threads = 1;
  ModuleLoadTimings load;  // of codegen_ms: PTX -> machine code, load
  // The CUDA context's creation on its own thread (device_warm_up.h), and
  // the part of it the compile waited for (counted in codegen_ms).
  double context_ms = 0;
  double context_wait_ms = 0;
};

// CompileOptions::cuda_arch as the PTX target: "auto" is the GPU's own arch
// (NvptxArchFor, ptx_compiler.h), or sm_90 where there is no GPU.
std::string ResolveArch(const std::string& arch);

// `warm_up`, when given, is waited for before the modules load (its
// context_ms and wait_ms go into `timings`); null: Load makes the context.
absl::StatusOr<std::unique_ptr<CudaProgram>> BuildCudaProgram(const kernel::Program& program,
                                                              const GpuOptions& options,
                                                              const std::string& dump_dir,
                                                              CudaTimings& timings,
                                                              DeviceWarmUp* warm_up = nullptr);

// The process-wide instance.
const Backend& CudaBackend();

// The loaded GPU program behind an Executable of this backend, for
// device-side timing; null for an Executable of another backend.
const CudaProgram* AsCudaProgram(const Executable& executable);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CUDA_BACKEND_H_
