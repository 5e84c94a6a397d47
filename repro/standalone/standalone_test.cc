#include "repro/standalone/standalone.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "base/json.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "repro/standalone/npy.h"
#include "repro/standalone/torch_source.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::HostTensor;

compiler::Graph ParseOrDie(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : compiler::Graph();
}

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(dir);
  return dir;
}

HostTensor F32(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor t(compiler::TensorType{DType::kF32, compiler::Shape(shape)});
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

TEST(NpyTest, HeaderIsAlignedAndNamesDtypeAndShape) {
  const std::string bytes = NpyBytes(F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  ASSERT_GT(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header = static_cast<unsigned char>(bytes[8]) |
                        static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + header) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + header + 6 * 4);
  const std::string text = bytes.substr(10, header);
  EXPECT_TRUE(absl::StrContains(text, "'descr': '<f4'")) << text;
  EXPECT_TRUE(absl::StrContains(text, "'shape': (2, 3)")) << text;
  EXPECT_EQ(text.back(), '\n');
  // One dimension keeps its tuple comma; a scalar has none.
  EXPECT_TRUE(absl::StrContains(NpyBytes(F32({4}, {1, 2, 3, 4})), "'shape': (4,)"));
  EXPECT_TRUE(absl::StrContains(NpyBytes(F32({}, {1})), "'shape': ()"));
  // bf16 has no numpy dtype: written as f32.
  HostTensor bf = F32({2}, {1.5f, -2}).ConvertTo(DType::kBF16);
  EXPECT_TRUE(absl::StrContains(NpyBytes(bf), "'descr': '<f4'"));
}

TEST(ParseStandaloneTargetTest, NamesAndPaths) {
  EXPECT_EQ(*ParseStandaloneTarget("onnxruntime"), StandaloneTarget::kOnnxRuntime);
  EXPECT_EQ(*ParseStandaloneTarget("/x/backends/onnxruntime/serve"),
            StandaloneTarget::kOnnxRuntime);
  EXPECT_EQ(*ParseStandaloneTarget("torch_inductor"), StandaloneTarget::kInductor);
  absl::StatusOr<StandaloneTarget> none = ParseStandaloneTarget("");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::StrContains(none.status().message(), "builtin")) << none.status();
}

StandaloneRequest MeanRequest() {
  StandaloneRequest r;
  r.graph = ParseOrDie(R"(
graph @g(%x: f32[4], %k: i32[4]) {
  %s = reduce_mean(%x) {axes=[0], keepdim=false} : f32[]
  %t = add(%k, %k) : i32[4]
  return %s, %t
})");
  r.inputs = {F32({4}, {0.1f, 0.2f, 0.3f, 0.7f}),
              HostTensor(compiler::TensorType{DType::kI32, {4}})};
  r.options.backend = "onnxruntime";
  r.options.backend_options = {"graph_optimization_level:basic",
                               "inject_bug_TESTING_ONLY:accuracy"};
  r.recorded = "accuracy: output %s";
  r.write_onnx = [](const std::string& path) {
    std::ofstream(path) << "model";
    return absl::OkStatus();
  };
  return r;
}

TEST(WriteStandaloneTest, OnnxRuntimeFilesAndTheRule) {
  const fs::path dir = TempDir("ort_standalone");
  absl::StatusOr<std::vector<std::string>> files = WriteStandalone(MeanRequest(), dir.string());
  ASSERT_TRUE(files.ok()) << files.status();
  for (const char* f : {"model.onnx", "input_0.npy", "input_1.npy", "reference_0.npy",
                        "expected_0.npy", "expected_1.npy", "repro.py", "repro.js",
                        "expected.json", "README.md"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  absl::StatusOr<Json> spec = ParseJson(ReadFile(dir / "expected.json"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(*spec->GetString("target"), "onnxruntime");
  const Json* options = spec->Find("options");
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(*options->GetString("graph_optimization_level"), "basic");
  EXPECT_FALSE(options->Contains("inject_bug_TESTING_ONLY"));  // planted bugs stay out
  const Json& out0 = spec->Find("outputs")->array()[0];
  EXPECT_TRUE(*out0.GetBool("float"));
  EXPECT_EQ(*out0.GetDouble("tol"), 1e-4);
  EXPECT_EQ(*out0.GetDouble("m"), 3);  // under 1,000 elements
  // mean(0.1, 0.2, 0.3, 0.7) in f32 vs f64: a small, nonzero rmse.
  const double rmse = *out0.GetDouble("rmse_reference");
  EXPECT_GT(rmse, 0);
  EXPECT_LT(rmse, 1e-6);
  EXPECT_DOUBLE_EQ(*out0.GetDouble("bound"), 3 * rmse + 1e-5);
  EXPECT_FALSE(*spec->Find("outputs")->array()[1].GetBool("float"));
  // The fp64 values are f64 .npy, the own-dtype reference f32.
  EXPECT_TRUE(absl::StrContains(ReadFile(dir / "expected_0.npy"), "'<f8'"));
  EXPECT_TRUE(absl::StrContains(ReadFile(dir / "reference_0.npy"), "'<f4'"));
  EXPECT_TRUE(absl::StrContains(ReadFile(dir / "expected_1.npy"), "'<i4'"));
  const std::string py = ReadFile(dir / "repro.py");
  EXPECT_TRUE(absl::StrContains(py, "import onnxruntime")) << py.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(py, "def judge(")) << py.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(ReadFile(dir / "README.md"), "graph_optimization_level=basic"));
  // A second write into the same directory is refused.
  EXPECT_FALSE(WriteStandalone(MeanRequest(), dir.string()).ok());
}

// Inductor's planted bugs are PyTorch's own config keys: the torch repro.py
// keeps them (a captured torch.compile bug planted that way reproduces).
TEST(WriteStandaloneTest, InductorKeepsItsOwnPlantedBugSetting) {
  StandaloneRequest r = MeanRequest();
  r.options.backend = "torch_inductor";
  r.options.backend_options = {"triton.inject_relu_bug_TESTING_ONLY:accuracy",
                               "inject_bug_TESTING_ONLY:accuracy"};
  const fs::path dir = TempDir("torch_standalone_planted");
  absl::StatusOr<std::vector<std::string>> files = WriteStandalone(r, dir.string());
  ASSERT_TRUE(files.ok()) << files.status();
  absl::StatusOr<Json> spec = ParseJson(ReadFile(dir / "expected.json"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  const Json* options = spec->Find("options");
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(*options->GetString("triton.inject_relu_bug_TESTING_ONLY"), "accuracy");
  EXPECT_FALSE(options->Contains("inject_bug_TESTING_ONLY"));  // not a torch config key
}

TEST(WriteStandaloneTest, UndefinedBehaviorInTheReferenceIsRefused) {
  StandaloneRequest r = MeanRequest();
  r.graph = ParseOrDie(R"(
graph @g(%a: i32[2], %b: i32[2]) {
  %q = div(%a, %b) : i32[2]
  return %q
})");
  r.inputs = {HostTensor(compiler::TensorType{DType::kI32, {2}}),
              HostTensor(compiler::TensorType{DType::kI32, {2}})};
  const fs::path dir = TempDir("ub_standalone");
  absl::StatusOr<std::vector<std::string>> files = WriteStandalone(r, dir.string());
  ASSERT_FALSE(files.ok());
  EXPECT_FALSE(fs::exists(dir));  // nothing left behind
  EXPECT_TRUE(absl::StrContains(files.status().message(), "undefined behavior"))
      << files.status();
}

TEST(GraphAsTorchTest, OneLinePerNodeWithReprokitSemantics) {
  compiler::Graph g = ParseOrDie(R"(
graph @g(%x: f32[2,3], %i: i32[2]) {
  %c = constant() {value=dense<f32[3]>[1.0, 2.0, 3.0]} : f32[3]
  %a = add(%x, %c) : f32[2,3]
  %r = relu(%a) : f32[2,3]
  %m = clip(%r) {max=1.0} : f32[2,3]
  %s = reduce_sum(%m) {axes=[1], keepdim=true} : f32[2,1]
  %t = transpose(%x) {perm=[1, 0]} : f32[3,2]
  %q = div(%i, %i) : i32[2]
  %k = cast(%x) {dtype=i32} : i32[2,3]
  return %s, %t, %q, %k
})");
  absl::StatusOr<TorchSource> src = GraphAsTorch(g);
  ASSERT_TRUE(src.ok()) << src.status();
  const std::string& py = src->make_graph;
  EXPECT_TRUE(absl::StrContains(py, "def graph(v0_x, v1_i):")) << py;
  EXPECT_TRUE(absl::StrContains(py, "v2_c = consts[2]")) << py;
  EXPECT_TRUE(absl::StrContains(py, "torch.add(v0_x, v2_c)")) << py;
  EXPECT_TRUE(absl::StrContains(py, "rk_clip(v4_r, None, 1)")) << py;
  EXPECT_TRUE(absl::StrContains(py, "rk_reduce(v5_m, \"sum\", [1], True)")) << py;
  EXPECT_TRUE(absl::StrContains(py, "torch.permute(v0_x, [1, 0])")) << py;
  EXPECT_TRUE(absl::StrContains(py, "rk_int_div(v1_i, v1_i)")) << py;
  EXPECT_TRUE(absl::StrContains(py, "rk_cast(v0_x, DTYPES[\"i32\"], True)")) << py;
  EXPECT_TRUE(absl::StrContains(py, "return (v6_s, v7_t, v8_q, v9_k)")) << py;
  ASSERT_EQ(src->constants.size(), 1u);
  EXPECT_EQ(src->constants[0].first, 2);
}

}  // namespace
}  // namespace rk::repro
