#include "compiler/cuda/runtime/ptxas_assembler.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/subprocess.h"

namespace rk::compiler::cuda {
namespace {

// A tool's log can be long (one line per warning); errors keep its start.
constexpr size_t kMaxLog = 4000;

bool IsExecutable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0 &&
         !std::filesystem::is_directory(path);
}

std::string Clip(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.size() > kMaxLog) text = absl::StrCat(text.substr(0, kMaxLog), " ...");
  return text;
}

// A directory of its own under $TMPDIR (else /tmp), removed on destruction.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != 0 ? tmp : "/tmp",
                                       "/reprokit_ptxas_XXXXXX");
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class Ptxas final : public PtxAssembler {
 public:
  Ptxas(std::string path, std::string version)
      : path_(std::move(path)),
        identity_(absl::StrCat("ptxas ", path_, "\n", version)),
        options_(AssemblerOptLevel()) {}

  const char* name() const override { return "ptxas"; }
  const std::string& identity() const override { return identity_; }
  const char* options() const override { return options_.c_str(); }

  absl::StatusOr<std::string> Assemble(std::string_view ptx, const std::string& arch,
                                       const std::string& module_name) const override {
    TempDir dir;
    if (dir.path().empty()) {
      return absl::InternalError(
          absl::StrCat("ptxas on ", module_name, ": cannot make a temporary directory"));
    }
    const std::string in = dir.path() + "/module.ptx";
    const std::string out = dir.path() + "/module.cubin";
    if (absl::Status s = WriteStringToFile(in, absl::string_view(ptx.data(), ptx.size())); !s.ok()) {
      return absl::InternalError(absl::StrCat("ptxas on ", module_name, ": ", s.message()));
    }
    SubprocessOptions options;
    options.timeout_seconds = 600;
    absl::StatusOr<SubprocessResult> run = RunSubprocess(
        {path_, absl::StrCat("-arch=", arch), options_, "-o", out, in}, options);
    if (!run.ok()) {
      return absl::InternalError(
          absl::StrCat("ptxas on ", module_name, ": ", run.status().message()));
    }
    if (!run->ok()) {
      return absl::InternalError(absl::StrCat("ptxas (", path_, ") rejected ", module_name, " for ",
                                              arch, ", ", run->Describe(), ": ",
                                              Clip(run->stderr_text + run->stdout_text)));
    }
    absl::StatusOr<std::string> cubin = ReadFileToString(out);
    if (!cubin.ok()) {
      return absl::InternalError(absl::StrCat("ptxas on ", module_name,
                                              " wrote no cubin: ", cubin.status().message()));
    }
    return cubin;
  }

 private:
  const std::string path_;
  const std::string identity_;
  const std::string options_;
};

}  // namespace

std::string FindPtxas() {
  if (const char* env = std::getenv("REPROKIT_PTXAS"); env != nullptr && *env != 0) return env;
  if (const char* cuda = std::getenv("CUDA_PATH"); cuda != nullptr && *cuda != 0) {
    const std::string path = absl::StrCat(cuda, "/bin/ptxas");
    if (IsExecutable(path)) return path;
  }
  if (IsExecutable("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (std::string path = FindOnPath("ptxas"); !path.empty()) return path;
  // The toolkit's ptxas as Python wheels carry it (nvidia's, Triton's).
  for (const char* relative : {"nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas",
                               "triton/backends/nvidia/bin/ptxas"}) {
    for (const std::string& path : PythonPackageFiles(relative)) {
      if (IsExecutable(path)) return path;
    }
  }
  return "";
}

absl::StatusOr<std::unique_ptr<PtxAssembler>> MakePtxasAssembler(const std::string& path) {
  if (path.empty()) {
    return absl::NotFoundError(
        "no ptxas ($REPROKIT_PTXAS, $CUDA_PATH/bin, /usr/local/cuda/bin, PATH)");
  }
  if (!IsExecutable(path)) {
    return absl::NotFoundError(absl::StrCat("ptxas ", path, " is not an executable file"));
  }
  absl::StatusOr<SubprocessResult> version = RunSubprocess({path, "--version"});
  if (!version.ok() || !version->ok()) {
    return absl::NotFoundError(absl::StrCat(
        "ptxas ", path, " does not run: ",
        version.ok() ? version->Describe() : std::string(version.status().message())));
  }
  return std::make_unique<Ptxas>(path, Clip(version->stdout_text));
}

}  // namespace rk::compiler::cuda
