// `reprokit emit BUNDLE --workspace DIR --package repros/NAME`: turns a repro
// bundle into a Bazel package (repro/emit/emit.h) and prints how to test and
// bisect it.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "repro/emit/emit.h"
#include "repro/emit/workspace.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "emit";

void PrintCommands(const repro::EmitResult& r) {
  const bool own = r.workspace.kind == repro::WorkspaceKind::kReprokit;
  const std::string cd = absl::StrCat("cd ", r.workspace.root, " && ");
  std::printf("\nrun it:\n");
  std::printf("  %sbazel test %s\n", cd.c_str(), r.test_label.c_str());
  std::printf("      # fails while the bug reproduces, passes once it is fixed%s\n",
              r.device == "cuda" ? " (no GPU: skipped)" : "");
  std::printf("  %sbazel run %s\n", cd.c_str(), r.bisect_label.c_str());
  std::printf("      # exit 0 good (does not reproduce), 1 bad (reproduces), 125 cannot test\n");
  std::printf("bisect a regression (in the reprokit checkout, between a good and a bad commit):\n");
  if (own) {
    std::printf("  git bisect run bazel run %s\n", r.bisect_label.c_str());
    std::printf("  # to skip commits that do not build:\n");
    std::printf("  git bisect run sh -c 'bazel build %s || exit 125; bazel run %s'\n",
                r.bisect_label.c_str(), r.bisect_label.c_str());
  } else {
    std::printf("  git bisect run sh -c 'cd %s && { bazel build %s || exit 125; } && "
                "bazel run %s'\n",
                r.workspace.root.c_str(), r.bisect_label.c_str(), r.bisect_label.c_str());
  }
  std::printf("flip compile options without editing BUILD files:\n");
  std::printf("  bazel test --test_env=REPROKIT_OPTIONS=faults= %s\n", r.test_label.c_str());
}

int RunEmit(absl::Span<const std::string> args) {
  std::string workspace = ".", package, name, reprokit_root, prebuilt;
  std::vector<std::string> opts;
  bool known_failure = false, force = false, no_create = false, json = false;
  FlagSet flags(
      "emit BUNDLE --workspace DIR --package repros/NAME [flags]",
      "Copies BUNDLE into DIR/repros/NAME/bundle/ and writes a generated BUILD.bazel\n"
      "with a reprokit_repro target (repro/defs.bzl): a cc_test that fails while the\n"
      "recorded failure reproduces (passes with --known-failure) and a _bisect binary\n"
      "with git bisect's exit codes. DIR is reprokit's own workspace (//repro:defs.bzl),\n"
      "a workspace with reprokit as a local_repository (@<name>//repro:defs.bzl), or a\n"
      "directory without a WORKSPACE, which gets a minimal WORKSPACE and .bazelrc.\n"
      "Emitting the same bundle again changes nothing; a different bundle needs --force.\n"
      "Exit: 0 emitted (or already up to date), 2 bad input or a conflict.");
  flags.String("workspace", &workspace, "the Bazel workspace to emit into");
  flags.String("package", &package, "package path inside it, e.g. repros/relu_fusion (required)");
  flags.String("name", &name, "target name (default: the package's last component)");
  flags.Bool("known-failure", &known_failure, "the test passes while the failure reproduces");
  flags.Bool("force", &force, "replace a different bundle or a hand-written BUILD.bazel");
  flags.Repeated("opt", &opts, "compile option override key=value, recorded in the BUILD file");
  flags.String("reprokit", &reprokit_root,
               "reprokit's source directory for a new WORKSPACE (default: found)");
  flags.String("prebuilt-runner", &prebuilt,
               "link this libreprokit_runner.so instead of building reprokit from source\n"
               "(external workspaces; frozen: not for bisecting compiler commits)");
  flags.Bool("no-create-workspace", &no_create, "fail instead of creating a WORKSPACE");
  flags.Bool("json", &json, "print the result as JSON");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "BUNDLE", &exit_code);
  if (!arg.has_value()) return exit_code;
  if (package.empty()) {
    return ReportError(kName, absl::InvalidArgumentError("--package is required"));
  }
  if (!workspace.empty()) {
    if (absl::Status s = CheckOutputPath("--workspace", workspace, OutputKind::kDirectory);
        !s.ok()) {
      return ReportError(kName, s);
    }
  }
  repro::EmitRequest request;
  request.bundle_dir = *arg;
  request.workspace_dir = workspace;
  request.package = package;
  request.name = name;
  request.known_failure = known_failure;
  request.force = force;
  request.options = opts;
  request.create_workspace = !no_create;
  request.prebuilt_runner = prebuilt;
  if (request.create_workspace) {
    if (reprokit_root.empty()) {
      absl::StatusOr<std::string> found = repro::FindReprokitRoot();
      if (found.ok()) reprokit_root = *found;
    }
    request.reprokit_root = reprokit_root;
  }
  absl::StatusOr<repro::EmitResult> result = repro::EmitRepro(request);
  if (!result.ok()) {
    // Conflicts are bad input too: the user has to decide (--force).
    absl::Status s = result.status();
    if (s.code() == absl::StatusCode::kFailedPrecondition) {
      s = absl::InvalidArgumentError(s.message());
    }
    return ReportError(kName, s);
  }
  const repro::EmitResult& r = *result;
  if (json) {
    Json doc = Json::MakeObject();
    doc.Set("workspace", r.workspace.root);
    doc.Set("package_dir", r.package_dir);
    doc.Set("test", r.test_label);
    doc.Set("bisect", r.bisect_label);
    doc.Set("bundle_hash", r.bundle_hash);
    doc.Set("signature", r.signature);
    doc.Set("workspace_created", r.workspace_created);
    doc.Set("bundle_changed", r.bundle_changed);
    doc.Set("build_changed", r.build_changed);
    std::printf("%s\n", doc.DumpPretty().c_str());
    return kExitOk;
  }
  std::printf("emitted %s (bundle %s, expects %s)\n", r.test_label.c_str(),
              r.bundle_hash.substr(0, 12).c_str(), r.signature.c_str());
  if (r.workspace_created) {
    std::printf("  created   %s/WORKSPACE and .bazelrc (reprokit at %s)\n", r.workspace.root.c_str(),
                request.reprokit_root.c_str());
  }
  if (!prebuilt.empty()) {
    std::printf("  %-9s %s/%s/ (prebuilt runner, selected in .bazelrc)\n",
                r.prebuilt_runner_changed ? "wrote" : "unchanged", r.workspace.root.c_str(),
                repro::kPrebuiltRunnerPackage);
  }
  std::printf("  %-9s %s/bundle/\n", r.bundle_changed ? "wrote" : "unchanged", r.package_dir.c_str());
  std::printf("  %-9s %s/BUILD.bazel\n", r.build_changed ? "wrote" : "unchanged",
              r.package_dir.c_str());
  PrintCommands(r);
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("emit", "emit a Bazel cc_test (and a git-bisect binary) for a bundle",
                    &RunEmit);

}  // namespace rk::tools
