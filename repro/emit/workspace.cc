#include "repro/emit/workspace.h"

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

bool HasDefs(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / "repro" / "defs.bzl", ec);
}

// The text of each `local_repository(...)` call (up to its closing paren;
// Starlark strings in these calls hold no parentheses in practice).
std::vector<std::string> LocalRepositoryCalls(const std::string& text) {
  std::vector<std::string> calls;
  static const std::regex* const kCall = new std::regex(R"(local_repository\s*\(([^)]*)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), *kCall);
       it != std::sregex_iterator(); ++it) {
    calls.push_back((*it)[1].str());
  }
  return calls;
}

std::string StringArg(const std::string& call, const std::string& key) {
  const std::regex arg(key + R"(\s*=\s*"([^"]*)\")");
  std::smatch m;
  return std::regex_search(call, m, arg) ? m[1].str() : "";
}

}  // namespace

absl::StatusOr<WorkspaceInfo> DetectWorkspace(const std::string& dir) {
  std::error_code ec;
  WorkspaceInfo info;
  info.root = fs::absolute(dir, ec).lexically_normal().string();
  while (info.root.size() > 1 && info.root.back() == '/') info.root.pop_back();
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": not a directory"));
  }
  for (const char* name : {"WORKSPACE", "WORKSPACE.bazel"}) {
    if (fs::is_regular_file(fs::path(dir) / name, ec)) {
      info.workspace_file = (fs::path(info.root) / name).string();
      break;
    }
  }
  if (info.workspace_file.empty()) {
    info.kind = WorkspaceKind::kMissing;
    return info;
  }
  absl::StatusOr<std::string> read = ReadFileToString(info.workspace_file);
  if (!read.ok()) return read.status();
  const std::string& text = *read;
  static const std::regex* const kOwnName =
      new std::regex(R"(workspace\s*\(\s*name\s*=\s*"reprokit\")");
  if (std::regex_search(text, *kOwnName) && HasDefs(info.root)) {
    info.kind = WorkspaceKind::kReprokit;
    info.defs_label = "//repro:defs.bzl";
    return info;
  }
  for (const std::string& call : LocalRepositoryCalls(text)) {
    const std::string name = StringArg(call, "name");
    fs::path path = StringArg(call, "path");
    if (name.empty() || path.empty()) continue;
    if (path.is_relative()) path = fs::path(info.root) / path;
    if (HasDefs(path)) {
      info.kind = WorkspaceKind::kExternal;
      info.reprokit_repo = name;
      info.defs_label = absl::StrCat("@", name, "//repro:defs.bzl");
      return info;
    }
  }
  info.kind = WorkspaceKind::kUnrelated;
  return info;
}

std::string FreshWorkspaceText(const std::string& reprokit_root, const std::string& name) {
  return absl::StrCat(
      "# Created by reprokit emit: a workspace for reprokit repro targets\n"
      "# (docs/WORKFLOWS.md in reprokit). Edit freely.\n"
      "workspace(name = \"", name, "\")\n\n",
      "local_repository(\n"
      "    name = \"reprokit\",\n"
      "    path = \"", reprokit_root, "\",\n",
      ")\n\n"
      "# Offline shims (rules_cc, rules_java, remote_coverage_tools) and the system\n"
      "# libraries reprokit builds against.\n"
      "load(\"@reprokit//repro:workspace.bzl\", \"reprokit_workspace\")\n\n"
      "reprokit_workspace(reprokit_path = \"", reprokit_root, "\")\n");
}

std::string FreshBazelrcText() {
  return "# Created by reprokit emit: the settings reprokit's code builds with.\n"
         "build --cxxopt=-std=c++20\n"
         "build --host_cxxopt=-std=c++20\n"
         "build --copt=-Wno-sign-compare\n"
         "build --spawn_strategy=local\n"
         "build --announce_rc=false\n"
         "build -c opt\n"
         "test --test_output=errors\n"
         "test --test_summary=terse\n";
}

absl::Status CreateWorkspace(const std::string& dir, const std::string& reprokit_root,
                             const std::string& name) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(dir, ": cannot create: ", ec.message()));
  const fs::path workspace = fs::path(dir) / "WORKSPACE";
  if (fs::exists(workspace, ec) || fs::exists(fs::path(dir) / "WORKSPACE.bazel", ec)) {
    return absl::FailedPreconditionError(absl::StrCat(dir, ": already has a WORKSPACE"));
  }
  if (absl::Status s = WriteStringToFile(workspace.string(), FreshWorkspaceText(reprokit_root, name)); !s.ok()) {
    return s;
  }
  const fs::path bazelrc = fs::path(dir) / ".bazelrc";
  if (!fs::exists(bazelrc, ec)) return WriteStringToFile(bazelrc.string(), FreshBazelrcText());
  return absl::OkStatus();
}

absl::StatusOr<bool> InstallPrebuiltRunner(const WorkspaceInfo& workspace,
                                           const std::string& shared_library) {
  if (workspace.kind != WorkspaceKind::kExternal) {
    return absl::InvalidArgumentError(
        "a prebuilt runner is for workspaces that pull reprokit in as a local_repository");
  }
  absl::StatusOr<std::string> read = ReadFileToString(shared_library);
  if (!read.ok() || read->empty()) {
    return absl::NotFoundError(absl::StrCat(shared_library, ": cannot read the prebuilt runner"));
  }
  const std::string& bytes = *read;
  const fs::path dir = fs::path(workspace.root) / kPrebuiltRunnerPackage;
  const fs::path library = dir / "libreprokit_runner.so";
  const std::string build =
      "# Created by reprokit emit --prebuilt-runner: a frozen, prebuilt repro runner\n"
      "# (reprokit's //repro/emit:libreprokit_runner.so). Selected in .bazelrc.\n"
      "cc_import(\n"
      "    name = \"reprokit_runner\",\n"
      "    shared_library = \"libreprokit_runner.so\",\n"
      "    visibility = [\"//visibility:public\"],\n"
      ")\n";
  const std::string flag = absl::StrCat("build --@", workspace.reprokit_repo,
                                        "//repro/emit:runner_impl=//", kPrebuiltRunnerPackage);
  bool changed = false;
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Each file is rewritten only when its contents differ.
  for (const auto& [path, contents] : {std::pair<fs::path, const std::string*>{library, &bytes},
                                       {dir / "BUILD.bazel", &build}}) {
    absl::StatusOr<std::string> old = ReadFileToString(path.string());
    if (old.ok() && *old == *contents) continue;
    if (absl::Status s = WriteStringToFile(path.string(), *contents); !s.ok()) return s;
    changed = true;
  }
  const fs::path bazelrc = fs::path(workspace.root) / ".bazelrc";
  std::string rc = ReadFileToString(bazelrc.string()).value_or("");
  if (rc.find(flag) == std::string::npos) {
    if (!rc.empty() && rc.back() != '\n') rc += '\n';
    absl::StrAppend(&rc, "# Link the prebuilt runner (remove to build reprokit from source).\n",
                    flag, "\n");
    if (absl::Status s = WriteStringToFile(bazelrc.string(), rc); !s.ok()) return s;
    changed = true;
  }
  return changed;
}

absl::StatusOr<std::string> FindReprokitRoot() {
  std::error_code ec;
  if (const char* env = std::getenv("REPROKIT_ROOT"); env != nullptr && *env != '\0') {
    if (HasDefs(env)) return fs::canonical(env, ec).string();
    return absl::NotFoundError(absl::StrCat(
        "REPROKIT_ROOT=", env, " has no repro/defs.bzl; set it to reprokit's source checkout "
        "(the directory holding WORKSPACE and repro/defs.bzl)"));
  }
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
      if (!HasDefs(dir)) continue;
      // In an execroot, repro/ is a link into the source tree.
      const fs::path defs = fs::canonical(dir / "repro" / "defs.bzl", ec);
      if (!ec) return defs.parent_path().parent_path().string();
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "cannot find reprokit's sources (repro/defs.bzl) above ",
      exe.empty() ? std::string("this binary") : exe.parent_path().string(),
      ", which emitted repros need: set REPROKIT_ROOT=/path/to/reprokit (the checkout holding "
      "WORKSPACE and repro/defs.bzl), or pass --reprokit DIR where the command has it"));
}

}  // namespace rk::repro
