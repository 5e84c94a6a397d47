#include "repro/backend/locate.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

std::mutex self_mutex;
std::vector<std::string>* self_command = nullptr;

bool IsExecutableFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The source tree's backends/ folder: $REPROKIT_ROOT/backends, else the first
// backends/ folder above this binary (an execroot links the source tree's
// top-level folders) that is a source folder: Bazel's output tree beside the
// binary has a backends/ and a repro/ too, without the adapters.
std::string SourceBackendsDir() {
  std::error_code ec;
  if (const char* root = std::getenv("REPROKIT_ROOT"); root != nullptr && *root != '\0') {
    return (fs::path(root) / "backends").string();
  }
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) return "";
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::is_directory(dir / "backends", ec) && fs::exists(dir / "repro", ec) &&
        fs::exists(dir / "backends" / "BUILD.bazel", ec)) {
      return (dir / "backends").string();
    }
  }
  return "";
}

}  // namespace

void SetSelfBackendCommand(std::vector<std::string> argv) {
  std::lock_guard<std::mutex> lock(self_mutex);
  delete self_command;
  self_command = new std::vector<std::string>(std::move(argv));
}

absl::StatusOr<BackendCommand> LocateBackend(const std::string& spec) {
  if (spec.empty() || spec == "builtin") {
    return absl::InvalidArgumentError("the built-in compiler is not an external backend");
  }
  if (spec == "reprokit") {
    std::lock_guard<std::mutex> lock(self_mutex);
    if (self_command == nullptr) {
      return absl::NotFoundError(
          "backend 'reprokit' (the built-in compiler through the protocol) is served by the "
          "reprokit binary; this program cannot serve it");
    }
    return BackendCommand{spec, *self_command};
  }
  if (spec.find('/') != std::string::npos) {
    if (!IsExecutableFile(spec)) {
      std::error_code ec;
      return absl::NotFoundError(absl::StrCat(
          "backend '", spec, "': ",
          fs::exists(spec, ec) ? "not an executable file" : "no such file"));
    }
    return BackendCommand{spec, {CanonicalBackendSpec(spec)}};
  }
  if (spec.find_first_of(" \t\n,=:") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("backend name '", spec,
                                                   "' may not contain spaces, ',', '=' or ':'"));
  }
  std::vector<std::string> tried;
  auto try_path = [&](const fs::path& path) -> bool {
    tried.push_back(path.string());
    return IsExecutableFile(path);
  };
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("REPROKIT_BACKEND_PATH"); env != nullptr) {
    for (absl::string_view d : absl::StrSplit(env, ':', absl::SkipEmpty())) dirs.emplace_back(d);
  }
  for (const std::string& dir : dirs) {
    for (const fs::path& p : {fs::path(dir) / spec / "serve",
                              fs::path(dir) / absl::StrCat("reprokit-backend-", spec)}) {
      if (try_path(p)) return BackendCommand{spec, {p.string()}};
    }
  }
  if (std::string source = SourceBackendsDir(); !source.empty()) {
    const fs::path p = fs::path(source) / spec / "serve";
    if (try_path(p)) return BackendCommand{spec, {p.string()}};
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (absl::string_view d : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      const fs::path p = fs::path(std::string(d)) / absl::StrCat("reprokit-backend-", spec);
      if (IsExecutableFile(p)) return BackendCommand{spec, {p.string()}};
    }
    tried.push_back(absl::StrCat("reprokit-backend-", spec, " on $PATH"));
  }
  return absl::NotFoundError(absl::StrCat("backend '", spec, "' is not installed (looked for ",
                                          absl::StrJoin(tried, ", "),
                                          "; set REPROKIT_BACKEND_PATH or give a path)"));
}

std::string CanonicalBackendSpec(const std::string& spec) {
  if (spec.find('/') == std::string::npos) return spec;
  std::error_code ec;
  fs::path absolute = fs::absolute(spec, ec);
  if (ec) return spec;
  return absolute.lexically_normal().string();
}

}  // namespace rk::repro
