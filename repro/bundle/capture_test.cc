#include "repro/bundle/capture.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/ir/builder.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/bundle/bundle.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::HostTensor;
using compiler::TensorType;

compiler::Graph ReluGraph() {
  compiler::GraphBuilder b("tiny");
  compiler::NodeId x = b.Input("x", TensorType(DType::kF32, {3, 5}));
  compiler::NodeId y = *b.Unary(compiler::Op::kRelu, x);
  EXPECT_TRUE(b.Output(y).ok());
  return *b.Build();
}

std::string TempDir(const std::string& name) {
  fs::path root = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") / name;
  fs::remove_all(root);
  return root.string();
}

Verdict CompileError() {
  Verdict v;
  v.kind = VerdictKind::kCompileError;
  v.signature = CompileErrorSignature("INTERNAL", "injected fault: relu:compile_error");
  v.message = "compile: INTERNAL: injected fault: relu:compile_error";
  return v;
}

TEST(CaptureTest, SeededInputsBecomeRecipesAndProvenanceIsFilled) {
  compiler::Graph g = ReluGraph();
  compiler::CompileOptions options;
  ASSERT_TRUE(options.Apply({"faults=relu:compile_error", "dump_dir=/tmp/dumps"}).ok());
  std::string dir = TempDir("seeded");
  CaptureOptions co;
  co.seed = 5;
  co.judged = false;
  co.command_line = "reprokit capture g.rk --seed 5 -o bug";
  co.parent_hash = std::string(64, 'a');
  ASSERT_TRUE(Capture(g, compiler::SeededInputs(g, 5), options, CompileError(), dir, co).ok());
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->warnings.empty());
  EXPECT_EQ(loaded->bundle.inputs[0].source, BundleInput::Source::kRandom);
  EXPECT_EQ(loaded->bundle.inputs[0].seed, compiler::SeedForInput(5, 0));
  EXPECT_TRUE(loaded->inputs[0].BitwiseEqual(compiler::SeededInputs(g, 5)[0]));
  EXPECT_EQ(loaded->bundle.options.ToString(), "faults=relu:compile_error");  // no dump_dir
  EXPECT_FALSE(loaded->bundle.judged);
  EXPECT_EQ(loaded->bundle.expected.kind, VerdictKind::kCompileError);
  const Json& p = loaded->bundle.provenance;
  EXPECT_EQ(p.GetString("command_line").value(), co.command_line);
  EXPECT_EQ(p.GetString("parent_bundle").value(), co.parent_hash);
  EXPECT_EQ(p.GetInt("seed").value(), 5);
  EXPECT_TRUE(p.GetString("created_at").value().ends_with("Z"));
  EXPECT_TRUE(loaded->bundle.environment.GetString("git_commit").ok());
  EXPECT_FALSE(fs::exists(fs::path(dir) / "blobs" / "cas"));  // nothing to store
}

TEST(CaptureTest, GivenInputsAreStoredAsBlobs) {
  compiler::Graph g = ReluGraph();
  std::string dir = TempDir("blobs");
  std::vector<HostTensor> inputs = {HostTensor::Full(TensorType(DType::kF32, {3, 5}), -2.5)};
  ASSERT_TRUE(Capture(g, inputs, {}, CompileError(), dir).ok());
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->bundle.inputs[0].source, BundleInput::Source::kBlob);
  EXPECT_TRUE(loaded->inputs[0].BitwiseEqual(inputs[0]));
  EXPECT_TRUE(loaded->bundle.judged);
}

TEST(CaptureTest, SeedThatDoesNotMatchTheInputsIsRejected) {
  compiler::Graph g = ReluGraph();
  CaptureOptions co;
  co.seed = 6;
  absl::Status s = Capture(g, compiler::SeededInputs(g, 5), {}, CompileError(),
                           TempDir("mismatch"), co);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

Verdict UnclassifiedAccuracy() {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.accuracy_subkind = "unknown";
  v.signature = AccuracySignature("unknown", "relu", "f32");
  v.message = "output 0 (%y = relu, f32): wrong";
  return v;
}

TEST(CaptureTest, DeferredPrecisionCheckIsRecordedForUnclassifiedAccuracyOnly) {
  compiler::Graph g = ReluGraph();
  CaptureOptions co;
  co.seed = 1;
  co.precision_check_deferred = true;
  const std::string deferred = TempDir("deferred");
  ASSERT_TRUE(Capture(g, compiler::SeededInputs(g, 1), {}, UnclassifiedAccuracy(), deferred, co)
                  .ok());
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(deferred);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->bundle.precision_check_deferred);
  EXPECT_EQ(loaded->bundle.expected.signature.ToString(), "accuracy:unknown:relu:f32");
  std::ifstream readme(fs::path(deferred) / "README.md");
  const std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("the check was deferred"), std::string::npos) << text;
  // Another verdict has no miscompile/precision check to defer.
  const std::string other = TempDir("not_deferred");
  ASSERT_TRUE(Capture(g, compiler::SeededInputs(g, 1), {}, CompileError(), other, co).ok());
  loaded = LoadBundle(other);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->bundle.precision_check_deferred);
}

}  // namespace
}  // namespace rk::repro
