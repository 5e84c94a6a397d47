#include "compiler/cuda/runtime/cuda_driver.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"

#ifndef REPROKIT_NO_CUDA_HEADERS
#include <dlfcn.h>

#include "cuda.h"
#endif

namespace rk::compiler::cuda {

#ifdef REPROKIT_NO_CUDA_HEADERS

CudaModule::~CudaModule() = default;
absl::StatusOr<void*> CudaModule::Function(const std::string&) const {
  return absl::UnavailableError("built without CUDA headers");
}
absl::StatusOr<CudaDevice*> CudaDevice::Get() {
  return absl::UnavailableError("no GPU support: reprokit was built without the CUDA headers");
}
absl::StatusOr<DeviceInfo> CudaDevice::Describe() {
  return absl::UnavailableError("no GPU support: reprokit was built without the CUDA headers");
}
std::optional<absl::StatusOr<DeviceInfo>> CudaDevice::DescribeIfKnown() {
  return absl::StatusOr<DeviceInfo>(
      absl::UnavailableError("no GPU support: reprokit was built without the CUDA headers"));
}
absl::Status CudaDevice::MakeCurrent() const { return absl::UnavailableError("no CUDA"); }
absl::StatusOr<DevicePtr> CudaDevice::Allocate(size_t) { return absl::UnavailableError("no CUDA"); }
void CudaDevice::Free(DevicePtr) {}
absl::Status CudaDevice::CopyToDevice(DevicePtr, const void*, size_t) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::CopyToHost(void*, DevicePtr, size_t) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::CopyOnDevice(DevicePtr, DevicePtr, size_t) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::Fill(DevicePtr, uint8_t, size_t) { return absl::UnavailableError("no CUDA"); }
absl::StatusOr<std::shared_ptr<CudaModule>> CudaDevice::LoadPtx(const std::string&, bool) {
  return absl::UnavailableError("no CUDA");
}
absl::StatusOr<std::shared_ptr<CudaModule>> CudaDevice::LoadCubin(const std::string&,
                                                                  const std::string&) {
  return absl::UnavailableError("no CUDA");
}
std::shared_ptr<CudaModule> CudaDevice::FindLoaded(const std::string&) { return nullptr; }
bool CudaDevice::IsLoaded(const std::string&) { return false; }
absl::Status CudaDevice::Launch(void*, const LaunchDims&, void**, const std::string&) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::AllowDynamicShared(void*, uint32_t, const std::string&) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::EncodeTensorMap(void*, bool, DevicePtr, const std::array<uint64_t, 2>&,
                                         uint64_t, const std::array<uint32_t, 2>&) {
  return absl::UnavailableError("no CUDA");
}
absl::Status CudaDevice::Synchronize(const std::string&) { return absl::UnavailableError("no CUDA"); }
absl::StatusOr<double> CudaDevice::TimeMs(const std::function<absl::Status()>&, int) {
  return absl::UnavailableError("no CUDA");
}
absl::StatusOr<std::vector<double>> CudaDevice::TimeEachMs(const std::function<absl::Status()>&,
                                                           int) {
  return absl::UnavailableError("no CUDA");
}

#else  // REPROKIT_NO_CUDA_HEADERS

namespace {

// Every driver entry point we use. The cuda.h macros map versioned names
// (cuMemAlloc -> cuMemAlloc_v2), so the member and the dlsym name both follow.
#define RK_CUDA_FUNCTIONS(X)                                                              \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDriverGetVersion)                   \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)           \
  X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize)  \
  X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleUnload) X(cuMemAlloc)            \
  X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8)              \
  X(cuLaunchKernel) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)               \
  X(cuEventElapsedTime) X(cuEventDestroy) X(cuLinkCreate) X(cuLinkAddData)                \
  X(cuLinkComplete) X(cuLinkDestroy) X(cuModuleLoadData) X(cuFuncSetAttribute)

#define RK_STRINGIFY_EXPANDED(x) RK_STRINGIFY(x)
#define RK_STRINGIFY(x) #x

struct Driver {
#define RK_DECLARE(fn) decltype(&::fn) fn = nullptr;
  RK_CUDA_FUNCTIONS(RK_DECLARE)
#undef RK_DECLARE
};

// Loads the table once; null with `reason` set when the library is missing.
const Driver* LoadDriver(std::string& reason) {
  static const Driver* driver = nullptr;
  static std::string load_error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      load_error = "no CUDA driver (libcuda.so.1 not found)";
      return;
    }
    auto* d = new Driver;
#define RK_RESOLVE(fn)                                                             \
  d->fn = reinterpret_cast<decltype(d->fn)>(dlsym(lib, RK_STRINGIFY_EXPANDED(fn))); \
  if (d->fn == nullptr && load_error.empty()) {                                    \
    load_error = absl::StrCat("libcuda.so.1 lacks ", RK_STRINGIFY_EXPANDED(fn));    \
  }
    RK_CUDA_FUNCTIONS(RK_RESOLVE)
#undef RK_RESOLVE
    if (load_error.empty()) {
      driver = d;
    } else {
      delete d;
    }
  });
  reason = load_error;
  return driver;
}

const Driver& D() {
  std::string unused;
  return *LoadDriver(unused);
}

absl::Status Check(CUresult r, const std::string& call) {
  if (r == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (D().cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (D().cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  std::string message = absl::StrCat(call, ": ", name ? name : absl::StrCat("CUDA error ", r));
  if (text != nullptr) absl::StrAppend(&message, " (", text, ")");
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY: return absl::ResourceExhaustedError(message);
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return absl::UnavailableError(message);
    default: return absl::InternalError(message);
  }
}

int DeviceOrdinal() {
  const char* env = std::getenv("REPROKIT_CUDA_DEVICE");
  return env == nullptr ? 0 : std::atoi(env);
}

std::mutex& CacheMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, std::weak_ptr<CudaModule>>& ModuleCache() {
  static auto* cache = new std::map<std::string, std::weak_ptr<CudaModule>>;
  return *cache;
}

}  // namespace

CudaModule::~CudaModule() {
  if (module_ != nullptr) D().cuModuleUnload(static_cast<CUmodule>(module_));
}

absl::StatusOr<void*> CudaModule::Function(const std::string& name) const {
  CUfunction fn = nullptr;
  if (absl::Status s = Check(D().cuModuleGetFunction(&fn, static_cast<CUmodule>(module_),
                                                      name.c_str()),
                             absl::StrCat("cuModuleGetFunction(", name, ")"));
      !s.ok()) {
    return s;
  }
  return static_cast<void*>(fn);
}

namespace {

// cuInit and the device's description: what needs no context. Kept apart
// from the context's creation so that a compile can learn the device's arch
// (Describe) while another thread still creates the context.
struct DriverInit {
  absl::Status status;
  CUdevice handle = 0;
  DeviceInfo info;
};

// Set once InitDriver has finished (DescribeIfKnown).
std::atomic<const DriverInit*>& InitDone() {
  static std::atomic<const DriverInit*> done{nullptr};
  return done;
}

const DriverInit& InitDriver() {
  static const DriverInit* init = [] {
    auto* out = new DriverInit;
    std::string reason;
    const Driver* d = LoadDriver(reason);
    if (d == nullptr) {
      out->status = absl::UnavailableError(reason);
      return out;
    }
    auto fail = [out](absl::Status s) {
      out->status = absl::UnavailableError(absl::StrCat("no GPU: ", s.message()));
      return out;
    };
    if (absl::Status s = Check(d->cuInit(0), "cuInit"); !s.ok()) return fail(s);
    int count = 0;
    if (absl::Status s = Check(d->cuDeviceGetCount(&count), "cuDeviceGetCount"); !s.ok()) {
      return fail(s);
    }
    const int ordinal = DeviceOrdinal();
    if (ordinal < 0 || ordinal >= count) {
      return fail(absl::NotFoundError(
          absl::StrCat("the driver sees ", count, " devices, device ", ordinal, " requested")));
    }
    if (absl::Status s = Check(d->cuDeviceGet(&out->handle, ordinal), "cuDeviceGet"); !s.ok()) {
      return fail(s);
    }
    const CUdevice handle = out->handle;
    DeviceInfo& info = out->info;
    info.ordinal = ordinal;
    char name[256] = {0};
    if (d->cuDeviceGetName(name, sizeof(name), handle) == CUDA_SUCCESS) info.name = name;
    d->cuDriverGetVersion(&info.driver_version);
    d->cuDeviceGetAttribute(&info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle);
    d->cuDeviceGetAttribute(&info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle);
    d->cuDeviceGetAttribute(&info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, handle);
    size_t total = 0;
    if (d->cuDeviceTotalMem(&total, handle) == CUDA_SUCCESS) info.total_memory = total;
    return out;
  }();
  InitDone().store(init, std::memory_order_release);
  return *init;
}

}  // namespace

std::optional<absl::StatusOr<DeviceInfo>> CudaDevice::DescribeIfKnown() {
  const DriverInit* init = InitDone().load(std::memory_order_acquire);
  if (init == nullptr) return std::nullopt;
  if (!init->status.ok()) return absl::StatusOr<DeviceInfo>(init->status);
  return absl::StatusOr<DeviceInfo>(init->info);
}

absl::StatusOr<DeviceInfo> CudaDevice::Describe() {
  const DriverInit& init = InitDriver();
  if (!init.status.ok()) return init.status;
  return init.info;
}

absl::StatusOr<CudaDevice*> CudaDevice::Get() {
  static absl::StatusOr<CudaDevice*>* device = [] {
    const DriverInit& init = InitDriver();
    if (!init.status.ok()) return new absl::StatusOr<CudaDevice*>(init.status);
    CUcontext ctx = nullptr;
    if (absl::Status s = Check(D().cuDevicePrimaryCtxRetain(&ctx, init.handle),
                               "cuDevicePrimaryCtxRetain");
        !s.ok()) {
      return new absl::StatusOr<CudaDevice*>(
          absl::UnavailableError(absl::StrCat("no GPU: ", s.message())));
    }
    auto* dev = new CudaDevice;
    dev->context_ = ctx;
    dev->info_ = init.info;
    return new absl::StatusOr<CudaDevice*>(dev);
  }();
  if (device->ok()) {
    if (absl::Status s = (**device)->MakeCurrent(); !s.ok()) return s;
  }
  return *device;
}

absl::Status CudaDevice::MakeCurrent() const {
  return Check(D().cuCtxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent");
}

absl::StatusOr<DevicePtr> CudaDevice::Allocate(size_t bytes) {
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  CUdeviceptr ptr = 0;
  if (absl::Status s = Check(D().cuMemAlloc(&ptr, bytes == 0 ? 1 : bytes),
                             absl::StrCat("cuMemAlloc(", bytes, " bytes)"));
      !s.ok()) {
    return s;
  }
  return static_cast<DevicePtr>(ptr);
}

void CudaDevice::Free(DevicePtr ptr) {
  if (ptr != 0) D().cuMemFree(static_cast<CUdeviceptr>(ptr));
}

absl::Status CudaDevice::CopyToDevice(DevicePtr dst, const void* src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  return Check(D().cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

absl::Status CudaDevice::CopyToHost(void* dst, DevicePtr src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  return Check(D().cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

absl::Status CudaDevice::CopyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  return Check(D().cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}

absl::Status CudaDevice::Fill(DevicePtr dst, uint8_t byte, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  return Check(D().cuMemsetD8(dst, byte, bytes), "cuMemsetD8");
}

absl::StatusOr<std::shared_ptr<CudaModule>> CudaDevice::LoadPtx(const std::string& ptx,
                                                                bool keep_cubin) {
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (!keep_cubin) {
    std::lock_guard<std::mutex> lock(CacheMutex());
    if (auto it = ModuleCache().find(ptx); it != ModuleCache().end()) {
      if (std::shared_ptr<CudaModule> m = it->second.lock()) return m;
    }
  }
  // The lock is not held while the driver compiles, so modules load on
  // several threads; two threads loading the same text both compile it and
  // the later one's module is the one cached.
  static constexpr unsigned kLogSize = 16384;
  std::vector<char> log(kLogSize, 0);
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_OPTIMIZATION_LEVEL};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(kLogSize)),
                    nullptr};
  // The driver's PTX -> SASS compile is most of a cold compile;
  // $REPROKIT_CUDA_JIT_O (0..4, the driver's default 4) trades its time
  // against the code's (docs/GPU.md, docs/BENCHMARKS.md).
  unsigned num_keys = 2;
  if (const char* level = std::getenv("REPROKIT_CUDA_JIT_O");
      level != nullptr && level[0] >= '0' && level[0] <= '4' && level[1] == 0) {
    values[2] = reinterpret_cast<void*>(static_cast<uintptr_t>(level[0] - '0'));
    num_keys = 3;
  }
  std::shared_ptr<CudaModule> module(new CudaModule);
  CUmodule handle = nullptr;
  absl::Status s;
  if (keep_cubin) {
    CUlinkState link = nullptr;
    s = Check(D().cuLinkCreate(num_keys, keys, values, &link), "cuLinkCreate");
    if (s.ok()) {
      s = Check(D().cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(ptx.data()),
                                  ptx.size() + 1, "kernels.ptx", 0, nullptr, nullptr),
                "cuLinkAddData");
    }
    void* cubin = nullptr;
    size_t cubin_size = 0;
    if (s.ok()) s = Check(D().cuLinkComplete(link, &cubin, &cubin_size), "cuLinkComplete");
    if (s.ok()) {
      module->cubin_.assign(static_cast<const char*>(cubin), cubin_size);
      s = Check(D().cuModuleLoadData(&handle, cubin), "cuModuleLoadData");
    }
    if (link != nullptr) D().cuLinkDestroy(link);
  } else {
    s = Check(D().cuModuleLoadDataEx(&handle, ptx.c_str(), num_keys, keys, values),
              "cuModuleLoadDataEx");
  }
  if (!s.ok()) {
    // PTX for a newer GPU than this one: say which option fixes it.
    const size_t target = ptx.find(".target sm_");
    int ptx_arch = 0;
    if (target != std::string::npos) ptx_arch = std::atoi(ptx.c_str() + target + 11);
    if (ptx_arch > info_.cc_major * 10 + info_.cc_minor) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PTX for sm_", ptx_arch, " cannot run on ", info_.name, " (", info_.arch(),
          "): compile with --opt cuda_arch=auto (or cuda_arch=", info_.arch(), "); the driver said: ",
          s.message()));
    }
    if (log[0] != 0) return absl::Status(s.code(), absl::StrCat(s.message(), ": ", log.data()));
    return s;
  }
  module->module_ = handle;
  if (!keep_cubin) {
    std::lock_guard<std::mutex> lock(CacheMutex());
    ModuleCache()[ptx] = module;
  }
  return module;
}

std::shared_ptr<CudaModule> CudaDevice::FindLoaded(const std::string& ptx) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto it = ModuleCache().find(ptx);
  return it == ModuleCache().end() ? nullptr : it->second.lock();
}

bool CudaDevice::IsLoaded(const std::string& ptx) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto it = ModuleCache().find(ptx);
  return it != ModuleCache().end() && !it->second.expired();
}

absl::StatusOr<std::shared_ptr<CudaModule>> CudaDevice::LoadCubin(const std::string& ptx,
                                                                  const std::string& cubin) {
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (std::shared_ptr<CudaModule> loaded = FindLoaded(ptx)) return loaded;
  std::shared_ptr<CudaModule> module(new CudaModule);
  CUmodule handle = nullptr;
  if (absl::Status s = Check(D().cuModuleLoadData(&handle, cubin.data()), "cuModuleLoadData");
      !s.ok()) {
    return s;
  }
  module->module_ = handle;
  std::lock_guard<std::mutex> lock(CacheMutex());
  ModuleCache()[ptx] = module;
  return module;
}

absl::Status CudaDevice::Launch(void* function, const LaunchDims& dims, void** params,
                                const std::string& what) {
  return Check(D().cuLaunchKernel(static_cast<CUfunction>(function), dims.grid[0], dims.grid[1],
                                  dims.grid[2], dims.block[0], dims.block[1], dims.block[2],
                                  dims.shared_bytes, nullptr, params, nullptr),
               absl::StrCat("cuLaunchKernel(", what, ")"));
}

absl::Status CudaDevice::AllowDynamicShared(void* function, uint32_t bytes,
                                            const std::string& what) {
  return Check(D().cuFuncSetAttribute(static_cast<CUfunction>(function),
                                      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(bytes)),
               absl::StrCat("cuFuncSetAttribute(", what, ", max dynamic shared ", bytes, ")"));
}

absl::Status CudaDevice::EncodeTensorMap(void* map, bool bf16, DevicePtr address,
                                         const std::array<uint64_t, 2>& dims, uint64_t row_bytes,
                                         const std::array<uint32_t, 2>& box) {
  using Encode = decltype(&::cuTensorMapEncodeTiled);
  static const Encode encode = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    return lib == nullptr ? nullptr
                          : reinterpret_cast<Encode>(dlsym(lib, "cuTensorMapEncodeTiled"));
  }();
  if (encode == nullptr) {
    return absl::UnavailableError("the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12+)");
  }
  const cuuint64_t global_dims[2] = {dims[0], dims[1]};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box_dims[2] = {box[0], box[1]};
  const cuuint32_t element_strides[2] = {1, 1};
  return Check(encode(static_cast<CUtensorMap*>(map),
                      bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                      reinterpret_cast<void*>(static_cast<uintptr_t>(address)), global_dims,
                      strides, box_dims, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               absl::StrCat("cuTensorMapEncodeTiled(", dims[0], "x", dims[1], ", rows of ",
                            row_bytes, " bytes, box ", box[0], "x", box[1], ")"));
}

absl::Status CudaDevice::Synchronize(const std::string& what) {
  return Check(D().cuCtxSynchronize(), absl::StrCat("cuCtxSynchronize after ", what));
}

absl::StatusOr<double> CudaDevice::TimeMs(const std::function<absl::Status()>& body,
                                          int iterations) {
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (absl::Status s = body(); !s.ok()) return s;
  CUevent start = nullptr, stop = nullptr;
  absl::Status s = Check(D().cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  if (s.ok()) s = Check(D().cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  if (s.ok()) s = Check(D().cuEventRecord(start, nullptr), "cuEventRecord");
  for (int i = 0; s.ok() && i < iterations; ++i) s = body();
  if (s.ok()) s = Check(D().cuEventRecord(stop, nullptr), "cuEventRecord");
  if (s.ok()) s = Check(D().cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = 0;
  if (s.ok()) s = Check(D().cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  if (start != nullptr) D().cuEventDestroy(start);
  if (stop != nullptr) D().cuEventDestroy(stop);
  if (!s.ok()) return s;
  return static_cast<double>(ms) / std::max(iterations, 1);
}

absl::StatusOr<std::vector<double>> CudaDevice::TimeEachMs(
    const std::function<absl::Status()>& body, int runs) {
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  CUevent start = nullptr, stop = nullptr;
  absl::Status s = Check(D().cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  if (s.ok()) s = Check(D().cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<double> ms;
  for (int i = 0; s.ok() && i < runs; ++i) {
    s = Check(D().cuCtxSynchronize(), "cuCtxSynchronize");
    if (s.ok()) s = Check(D().cuEventRecord(start, nullptr), "cuEventRecord");
    if (s.ok()) s = body();
    if (s.ok()) s = Check(D().cuEventRecord(stop, nullptr), "cuEventRecord");
    if (s.ok()) s = Check(D().cuEventSynchronize(stop), "cuEventSynchronize");
    float elapsed = 0;
    if (s.ok()) s = Check(D().cuEventElapsedTime(&elapsed, start, stop), "cuEventElapsedTime");
    if (s.ok()) ms.push_back(static_cast<double>(elapsed));
  }
  if (start != nullptr) D().cuEventDestroy(start);
  if (stop != nullptr) D().cuEventDestroy(stop);
  if (!s.ok()) return s;
  return ms;
}

#endif  // REPROKIT_NO_CUDA_HEADERS

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (device_ != nullptr) device_->Free(ptr_);
    device_ = o.device_;
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.device_ = nullptr;
    o.ptr_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (device_ != nullptr) device_->Free(ptr_);
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::Create(CudaDevice* device, size_t bytes) {
  absl::StatusOr<DevicePtr> ptr = device->Allocate(bytes);
  if (!ptr.ok()) return ptr.status();
  return DeviceBuffer(device, *ptr, bytes);
}

}  // namespace rk::compiler::cuda
