// A compiled program on the GPU: its PTX modules assembled and loaded
// (module_loader.h; several on several threads), constants uploaded once, the scratch buffer of split row
// reductions (split_rows.h) allocated once, and Run on host tensors: inputs
// copied in, the kernels launched in order on the shapes ptx_compiler.h chose,
// outputs copied back. Executions of one program are serialized: the scratch
// buffer is the program's, not the run's. A failing kernel (e.g. the runtime_crash fault's bad
// address) surfaces as the driver's error, named with the kernel; such
// errors leave the CUDA context unusable for the rest of the process.
//
// Tested by compiler/tests/cuda_program_test.cc (skips without a GPU).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_PROGRAM_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_PROGRAM_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/cuda/runtime/module_loader.h"
#include "compiler/ir/tensor.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cuda {

class CudaProgram {
 public:
  // Unavailable without a driver or GPU. `program` must outlive the result.
  // With keep_cubin the module goes through the driver's linker and cubin()
  // holds the machine code. `pipeline`: the cubins assembled while the PTX
  // compiled (module_loader.h), or null.
  static absl::StatusOr<std::unique_ptr<CudaProgram>> Load(const kernel::Program& program,
                                                           PtxProgram ptx, bool keep_cubin,
                                                           AssemblyPipeline* pipeline = nullptr);

  // Inputs of exactly the graph's input types, in order (Executable::Run
  // checks them).
  absl::StatusOr<std::vector<HostTensor>> Run(absl::Span<const HostTensor> inputs) const;

  // GPU milliseconds per execution of all kernels with the inputs already on
  // the device: the mean over `iterations` back-to-back executions between
  // two events, after a warm-up execution.
  absl::StatusOr<double> TimeKernelsMs(absl::Span<const HostTensor> inputs, int iterations) const;
  // GPU milliseconds of each of `runs` executions of all kernels, the inputs
  // copied to the device once: `warmup` untimed executions, then each timed
  // one between two events of its own on an idle device (CudaDevice::TimeEachMs).
  absl::StatusOr<std::vector<double>> TimeEachRunMs(absl::Span<const HostTensor> inputs,
                                                    int warmup, int runs) const;

  const PtxProgram& ptx() const { return ptx_; }
  // The machine code when loaded with keep_cubin (one module), else empty.
  const std::string& cubin() const { return modules_.front()->cubin(); }
  CudaDevice* device() const { return device_; }
  // How the modules' machine code was made and loaded (module_loader.h).
  const ModuleLoadTimings& load_timings() const { return load_timings_; }

 private:
  struct DeviceState;  // buffers of one execution
  CudaProgram() = default;
  absl::StatusOr<std::unique_ptr<DeviceState>> Prepare(absl::Span<const HostTensor> inputs) const;
  absl::Status LaunchAll(const DeviceState& state, int64_t run_counter) const;

  const kernel::Program* program_ = nullptr;
  CudaDevice* device_ = nullptr;
  PtxProgram ptx_;
  std::vector<std::shared_ptr<CudaModule>> modules_;  // ptx_.modules, loaded
  ModuleLoadTimings load_timings_;
  std::vector<void*> functions_;         // per kernel
  std::vector<DeviceBuffer> constants_;  // by constant index
  DeviceBuffer scratch_;           // the largest scratch_bytes of any launch, or none
  mutable std::mutex scratch_mu_;  // held from an execution's first launch to its end
};

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_PROGRAM_H_
