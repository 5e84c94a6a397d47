// DeviceWarmUp: the process's CUDA context (CudaDevice::Get: cuInit, the
// primary context) made on a thread of its own while a GPU compile runs LLVM
// and the PTX assembler, instead of after them. In a fresh process the
// context is about 200 ms on an H200, the largest part of a cold compile of
// a small graph (docs/GPU.md, "Cold compile").
//
// It initializes CUDA in the process that calls Start, exactly where the
// compile would initialize it a moment later (CudaProgram::Load), so a CUDA
// compile must start it only on its way to loading a module: processes that
// fork workers must still never initialize the driver
// (compiler/support/cuda_probe.h). Every way out of the owner joins the
// thread (the destructor), so no thread of it outlives the compile: one left
// running at exit raced the static destructors (see
// WaitForAssemblerPreparation in ptx_assembler.h).
//
// Tested by compiler/cuda/runtime/device_warm_up_test.cc (the Unavailable
// path without a GPU) and compiler/driver/compile_joint_test.cc
// (CompileCudaExitTest).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_DEVICE_WARM_UP_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_DEVICE_WARM_UP_H_

#include <thread>

#include "absl/status/statusor.h"
#include "compiler/cuda/runtime/cuda_driver.h"

namespace rk::compiler::cuda {

class DeviceWarmUp {
 public:
  DeviceWarmUp() = default;
  ~DeviceWarmUp() { Join(); }
  DeviceWarmUp(const DeviceWarmUp&) = delete;
  DeviceWarmUp& operator=(const DeviceWarmUp&) = delete;

  // Starts CudaDevice::Get on a new thread; a second call does nothing.
  void Start();
  // Joins the thread (when started; Get runs here otherwise) and returns
  // Get's result. Later calls return at once.
  absl::StatusOr<CudaDevice*> Wait();
  bool started() const { return started_; }
  // Milliseconds the thread spent in CudaDevice::Get (about 0 when an earlier
  // compile of the process made the context); valid after Wait.
  double context_ms() const { return context_ms_; }
  // Milliseconds Wait blocked for the thread: the part of context_ms the
  // compile did not hide.
  double wait_ms() const { return wait_ms_; }

 private:
  void Join();
  bool started_ = false;
  std::thread thread_;
  double context_ms_ = 0;
  double wait_ms_ = 0;
};

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_DEVICE_WARM_UP_H_
