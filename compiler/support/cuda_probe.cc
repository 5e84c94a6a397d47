#include "compiler/support/cuda_probe.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace rk::compiler {
namespace {

// The few driver entry points the probe needs, with the driver's C ABI.
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);

}  // namespace

CudaProbe ProbeCuda() {
  CudaProbe probe;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    probe.reason = "no CUDA driver (libcuda.so.1 not found)";
    return probe;
  }
  auto init = reinterpret_cast<CuInit>(dlsym(lib, "cuInit"));
  auto get_version = reinterpret_cast<CuDriverGetVersion>(dlsym(lib, "cuDriverGetVersion"));
  auto get_count = reinterpret_cast<CuDeviceGetCount>(dlsym(lib, "cuDeviceGetCount"));
  auto get_device = reinterpret_cast<CuDeviceGet>(dlsym(lib, "cuDeviceGet"));
  auto get_name = reinterpret_cast<CuDeviceGetName>(dlsym(lib, "cuDeviceGetName"));
  if (!init || !get_version || !get_count || !get_device || !get_name) {
    probe.reason = "libcuda.so.1 lacks the driver API entry points";
    return probe;
  }
  if (int err = init(0); err != 0) {
    probe.reason = absl::StrCat("cuInit failed with CUDA error ", err);
    return probe;
  }
  get_version(&probe.driver_version);
  if (int err = get_count(&probe.device_count); err != 0 || probe.device_count == 0) {
    probe.reason = "CUDA driver present but no GPU found";
    return probe;
  }
  int device = 0;
  char name[256] = {0};
  if (get_device(&device, 0) == 0 && get_name(name, sizeof(name), device) == 0) {
    probe.device_name = name;
  }
  probe.usable = true;
  return probe;
}

}  // namespace rk::compiler
