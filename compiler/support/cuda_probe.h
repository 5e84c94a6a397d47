// A quick, side-effect-free check of whether a CUDA driver and GPU are usable,
// for `reprokit version` and for skipping GPU tests with a clear reason.
// Loads libcuda.so.1 with dlopen; never links against it.
//
// Tested by compiler/support/cuda_probe_test.cc.
#ifndef REPROKIT_COMPILER_SUPPORT_CUDA_PROBE_H_
#define REPROKIT_COMPILER_SUPPORT_CUDA_PROBE_H_

#include <string>

namespace rk::compiler {

struct CudaProbe {
  bool usable = false;       // driver loaded, initialized, at least one device
  int device_count = 0;
  int driver_version = 0;    // e.g. 13000 for CUDA 13.0
  std::string device_name;   // of device 0
  std::string reason;        // why not usable, when !usable
};

CudaProbe ProbeCuda();

// The same probe run in a forked child, so this process never initializes the
// driver: CUDA does not survive fork, and a process that initialized it and
// then forks workers (the oracle's fork server, a worker pool) gives each of
// them CUDA_ERROR_NOT_INITIALIZED. Every probe made by a process that may fork
// workers later goes through this one.
CudaProbe ProbeCudaInChild();

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_SUPPORT_CUDA_PROBE_H_
