// The CUDA backend as the compile driver sees it: kernel IR -> PTX
// (ptx_compiler.h) -> a loaded CudaProgram (cuda_program.h), with the GPU
// dumps written on the way, so `--dump` gives PTX even on a machine without
// a GPU (the compile then still ends Unavailable).
//
// Dumps in dump_dir: llvm_before_opt.ll, llvm_after_opt.ll, kernels.ptx,
// launches.txt (form, block, grid per kernel) and, on a GPU, kernels.cubin
// and kernels.sass (when cuobjdump is on the PATH).
//
// Tested by compiler/gpu/cuda_program_test.cc and ptx_compiler_test.cc.
#ifndef REPROKIT_COMPILER_GPU_CUDA_BACKEND_H_
#define REPROKIT_COMPILER_GPU_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/gpu/cuda_program.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::gpu {

struct CudaTimings {
  double llvm_ir_ms = 0;   // kernel IR -> LLVM IR
  double optimize_ms = 0;  // libdevice + O2
  double codegen_ms = 0;   // PTX, plus the driver's load (PTX -> SASS)
};

absl::StatusOr<std::unique_ptr<CudaProgram>> BuildCudaProgram(const kernel::Program& program,
                                                              const GpuOptions& options,
                                                              const std::string& dump_dir,
                                                              CudaTimings& timings);

}  // namespace rk::compiler::gpu

#endif  // REPROKIT_COMPILER_GPU_CUDA_BACKEND_H_
