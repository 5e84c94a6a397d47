#include "repro/emit/emit.h"

#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "repro/bundle/bundle.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

constexpr char kBundleSubdir[] = "bundle";
constexpr char kBuildFile[] = "BUILD.bazel";

absl::Status CheckPackage(const std::string& package) {
  static const std::regex* const kPackage =
      new std::regex(R"([A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*)");
  if (!std::regex_match(package, *kPackage)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--package '", package, "': expected a relative package path like repros/relu_fusion"));
  }
  return absl::OkStatus();
}

// Relative path -> bytes of every regular file under `dir`, skipping hidden
// entries (a store's temp files).
absl::StatusOr<std::map<std::string, std::string>> ReadTree(const fs::path& dir) {
  std::map<std::string, std::string> tree;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->path().filename().string().starts_with(".")) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    absl::StatusOr<std::string> bytes = ReadFileToString(it->path().string());
    if (!bytes.ok()) return bytes.status();
    tree[fs::relative(it->path(), dir).string()] = *std::move(bytes);
  }
  if (ec) return absl::InternalError(absl::StrCat(dir.string(), ": ", ec.message()));
  return tree;
}

absl::Status WriteTree(const std::map<std::string, std::string>& tree, const fs::path& dir) {
  std::error_code ec;
  for (const auto& [rel, bytes] : tree) {
    const fs::path path = dir / rel;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return absl::InternalError(absl::StrCat(path.parent_path().string(), ": ", ec.message()));
    if (absl::Status s = WriteStringToFile(path.string(), bytes); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Puts `tree` at `dest` atomically: written beside it, then renamed in.
absl::Status ReplaceBundle(const std::map<std::string, std::string>& tree, const fs::path& dest) {
  std::error_code ec;
  const std::string suffix = absl::StrCat(".", ::getpid());
  const fs::path temp = dest.parent_path() / (".bundle.new" + suffix);
  const fs::path old = dest.parent_path() / (".bundle.old" + suffix);
  fs::remove_all(temp, ec);
  if (absl::Status s = WriteTree(tree, temp); !s.ok()) {
    fs::remove_all(temp, ec);
    return s;
  }
  const bool had_old = fs::exists(dest, ec);
  if (had_old) fs::rename(dest, old, ec);
  if (!ec) fs::rename(temp, dest, ec);
  if (ec) {
    fs::remove_all(temp, ec);
    return absl::InternalError(absl::StrCat(dest.string(), ": cannot replace: ", ec.message()));
  }
  if (had_old) fs::remove_all(old, ec);
  return absl::OkStatus();
}

// Brings the workspace to a usable state or says what is wrong with it.
absl::StatusOr<WorkspaceInfo> PrepareWorkspace(const EmitRequest& request, bool* created) {
  absl::StatusOr<WorkspaceInfo> info = DetectWorkspace(request.workspace_dir);
  if (!info.ok()) return info.status();
  const std::string lines = absl::StrCat(
      "add to its WORKSPACE:\n", FreshWorkspaceText("/path/to/reprokit", "<name>"),
      "and reprokit's C++ settings to its .bazelrc (docs/WORKFLOWS.md)");
  if (info->kind == WorkspaceKind::kUnrelated) {
    return absl::FailedPreconditionError(absl::StrCat(
        info->workspace_file, " does not pull reprokit in as a local_repository; ", lines));
  }
  if (info->kind != WorkspaceKind::kMissing) return info;
  // An existing, non-empty directory below another workspace is most likely
  // a mistyped --workspace; a new or empty one is meant to become a workspace.
  std::error_code ec;
  const bool fresh = !fs::exists(info->root, ec) || fs::is_empty(info->root, ec);
  for (fs::path dir = fs::path(info->root).parent_path(); dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fresh) break;
    if (fs::exists(dir / "WORKSPACE", ec) || fs::exists(dir / "WORKSPACE.bazel", ec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          info->root, " has no WORKSPACE but is inside the workspace ", dir.string(),
          "; pass --workspace ", dir.string(), " and a --package below it"));
    }
  }
  if (!request.create_workspace || request.reprokit_root.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(info->root, " has no WORKSPACE; ", lines));
  }
  if (absl::Status s = CreateWorkspace(info->root, request.reprokit_root, "reprokit_repros");
      !s.ok()) {
    return s;
  }
  *created = true;
  return DetectWorkspace(info->root);
}

std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string BuildFileText(const BuildFileSpec& spec) {
  std::string text = absl::StrCat(kGeneratedHeader, "\n");
  if (!spec.summary.empty()) absl::StrAppend(&text, "# ", spec.summary, "\n");
  absl::StrAppend(&text, "# Bundle hash: ", spec.bundle_hash, "\n");
  absl::StrAppend(&text, "load(", Quote(spec.defs_label), ", \"reprokit_repro\")\n\n");
  absl::StrAppend(&text, "reprokit_repro(\n    name = ", Quote(spec.name), ",\n",
                  "    bundle = glob([\"", kBundleSubdir, "/**\"]),\n",
                  "    device = ", Quote(spec.device), ",\n");
  if (spec.known_failure) absl::StrAppend(&text, "    known_failure = True,\n");
  if (!spec.backend.empty()) {
    // The adapters live in reprokit's own repository, named like the defs.
    const std::string repo = spec.defs_label.substr(0, spec.defs_label.find("//"));
    absl::StrAppend(&text, "    # The target judged: backend ", spec.backend,
                    spec.backend_version.empty() ? "" : " (recorded: " + spec.backend_version + ")",
                    "; skipped where it is not installed.\n",
                    "    data = [", Quote(repo + "//backends:adapters"), "],\n");
  }
  if (!spec.options.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& o : spec.options) quoted.push_back(Quote(o));
    absl::StrAppend(&text, "    options = [", absl::StrJoin(quoted, ", "), "],\n");
  }
  absl::StrAppend(&text, ")\n");
  return text;
}

absl::StatusOr<EmitResult> EmitRepro(const EmitRequest& request) {
  if (absl::Status s = CheckPackage(request.package); !s.ok()) return s;
  absl::StatusOr<LoadedBundle> source = LoadBundle(request.bundle_dir);
  if (!source.ok()) return source.status();
  const Bundle& bundle = source->bundle;
  if (!IsFailure(bundle.expected.kind)) {
    return absl::InvalidArgumentError(absl::StrCat(
        request.bundle_dir, ": its expected verdict is ",
        std::string(VerdictKindName(bundle.expected.kind)), ": there is no failure to reproduce"));
  }
  compiler::CompileOptions check = bundle.options;
  if (absl::Status s = check.Apply(request.options); !s.ok()) return s;

  EmitResult result;
  absl::StatusOr<WorkspaceInfo> workspace = PrepareWorkspace(request, &result.workspace_created);
  if (!workspace.ok()) return workspace.status();
  result.workspace = *workspace;
  if (!request.prebuilt_runner.empty()) {
    absl::StatusOr<bool> changed = InstallPrebuiltRunner(*workspace, request.prebuilt_runner);
    if (!changed.ok()) return changed.status();
    result.prebuilt_runner_changed = *changed;
  }
  const fs::path package_dir = fs::path(workspace->root) / request.package;
  result.package_dir = package_dir.string();
  const std::string name = request.name.empty() ? package_dir.filename().string() : request.name;
  result.test_label = absl::StrCat("//", request.package, ":", name);
  result.bisect_label = absl::StrCat(result.test_label, "_bisect");
  result.bundle_hash = source->hash;
  result.signature = bundle.expected.signature.ToString();
  result.device = check.device;

  // The bundle.
  absl::StatusOr<std::map<std::string, std::string>> tree = ReadTree(request.bundle_dir);
  if (!tree.ok()) return tree.status();
  const fs::path dest = package_dir / kBundleSubdir;
  std::error_code ec;
  bool write_bundle = true;
  if (fs::exists(dest, ec)) {
    absl::StatusOr<std::map<std::string, std::string>> existing = ReadTree(dest);
    if (!existing.ok()) return existing.status();
    absl::StatusOr<LoadedBundle> old = LoadBundle(dest.string());
    if (*existing == *tree || (old.ok() && old->hash == source->hash)) {
      write_bundle = false;
    } else if (!request.force) {
      return absl::FailedPreconditionError(absl::StrCat(
          dest.string(), " holds a different bundle (",
          old.ok() ? absl::StrCat("hash ", old->hash.substr(0, 12)) : "unreadable",
          ", new ", source->hash.substr(0, 12), "); pass --force to replace it"));
    }
  }
  // The BUILD file.
  BuildFileSpec spec;
  spec.defs_label = workspace->defs_label;
  spec.name = name;
  spec.device = check.device;
  spec.known_failure = request.known_failure;
  spec.options = request.options;
  spec.bundle_hash = source->hash;
  spec.backend = check.backend;
  if (const Json* b = bundle.environment.Find("backend"); b != nullptr && b->is_object()) {
    absl::StatusOr<std::string> bname = b->GetString("name"), bversion = b->GetString("version");
    if (bname.ok() && bversion.ok()) {
      // Versions may already name the backend ("onnxruntime 1.30.0 (node)").
      spec.backend_version =
          absl::StartsWith(*bversion, *bname) ? *bversion : absl::StrCat(*bname, " ", *bversion);
    }
  }
  spec.summary = absl::StrCat("Graph @", bundle.graph.name(), " (", bundle.graph.num_nodes(),
                              " nodes), expected failure ", result.signature, ".");
  const std::string build_text = BuildFileText(spec);
  const fs::path build_path = package_dir / kBuildFile;
  std::string old_build;
  absl::StatusOr<std::string> read_build = ReadFileToString(build_path.string());
  const bool has_build = read_build.ok();
  if (has_build) old_build = *std::move(read_build);
  if (has_build && !absl::StartsWith(old_build, kGeneratedHeader) && !request.force) {
    return absl::FailedPreconditionError(absl::StrCat(
        build_path.string(), " was not generated by reprokit emit; pass --force to replace it"));
  }
  fs::create_directories(package_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(package_dir.string(), ": ", ec.message()));
  if (write_bundle) {
    if (absl::Status s = ReplaceBundle(*tree, dest); !s.ok()) return s;
    result.bundle_changed = true;
  }
  if (!has_build || old_build != build_text) {
    if (absl::Status s = WriteStringToFile(build_path.string(), build_text); !s.ok()) return s;
    result.build_changed = true;
  }
  return result;
}

}  // namespace rk::repro
