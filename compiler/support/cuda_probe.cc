#include "compiler/support/cuda_probe.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/subprocess.h"

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

CudaProbe ProbeCudaInChild() {
  // The child answers "usable\tcount\tversion\tname\treason" (no tabs in
  // a device name or a reason of ProbeCuda's).
  absl::StatusOr<std::string> text = RunInChild([] {
    const CudaProbe p = ProbeCuda();
    return absl::StrCat(p.usable ? 1 : 0, "\t", p.device_count, "\t", p.driver_version, "\t",
                        p.device_name, "\t", p.reason);
  });
  CudaProbe probe;
  if (!text.ok()) {
    probe.reason = absl::StrCat("the CUDA probe's child process failed: ", text.status().message());
    return probe;
  }
  std::vector<std::string> fields = absl::StrSplit(*text, absl::MaxSplits('\t', 4));
  if (fields.size() != 5 || !absl::SimpleAtoi(fields[1], &probe.device_count) ||
      !absl::SimpleAtoi(fields[2], &probe.driver_version)) {
    probe.reason = absl::StrCat("the CUDA probe's child process answered '", *text, "'");
    return probe;
  }
  probe.usable = fields[0] == "1";
  probe.device_name = fields[3];
  probe.reason = fields[4];
  return probe;
}

}  // namespace rk::compiler
