#include "compiler/cuda/runtime/nvjitlink_assembler.h"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rk::compiler::cuda {
namespace {

// The C API as nvJitLink.h declares it (results and input kinds are enums,
// passed as int); declared here so nothing of the toolkit is needed to build.
using Handle = void*;
constexpr int kSuccess = 0;
constexpr int kInputPtx = 2;
constexpr const char* kResultNames[] = {
    "NVJITLINK_SUCCESS",           "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
    "NVJITLINK_ERROR_MISSING_ARCH", "NVJITLINK_ERROR_INVALID_INPUT",
    "NVJITLINK_ERROR_PTX_COMPILE", "NVJITLINK_ERROR_NVVM_COMPILE",
    "NVJITLINK_ERROR_INTERNAL",    "NVJITLINK_ERROR_THREADPOOL",
    "NVJITLINK_ERROR_UNRECOGNIZED_INPUT", "NVJITLINK_ERROR_FINALIZE",
    "NVJITLINK_ERROR_NULL_INPUT",  "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
    "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE", "NVJITLINK_ERROR_ARCH_MISMATCH",
    "NVJITLINK_ERROR_OUTDATED_LIBRARY", "NVJITLINK_ERROR_MISSING_FATBIN",
    "NVJITLINK_ERROR_UNRECOGNIZED_ARCH", "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
    "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
constexpr size_t kMaxLog = 4000;

struct Api {
  int (*create)(Handle*, uint32_t, const char**) = nullptr;
  int (*destroy)(Handle*) = nullptr;
  int (*add_data)(Handle, int, const void*, size_t, const char*) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*cubin_size)(Handle, size_t*) = nullptr;
  int (*cubin)(Handle, void*) = nullptr;
  int (*error_log_size)(Handle, size_t*) = nullptr;
  int (*error_log)(Handle, char*) = nullptr;
  int (*version)(unsigned*, unsigned*) = nullptr;  // 12.3 and later
};

std::string ResultName(int r) {
  if (r >= 0 && r < static_cast<int>(std::size(kResultNames))) return kResultNames[r];
  return absl::StrCat("nvJitLink error ", r);
}

// `name`, else the versioned name older libraries export
// (__nvJitLinkCreate_12_0) for the library's major version.
void* Symbol(void* lib, const std::string& name, unsigned major) {
  if (void* f = dlsym(lib, name.c_str())) return f;
  for (unsigned m : {major, 12u, 13u}) {
    if (void* f = dlsym(lib, absl::StrCat("__", name, "_", m, "_0").c_str())) return f;
  }
  return nullptr;
}

// The API of `lib`; NotFound naming a missing entry point.
absl::StatusOr<Api> Resolve(void* lib) {
  Api api;
  api.version = reinterpret_cast<decltype(api.version)>(dlsym(lib, "nvJitLinkVersion"));
  unsigned major = 0, minor = 0;
  if (api.version != nullptr) api.version(&major, &minor);
  auto get = [&](auto& field, const char* name) {
    field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(Symbol(lib, name, major));
    return field != nullptr;
  };
  for (auto [ok, name] : {std::pair{get(api.create, "nvJitLinkCreate"), "nvJitLinkCreate"},
                          {get(api.destroy, "nvJitLinkDestroy"), "nvJitLinkDestroy"},
                          {get(api.add_data, "nvJitLinkAddData"), "nvJitLinkAddData"},
                          {get(api.complete, "nvJitLinkComplete"), "nvJitLinkComplete"},
                          {get(api.cubin_size, "nvJitLinkGetLinkedCubinSize"),
                           "nvJitLinkGetLinkedCubinSize"},
                          {get(api.cubin, "nvJitLinkGetLinkedCubin"), "nvJitLinkGetLinkedCubin"},
                          {get(api.error_log_size, "nvJitLinkGetErrorLogSize"),
                           "nvJitLinkGetErrorLogSize"},
                          {get(api.error_log, "nvJitLinkGetErrorLog"), "nvJitLinkGetErrorLog"}}) {
    if (!ok) return absl::NotFoundError(absl::StrCat("lacks ", name));
  }
  return api;
}

class NvJitLink final : public PtxAssembler {
 public:
  NvJitLink(Api api, std::string identity)
      : api_(api), identity_(std::move(identity)), options_(AssemblerOptLevel()) {
    // nvJitLink takes -O0 or -O3 only; the levels between go to its ptxas.
    if (options_ == "-O1" || options_ == "-O2") {
      extra_ = absl::StrCat("-Xptxas=", options_);
      options_ = absl::StrCat("-O3 ", extra_);
    }
  }

  const char* name() const override { return "nvjitlink"; }
  const std::string& identity() const override { return identity_; }
  const char* options() const override { return options_.c_str(); }

  absl::StatusOr<std::string> Assemble(std::string_view ptx, const std::string& arch,
                                       const std::string& module_name) const override {
    const std::string arch_option = absl::StrCat("-arch=", arch);
    const char* options[] = {arch_option.c_str(), extra_.empty() ? options_.c_str() : "-O3",
                             extra_.c_str()};
    Handle handle = nullptr;
    if (int r = api_.create(&handle, extra_.empty() ? 2 : 3, options); r != kSuccess) {
      return absl::InternalError(absl::StrCat("nvJitLinkCreate(", arch_option, " ", options_,
                                              ") for ", module_name, ": ", ResultName(r)));
    }
    std::string cubin;
    std::string failed;
    int r = api_.add_data(handle, kInputPtx, ptx.data(), ptx.size(), module_name.c_str());
    if (r != kSuccess) failed = "nvJitLinkAddData";
    if (failed.empty() && (r = api_.complete(handle)) != kSuccess) failed = "nvJitLinkComplete";
    size_t size = 0;
    if (failed.empty() && (r = api_.cubin_size(handle, &size)) != kSuccess) {
      failed = "nvJitLinkGetLinkedCubinSize";
    }
    if (failed.empty()) {
      cubin.resize(size);
      if ((r = api_.cubin(handle, cubin.data())) != kSuccess) failed = "nvJitLinkGetLinkedCubin";
    }
    std::string log;
    if (!failed.empty()) {
      size_t log_size = 0;
      if (api_.error_log_size(handle, &log_size) == kSuccess && log_size > 1) {
        log.resize(log_size);
        if (api_.error_log(handle, log.data()) != kSuccess) log.clear();
        while (!log.empty() && (log.back() == 0 || log.back() == '\n')) log.pop_back();
        if (log.size() > kMaxLog) log = absl::StrCat(log.substr(0, kMaxLog), " ...");
      }
    }
    api_.destroy(&handle);
    if (!failed.empty()) {
      return absl::InternalError(absl::StrCat("nvJitLink rejected ", module_name, " for ", arch,
                                              ": ", failed, ": ", ResultName(r),
                                              log.empty() ? "" : ": ", log));
    }
    return cubin;
  }

 private:
  const Api api_;
  const std::string identity_;
  std::string options_;  // as one string, for cache keys
  std::string extra_;    // a third option, or ""
};

void AddGlob(const std::string& pattern, std::vector<std::string>& out) {
  glob_t found;
  if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
    // Highest version first within one pattern (glob sorts ascending).
    for (size_t i = found.gl_pathc; i > 0; --i) out.push_back(found.gl_pathv[i - 1]);
  }
  ::globfree(&found);
}

}  // namespace

std::vector<std::string> NvJitLinkCandidates() {
  if (const char* env = std::getenv("REPROKIT_NVJITLINK"); env != nullptr && *env != 0) {
    if (std::string_view(env) == "off") return {};
    return {env};
  }
  std::vector<std::string> out = {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"};
  std::vector<std::string> toolkits;
  if (const char* cuda = std::getenv("CUDA_PATH"); cuda != nullptr && *cuda != 0) {
    toolkits.push_back(cuda);
  }
  toolkits.push_back("/usr/local/cuda");
  for (const std::string& root : toolkits) {
    for (const char* lib : {"/lib64", "/lib", "/targets/x86_64-linux/lib"}) {
      AddGlob(absl::StrCat(root, lib, "/libnvJitLink.so.[0-9]*"), out);
    }
  }
  for (const char* wheel : {"nvjitlink", "cu13", "cu12"}) {
    for (std::string& path :
         PythonPackageFiles(absl::StrCat("nvidia/", wheel, "/lib/libnvJitLink.so.[0-9]*"))) {
      out.push_back(std::move(path));
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<PtxAssembler>> MakeNvJitLinkAssembler() {
  const std::vector<std::string> candidates = NvJitLinkCandidates();
  if (candidates.empty()) return absl::NotFoundError("nvJitLink off ($REPROKIT_NVJITLINK=off)");
  std::vector<std::string> failures;
  for (const std::string& candidate : candidates) {
    void* lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      // A soname the loader does not know is the common case; a path that
      // exists and does not load is worth saying.
      if (candidate.find('/') != std::string::npos) {
        const char* error = dlerror();
        failures.push_back(absl::StrCat(candidate, ": ", error != nullptr ? error : "dlopen failed"));
      }
      continue;
    }
    absl::StatusOr<Api> api = Resolve(lib);
    if (!api.ok()) {
      failures.push_back(absl::StrCat(candidate, ": ", api.status().message()));
      dlclose(lib);
      continue;
    }
    // The file loaded and its size stand in for the patch version, which
    // the API does not tell.
    unsigned major = 0, minor = 0;
    if (api->version != nullptr) api->version(&major, &minor);
    std::string file = candidate;
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(api->create), &info) != 0 && info.dli_fname != nullptr) {
      file = info.dli_fname;
    }
    struct stat st;
    const long long size = ::stat(file.c_str(), &st) == 0 ? st.st_size : -1;
    return std::make_unique<NvJitLink>(
        *api, absl::StrCat("nvjitlink ", major, ".", minor, " ", file, " ", size));
  }
  return absl::NotFoundError(absl::StrCat(
      "no libnvJitLink (tried $REPROKIT_NVJITLINK, the loader's path, the CUDA toolkit, Python "
      "environments' nvidia wheels)",
      failures.empty() ? "" : ": ", absl::StrJoin(failures, "; ")));
}

}  // namespace rk::compiler::cuda
