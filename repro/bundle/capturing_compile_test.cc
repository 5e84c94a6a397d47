#include "repro/bundle/capturing_compile.h"

#include <stdlib.h>

#include <filesystem>

#include "compiler/ir/builder.h"
#include "gtest/gtest.h"
#include "repro/bundle/bundle.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::TensorType;

compiler::Graph ReluGraph() {
  compiler::GraphBuilder b("relu_graph");
  compiler::NodeId x = b.Input("x", TensorType(DType::kF32, {4, 4}));
  compiler::NodeId y = *b.Unary(compiler::Op::kRelu, x);
  EXPECT_TRUE(b.Output(y).ok());
  return *b.Build();
}

compiler::CompileOptions Faulty() {
  compiler::CompileOptions o;
  EXPECT_TRUE(o.Set("faults", "relu:compile_error").ok());
  return o;
}

class CapturingCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::path(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") /
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
               .string();
    fs::remove_all(dir_);
    setenv("REPROKIT_CAPTURE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override { unsetenv("REPROKIT_CAPTURE"); }

  int Bundles() const {
    if (!fs::exists(dir_)) return 0;
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += IsBundleDir(e.path().string());
    return n;
  }

  std::string dir_;
};

TEST_F(CapturingCompileTest, OffCapturesNothing) {
  setenv("REPROKIT_CAPTURE", "off", 1);
  EXPECT_FALSE(CompileWithCapture(ReluGraph(), Faulty()).ok());
  unsetenv("REPROKIT_CAPTURE");
  EXPECT_FALSE(CompileWithCapture(ReluGraph(), Faulty()).ok());
  EXPECT_EQ(Bundles(), 0);
}

TEST_F(CapturingCompileTest, OnFailureCapturesOnlyFailures) {
  setenv("REPROKIT_CAPTURE", "on_failure", 1);
  EXPECT_TRUE(CompileWithCapture(ReluGraph(), {}).ok());
  EXPECT_EQ(Bundles(), 0);
  absl::StatusOr<compiler::Executable> result = CompileWithCapture(ReluGraph(), Faulty());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("injected fault"), absl::string_view::npos);
  ASSERT_EQ(Bundles(), 1);
  // The same failing compile again is not captured twice.
  EXPECT_FALSE(CompileWithCapture(ReluGraph(), Faulty()).ok());
  ASSERT_EQ(Bundles(), 1);

  fs::path bundle = fs::directory_iterator(dir_)->path();
  EXPECT_EQ(bundle.filename().string().rfind("relu_graph-", 0), 0u) << bundle;
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(bundle.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->bundle.expected.kind, VerdictKind::kCompileError);
  EXPECT_EQ(loaded->bundle.expected.signature.ToString().rfind("compile_error:INTERNAL:", 0), 0u)
      << loaded->bundle.expected.signature.ToString();
  EXPECT_FALSE(loaded->bundle.judged);
  EXPECT_EQ(loaded->bundle.options.ToString(), "faults=relu:compile_error");
  EXPECT_EQ(loaded->bundle.provenance.GetString("captured_by").value(), "REPROKIT_CAPTURE");
}

TEST_F(CapturingCompileTest, AlwaysCapturesEveryCompileWithTheGivenInputs) {
  setenv("REPROKIT_CAPTURE", "always", 1);
  std::vector<compiler::HostTensor> inputs = {
      compiler::HostTensor::Full(TensorType(DType::kF32, {4, 4}), 3.0)};
  EXPECT_TRUE(CompileWithCapture(ReluGraph(), {}, &inputs).ok());
  EXPECT_FALSE(CompileWithCapture(ReluGraph(), Faulty(), &inputs).ok());
  ASSERT_EQ(Bundles(), 2);
  for (const auto& e : fs::directory_iterator(dir_)) {
    absl::StatusOr<LoadedBundle> loaded = LoadBundle(e.path().string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_TRUE(loaded->inputs[0].BitwiseEqual(inputs[0]));
  }
}

TEST_F(CapturingCompileTest, CaptureFailureNeverChangesTheResult) {
  setenv("REPROKIT_CAPTURE", "always", 1);
  // A file where the capture directory should be.
  fs::create_directories(fs::path(dir_).parent_path());
  { std::FILE* f = std::fopen(dir_.c_str(), "w"); std::fclose(f); }
  EXPECT_TRUE(CompileWithCapture(ReluGraph(), {}).ok());
  absl::StatusOr<compiler::Executable> failed = CompileWithCapture(ReluGraph(), Faulty());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  fs::remove(dir_);

  setenv("REPROKIT_CAPTURE", "sometimes", 1);
  EXPECT_FALSE(CaptureSettingsFromEnv().ok());
  EXPECT_TRUE(CompileWithCapture(ReluGraph(), {}).ok());
  EXPECT_EQ(Bundles(), 0);
}

}  // namespace
}  // namespace rk::repro
