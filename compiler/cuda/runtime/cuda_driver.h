// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so the
// same static binary runs on machines without a driver (CI) and on GPU hosts.
//
// Needs: the toolkit's cuda.h at build time (the @cuda_headers repository);
// without it (REPROKIT_NO_CUDA_HEADERS) everything here reports Unavailable.
// Guarantees: one process-wide device (ordinal 0, or $REPROKIT_CUDA_DEVICE)
// on its primary context; every driver call is checked and a failure names
// the call and the driver's error name, e.g.
//   "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)".
// No driver: Unavailable("no CUDA driver (libcuda.so.1 not found)"); a driver
// but no device: Unavailable("no GPU: ..."). Modules are cached by PTX text
// and unloaded when the last holder lets go. All work goes to the legacy
// default stream, so launches from several threads are serialized.
//
// Tested by compiler/tests/cuda_program_test.cc (the GPU cases skip without
// a GPU; the Unavailable path runs everywhere).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_DRIVER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_DRIVER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rk::compiler::cuda {

using DevicePtr = uint64_t;  // the driver's CUdeviceptr

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int driver_version = 0;  // e.g. 13000
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t total_memory = 0;
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

// A loaded PTX module and its kernels.
class CudaModule {
 public:
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  // The CUfunction of entry `name` (NotFound if absent).
  absl::StatusOr<void*> Function(const std::string& name) const;
  // The linked cubin, when the module was loaded through the driver's linker
  // (CudaDevice::LoadPtx with keep_cubin); empty otherwise.
  const std::string& cubin() const { return cubin_; }

 private:
  friend class CudaDevice;
  CudaModule() = default;
  void* module_ = nullptr;  // CUmodule
  std::string cubin_;
};

struct LaunchDims {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0;
};

class CudaDevice {
 public:
  // The process-wide device, created on first use; the Unavailable status
  // (with its reason) is remembered and returned on every later call.
  static absl::StatusOr<CudaDevice*> Get();
  // The device Get uses, described without creating the context (cuInit and
  // the device's attributes only: the first part of Get, shared with it), so
  // one thread can learn the arch while another creates the context. The
  // same Unavailable status as Get where there is no driver or device.
  static absl::StatusOr<DeviceInfo> Describe();
  // Describe's answer once some thread has had it, else nullopt (cuInit not
  // started or still running); never waits.
  static std::optional<absl::StatusOr<DeviceInfo>> DescribeIfKnown();

  const DeviceInfo& info() const { return info_; }
  // Makes the primary context current on the calling thread.
  absl::Status MakeCurrent() const;

  absl::StatusOr<DevicePtr> Allocate(size_t bytes);
  void Free(DevicePtr ptr);
  absl::Status CopyToDevice(DevicePtr dst, const void* src, size_t bytes);
  absl::Status CopyToHost(void* dst, DevicePtr src, size_t bytes);
  absl::Status CopyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes);
  absl::Status Fill(DevicePtr dst, uint8_t byte, size_t bytes);

  // Loads `ptx` (or returns the loaded module with the same text). With
  // keep_cubin, goes through cuLink* and keeps the cubin (for SASS dumps);
  // such modules are not cached.
  absl::StatusOr<std::shared_ptr<CudaModule>> LoadPtx(const std::string& ptx,
                                                       bool keep_cubin = false);
  // Loads `cubin`, machine code assembled from `ptx` off the driver
  // (ptx_assembler.h), and caches it under the PTX text as LoadPtx does.
  absl::StatusOr<std::shared_ptr<CudaModule>> LoadCubin(const std::string& ptx,
                                                         const std::string& cubin);
  // The module of `ptx` LoadPtx or LoadCubin loaded in this process, while
  // a holder keeps it; null otherwise.
  std::shared_ptr<CudaModule> FindLoaded(const std::string& ptx);
  // Whether FindLoaded would find `ptx`'s module; needs no context (false
  // before the device exists).
  static bool IsLoaded(const std::string& ptx);
  absl::Status Launch(void* function, const LaunchDims& dims, void** params,
                      const std::string& what);
  // Lets `function` launch with up to `bytes` of dynamic shared memory (the
  // opt-in past 48 KiB: CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  absl::Status AllowDynamicShared(void* function, uint32_t bytes, const std::string& what);
  // Encodes into `map` (128 bytes, 64-byte aligned) a 2-D tiled tensor map
  // of f16 or bf16 elements at `address`: `dims` elements (the contiguous
  // dim first), rows `row_bytes` apart, copies of `box` elements, 128-byte
  // swizzle, zero fill outside (cuTensorMapEncodeTiled, looked up when first
  // needed: drivers before CUDA 12 lack it).
  absl::Status EncodeTensorMap(void* map, bool bf16, DevicePtr address,
                               const std::array<uint64_t, 2>& dims, uint64_t row_bytes,
                               const std::array<uint32_t, 2>& box);
  // Waits for all queued work; a failed kernel surfaces here (named `what`).
  absl::Status Synchronize(const std::string& what);
  // Milliseconds per call of `body` (GPU time between two events around
  // `iterations` calls, after one warm-up call).
  absl::StatusOr<double> TimeMs(const std::function<absl::Status()>& body, int iterations);
  // Milliseconds of each of `runs` calls of `body`, each between two events
  // of its own after the queue drained, so every call starts on an idle device.
  absl::StatusOr<std::vector<double>> TimeEachMs(const std::function<absl::Status()>& body,
                                                 int runs);

 private:
  CudaDevice() = default;
  DeviceInfo info_;
  void* context_ = nullptr;  // CUcontext (primary)
};

// RAII device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(CudaDevice* device, DevicePtr ptr, size_t bytes)
      : device_(device), ptr_(ptr), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  ~DeviceBuffer();
  static absl::StatusOr<DeviceBuffer> Create(CudaDevice* device, size_t bytes);
  DevicePtr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  CudaDevice* device_ = nullptr;
  DevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_CUDA_DRIVER_H_
