#include "repro/emit/emit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "compiler/ir/builder.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/emit/workspace.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::TensorType;

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path root = fs::path(tmp != nullptr ? tmp : "/tmp") / name;
  fs::remove_all(root);
  fs::create_directories(root);
  return root.string();
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A relu bundle recorded as an accuracy failure (`width` varies the graph).
std::string MakeBundle(const std::string& dir, int64_t width) {
  compiler::GraphBuilder b("tiny");
  compiler::NodeId x = b.Input("x", TensorType(DType::kF32, {width}));
  compiler::NodeId y = *b.Unary(compiler::Op::kRelu, x);
  EXPECT_TRUE(b.Output(y).ok());
  compiler::Graph graph = *b.Build();
  compiler::CompileOptions options;
  EXPECT_TRUE(options.Apply({"faults=relu:accuracy"}).ok());
  Verdict verdict;
  verdict.kind = VerdictKind::kAccuracy;
  verdict.accuracy_subkind = "miscompile";
  verdict.signature = AccuracySignature("miscompile", "relu", "f32");
  CaptureOptions capture;
  capture.seed = 0;
  absl::Status s = Capture(graph, compiler::SeededInputs(graph, 0), options, verdict, dir, capture);
  EXPECT_TRUE(s.ok()) << s;
  return dir;
}

// A fake reprokit checkout: what detection looks at.
std::string FakeReprokit(const std::string& root) {
  Write(fs::path(root) / "WORKSPACE", "workspace(name = \"reprokit\")\n");
  Write(fs::path(root) / "repro" / "defs.bzl", "");
  return root;
}

TEST(DetectWorkspaceTest, TellsTheFourKindsApart) {
  const std::string root = TempDir("detect");
  const std::string reprokit = FakeReprokit(root + "/reprokit");
  absl::StatusOr<WorkspaceInfo> own = DetectWorkspace(reprokit);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->kind, WorkspaceKind::kReprokit);
  EXPECT_EQ(own->defs_label, "//repro:defs.bzl");

  Write(root + "/ext/WORKSPACE",
        "local_repository(\n    name = \"rk\",\n    path = \"../reprokit\",\n)\n");
  absl::StatusOr<WorkspaceInfo> ext = DetectWorkspace(root + "/ext");
  ASSERT_TRUE(ext.ok());
  EXPECT_EQ(ext->kind, WorkspaceKind::kExternal);
  EXPECT_EQ(ext->defs_label, "@rk//repro:defs.bzl");

  Write(root + "/other/WORKSPACE", "workspace(name = \"other\")\n");
  EXPECT_EQ(DetectWorkspace(root + "/other")->kind, WorkspaceKind::kUnrelated);
  EXPECT_EQ(DetectWorkspace(root + "/nothing")->kind, WorkspaceKind::kMissing);
}

// A wrong REPROKIT_ROOT says what is missing and what to set it to.
TEST(FindReprokitRootTest, BadRootSaysWhatIsMissingAndHowToSetIt) {
  const char* old = std::getenv("REPROKIT_ROOT");
  const std::string saved = old ? old : "";
  setenv("REPROKIT_ROOT", "/nonexistent/reprokit", 1);
  absl::StatusOr<std::string> root = FindReprokitRoot();
  if (old) setenv("REPROKIT_ROOT", saved.c_str(), 1); else unsetenv("REPROKIT_ROOT");
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(root.status().message().find("has no repro/defs.bzl"), std::string::npos);
  EXPECT_NE(root.status().message().find("holding WORKSPACE and repro/defs.bzl"),
            std::string::npos)
      << root.status();
}

TEST(EmitTest, CreatesAWorkspaceAndIsIdempotent) {
  const std::string root = TempDir("fresh");
  EmitRequest request;
  request.bundle_dir = MakeBundle(root + "/bug", 4);
  request.workspace_dir = root + "/ws";
  request.package = "repros/relu_fusion";
  request.create_workspace = true;
  request.reprokit_root = FakeReprokit(root + "/reprokit");
  absl::StatusOr<EmitResult> first = EmitRepro(request);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->workspace_created);
  EXPECT_TRUE(first->bundle_changed);
  EXPECT_TRUE(first->build_changed);
  EXPECT_EQ(first->test_label, "//repros/relu_fusion:relu_fusion");
  EXPECT_EQ(first->bisect_label, "//repros/relu_fusion:relu_fusion_bisect");
  EXPECT_EQ(first->signature, "accuracy:miscompile:relu:f32");
  EXPECT_EQ(first->workspace.kind, WorkspaceKind::kExternal);
  EXPECT_NE(Read(root + "/ws/WORKSPACE").find("reprokit_workspace("), std::string::npos);
  EXPECT_NE(Read(root + "/ws/.bazelrc").find("c++20"), std::string::npos);
  const std::string build = Read(root + "/ws/repros/relu_fusion/BUILD.bazel");
  EXPECT_EQ(build.rfind(kGeneratedHeader, 0), 0u) << build;
  EXPECT_NE(build.find("load(\"@reprokit//repro:defs.bzl\", \"reprokit_repro\")"),
            std::string::npos);
  EXPECT_EQ(build.find("known_failure"), std::string::npos);
  EXPECT_TRUE(IsBundleDir(root + "/ws/repros/relu_fusion/bundle"));

  absl::StatusOr<EmitResult> again = EmitRepro(request);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->workspace_created);
  EXPECT_FALSE(again->bundle_changed);
  EXPECT_FALSE(again->build_changed);

  request.known_failure = true;
  request.options = {"faults="};
  absl::StatusOr<EmitResult> flipped = EmitRepro(request);
  ASSERT_TRUE(flipped.ok()) << flipped.status();
  EXPECT_FALSE(flipped->bundle_changed);
  EXPECT_TRUE(flipped->build_changed);
  const std::string build2 = Read(root + "/ws/repros/relu_fusion/BUILD.bazel");
  EXPECT_NE(build2.find("known_failure = True"), std::string::npos) << build2;
  EXPECT_NE(build2.find("options = [\"faults=\"]"), std::string::npos) << build2;
}

TEST(EmitTest, RefusesADifferentBundleWithoutForce) {
  const std::string root = TempDir("conflict");
  EmitRequest request;
  request.bundle_dir = MakeBundle(root + "/a", 4);
  request.workspace_dir = FakeReprokit(root + "/reprokit");
  request.package = "repros/r";
  ASSERT_TRUE(EmitRepro(request).ok());
  EXPECT_NE(Read(root + "/reprokit/repros/r/BUILD.bazel").find("load(\"//repro:defs.bzl\""),
            std::string::npos);

  request.bundle_dir = MakeBundle(root + "/b", 8);
  absl::StatusOr<EmitResult> refused = EmitRepro(request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  request.force = true;
  absl::StatusOr<EmitResult> forced = EmitRepro(request);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_TRUE(forced->bundle_changed);
  absl::StatusOr<LoadedBundle> now = LoadBundle(root + "/reprokit/repros/r/bundle");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->hash, forced->bundle_hash);
}

TEST(EmitTest, KeepsHandWrittenBuildFilesAndRejectsBadInput) {
  const std::string root = TempDir("handwritten");
  EmitRequest request;
  request.bundle_dir = MakeBundle(root + "/a", 4);
  request.workspace_dir = FakeReprokit(root + "/reprokit");
  request.package = "repros/mine";
  Write(root + "/reprokit/repros/mine/BUILD.bazel", "# mine\n");
  EXPECT_EQ(EmitRepro(request).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Read(root + "/reprokit/repros/mine/BUILD.bazel"), "# mine\n");

  request.package = "../escape";
  EXPECT_EQ(EmitRepro(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.package = "repros/x";
  request.options = {"no_such_option=1"};
  EXPECT_EQ(EmitRepro(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.options = {};
  Write(root + "/reprokit/sub/notes.txt", "x");  // an existing folder inside a workspace
  request.workspace_dir = root + "/reprokit/sub";
  EXPECT_EQ(EmitRepro(request).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace rk::repro

namespace rk::repro {
namespace {

TEST(BuildFileTextTest, AnExternalBackendIsRecordedAndItsAdaptersShipped) {
  BuildFileSpec spec;
  spec.defs_label = "@reprokit//repro:defs.bzl";
  spec.name = "ort_bug";
  spec.known_failure = true;
  spec.backend = "onnxruntime";
  spec.backend_version = "onnxruntime 1.30.0 (node)";
  const std::string text = BuildFileText(spec);
  EXPECT_NE(text.find("    known_failure = True,\n"), std::string::npos) << text;
  EXPECT_NE(text.find("backend onnxruntime (recorded: onnxruntime 1.30.0 (node))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    data = [\"@reprokit//backends:adapters\"],\n"), std::string::npos)
      << text;
  spec.defs_label = "//repro:defs.bzl";
  EXPECT_NE(BuildFileText(spec).find("data = [\"//backends:adapters\"]"), std::string::npos);
  // The built-in compiler needs no adapters.
  spec.backend.clear();
  EXPECT_EQ(BuildFileText(spec).find("data ="), std::string::npos);
}

}  // namespace
}  // namespace rk::repro
