// Which Bazel workspace a repro package is emitted into, and how its BUILD
// file reaches repro/defs.bzl:
//   - reprokit's own workspace (`workspace(name = "reprokit")` next to
//     repro/defs.bzl): `//repro:defs.bzl`;
//   - another workspace that declares reprokit as a local_repository (any
//     name): `@<name>//repro:defs.bzl`;
//   - a directory without a WORKSPACE: CreateWorkspace writes a minimal
//     WORKSPACE (reprokit as `@reprokit`, repro/workspace.bzl for the offline
//     shims and system libraries) and a .bazelrc with reprokit's C++ settings.
// A WORKSPACE that does not mention reprokit is reported, never edited.
//
// Tested by repro/emit/emit_test.cc.
#ifndef REPROKIT_REPRO_EMIT_WORKSPACE_H_
#define REPROKIT_REPRO_EMIT_WORKSPACE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rk::repro {

enum class WorkspaceKind {
  kReprokit,  // reprokit's own workspace
  kExternal,  // pulls reprokit in as a local_repository
  kMissing,   // no WORKSPACE file
  kUnrelated, // a WORKSPACE without reprokit
};

struct WorkspaceInfo {
  WorkspaceKind kind = WorkspaceKind::kMissing;
  std::string root;            // absolute
  std::string workspace_file;  // "" when missing
  std::string reprokit_repo;   // kExternal: the local_repository's name
  std::string defs_label;      // "//repro:defs.bzl" or "@<repo>//repro:defs.bzl"
};

absl::StatusOr<WorkspaceInfo> DetectWorkspace(const std::string& dir);

// The WORKSPACE and .bazelrc text of a fresh workspace using reprokit at
// `reprokit_root` (an absolute path).
std::string FreshWorkspaceText(const std::string& reprokit_root, const std::string& name);
std::string FreshBazelrcText();

// Writes WORKSPACE (and .bazelrc unless present) into `dir`, creating it.
// FailedPrecondition if `dir` already has a WORKSPACE.
absl::Status CreateWorkspace(const std::string& dir, const std::string& reprokit_root,
                             const std::string& name);

// Makes an external workspace link a prebuilt runner (libreprokit_runner.so,
// built by //repro/emit:libreprokit_runner.so) instead of compiling reprokit:
// copies it to third_party/reprokit_runner/ with a cc_import BUILD file and
// adds the --@<repo>//repro/emit:runner_impl line to .bazelrc. The library is
// frozen: bisecting compiler commits needs the from-source runner. Returns
// whether anything changed; InvalidArgument for reprokit's own workspace.
inline constexpr char kPrebuiltRunnerPackage[] = "third_party/reprokit_runner";
absl::StatusOr<bool> InstallPrebuiltRunner(const WorkspaceInfo& workspace,
                                           const std::string& shared_library);

// reprokit's source directory: $REPROKIT_ROOT, else found from the running
// binary (bazel-bin/... lives in an execroot whose entries link back to the
// sources). NotFound when neither works.
absl::StatusOr<std::string> FindReprokitRoot();

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_EMIT_WORKSPACE_H_
