// The jax form of standalone reproducers: the graph as jax source, one line
// per node with the jax_xla adapter's semantics (jax_source.h), and the files
// `WriteStandalone` writes for the jax_xla target, whose repro.py must be valid
// Python (parsed by python3's ast where python3 is installed).
#include "repro/standalone/jax_source.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "repro/standalone/standalone.h"

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

constexpr char kManyOps[] = R"(
graph @g(%x: f32[2,3], %i: i32[2], %k: i64[4]) {
  %c = constant() {value=dense<f32[3]>[1.0, 2.0, 3.0]} : f32[3]
  %a = add(%x, %c) : f32[2,3]
  %r = relu(%a) : f32[2,3]
  %m = clip(%r) {max=1.0} : f32[2,3]
  %s = reduce_sum(%m) {axes=[1], keepdim=true} : f32[2,1]
  %t = transpose(%x) {perm=[1, 0]} : f32[3,2]
  %q = div(%i, %i) : i32[2]
  %fm = mod(%x, %x) : f32[2,3]
  %im = floordiv(%i, %i) : i32[2]
  %ic = cast(%x) {dtype=i32} : i32[2,3]
  %rd = round(%x) : f32[2,3]
  %f = full() {dtype=i32, shape=[2], value=3000000000.0} : i32[2]
  %g = gather(%c, %k) {axis=0} : f32[4]
  %cs = cumsum(%x) {axis=1, exclusive=true, reverse=true} : f32[2,3]
  %mx = reduce_max(%x) {axes=[0], keepdim=false} : f32[3]
  %am = argmax(%x) {axis=1, keepdim=false} : i64[2]
  %sm = softmax(%x) {axis=1} : f32[2,3]
  %p = pad(%x) {pads=[0, 1, 1, 0], value=-inf} : f32[3,4]
  %cc = concat(%x, %x) {axis=0} : f32[4,3]
  %gb = gt(%x, %x) : bool[2,3]
  return %s, %t, %q, %fm, %im, %ic, %rd, %f, %g, %cs, %mx, %am, %sm, %p, %cc
})";

TEST(GraphAsJaxTest, OneLinePerNodeWithReprokitSemantics) {
  compiler::Graph g = ParseOrDie(kManyOps);
  absl::StatusOr<JaxSource> src = GraphAsJax(g);
  ASSERT_TRUE(src.ok()) << src.status();
  const std::string& py = src->make_graph;
  for (const char* line : {
           "def make_graph(consts, planted):",
           "def graph(v0_x, v1_i, v2_k):",
           "v3_c = consts[3]",
           "v4_a = jnp.add(v0_x, v3_c)  # %a = add",
           "v5_r = rk_relu(v4_a, planted)  # %r = relu",
           "rk_clip(v5_r, None, 1)",
           "rk_reduce(v6_m, \"sum\", [1], True)",
           "jnp.transpose(v0_x, [1, 0])",
           "rk_int_div(v1_i, v1_i)",
           "rk_float_mod(v0_x, v0_x)",
           "rk_int_floordiv(v1_i, v1_i)",
           "rk_cast(v0_x, \"f32\", \"i32\")",
           "rk_round(v0_x)",
           // 3e9 as an i32 wraps, as `cast` converts it.
           "jnp.full([2], -1294967296, DTYPES[\"i32\"])",
           "rk_gather(v3_c, v2_k, 0)",
           "rk_cumsum(v0_x, 1, True, True)",
           "rk_reduce(v0_x, \"max\", [0], False)",
           "rk_argmax(v0_x, 1, False)",
           "jax.nn.softmax(v0_x, axis=1)",
           "rk_pad(v0_x, [0, 1, 1, 0], -math.inf)",
           "jnp.concatenate([v0_x, v0_x], axis=0)",
           "jnp.greater(v0_x, v0_x)",
       }) {
    EXPECT_TRUE(absl::StrContains(py, line)) << line << "\n" << py;
  }
  EXPECT_TRUE(absl::StrContains(py, "return (v7_s, v8_t, v9_q,")) << py;
  ASSERT_EQ(src->constants.size(), 1u);
  EXPECT_EQ(src->constants[0].first, 3);
}

TEST(GraphAsJaxTest, WindowsAndNorms) {
  compiler::Graph g = ParseOrDie(R"(
graph @g(%x: f32[1,2,4,4], %w: f32[2,1,3,3], %v: f32[2,4], %s: f32[4]) {
  %c = conv2d(%x, %w) {dilations=[1,1], groups=2, pads=[1,1,1,1], strides=[1,1]} : f32[1,2,4,4]
  %p = max_pool2d(%c) {dilations=[1,1], kernel=[2,2], pads=[0,0,0,0], strides=[2,2]} : f32[1,2,2,2]
  %a = avg_pool2d(%c) {count_include_pad=false, kernel=[2,2], pads=[1,1,1,1], strides=[2,2]} : f32[1,2,3,3]
  %l = layer_norm(%v, %s, %s) {axis=1, eps=1e-05} : f32[2,4]
  %r = rms_norm(%v, %s) {axis=1, eps=1e-06} : f32[2,4]
  return %p, %a, %l, %r
})");
  absl::StatusOr<JaxSource> src = GraphAsJax(g);
  ASSERT_TRUE(src.ok()) << src.status();
  const std::string& py = src->make_graph;
  for (const char* line : {
           "rk_conv2d(v0_x, v1_w, [1, 1], [1, 1, 1, 1], [1, 1], 2)",
           "rk_max_pool2d(v4_c, [2, 2], [2, 2], [0, 0, 0, 0], [1, 1])",
           "rk_avg_pool2d(v4_c, [2, 2], [2, 2], [1, 1, 1, 1], False)",
           "rk_layer_norm(v2_v, v3_s, v3_s, 1.0000000000000001e-05)",
           "rk_rms_norm(v2_v, v3_s, 9.9999999999999995e-07)",
       }) {
    EXPECT_TRUE(absl::StrContains(py, line)) << line << "\n" << py;
  }
}

StandaloneRequest JaxRequest() {
  StandaloneRequest r;
  r.target = StandaloneTarget::kXla;
  r.graph = ParseOrDie(R"(
graph @g(%x: f32[4], %k: i32[4]) {
  %c = constant() {value=dense<f32[4]>[1.0, -2.0, 3.0, -4.0]} : f32[4]
  %a = add(%x, %c) : f32[4]
  %r = relu(%a) : f32[4]
  %t = add(%k, %k) : i32[4]
  return %r, %t
})");
  HostTensor x(compiler::TensorType{DType::kF32, {4}});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i);
  r.inputs = {x, HostTensor(compiler::TensorType{DType::kI32, {4}})};
  r.options.backend = "jax_xla";
  r.options.device = "cuda";
  r.options.backend_options = {"inject_relu_bug_TESTING_ONLY:accuracy", "jit:true",
                               "xla_backend_optimization_level:0"};
  r.recorded = "accuracy: output %r";
  return r;
}

TEST(WriteStandaloneJaxTest, FilesSettingsAndThePlantedFaultCarried) {
  const fs::path dir = TempDir("jax_standalone");
  absl::StatusOr<std::vector<std::string>> files = WriteStandalone(JaxRequest(), dir.string());
  ASSERT_TRUE(files.ok()) << files.status();
  for (const char* f : {"input_0.npy", "input_1.npy", "reference_0.npy", "expected_0.npy",
                        "const_2.npy", "repro.py", "expected.json", "README.md"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir / "model.onnx"));
  absl::StatusOr<Json> spec = ParseJson(ReadFile(dir / "expected.json"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(*spec->GetString("target"), "jax_xla");
  EXPECT_EQ(*spec->GetString("device"), "cuda");
  const Json* options = spec->Find("options");
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(*options->GetString("jit"), "true");
  EXPECT_EQ(*options->GetString("xla_backend_optimization_level"), "0");
  // The adapter's planted fault is carried: repro.py applies it itself.
  EXPECT_EQ(*options->GetString("inject_relu_bug_TESTING_ONLY"), "accuracy");
  const Json* constants = spec->Find("constants");
  ASSERT_NE(constants, nullptr);
  EXPECT_EQ(*constants->Find("2")->GetString("file"), "const_2.npy");
  const std::string py = ReadFile(dir / "repro.py");
  for (const char* part : {"import jax", "jax_enable_x64", "def judge(",
                           "def make_graph(consts, planted):", "v4_r = rk_relu(v3_a, planted)",
                           "jax.jit(fn).lower(*inputs)", "compiler_options=compiler_options",
                           "PLANTED (TESTING ONLY)", "sys.exit(main())"}) {
    EXPECT_TRUE(absl::StrContains(py, part)) << part;
  }
  EXPECT_TRUE(absl::StrContains(ReadFile(dir / "README.md"), "jax.jit (XLA) on cuda"));
}

TEST(WriteStandaloneJaxTest, ReproPyIsValidPython) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path dir = TempDir("jax_standalone_ast");
  ASSERT_TRUE(WriteStandalone(JaxRequest(), dir.string()).ok());
  const std::string command = absl::StrCat(
      "python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' ",
      (dir / "repro.py").string());
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  // The many-op graph too: every form the emitter writes parses.
  absl::StatusOr<JaxSource> src = GraphAsJax(ParseOrDie(kManyOps));
  ASSERT_TRUE(src.ok()) << src.status();
  const fs::path many = dir / "many.py";
  std::ofstream(many) << src->make_graph;
  EXPECT_EQ(std::system(absl::StrCat(
                "python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' ",
                many.string()).c_str()),
            0);
}

// A jax repro.py of another backend's bundle (--target jax_xla) takes none of
// its options: they are not jax's.
TEST(WriteStandaloneJaxTest, OtherBackendsOptionsStayOut) {
  StandaloneRequest r = JaxRequest();
  r.options.backend = "onnxruntime";
  r.options.backend_options = {"graph_optimization_level:basic"};
  const fs::path dir = TempDir("jax_standalone_ort");
  ASSERT_TRUE(WriteStandalone(r, dir.string()).ok());
  absl::StatusOr<Json> spec = ParseJson(ReadFile(dir / "expected.json"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->Find("options")->Contains("graph_optimization_level"));
}

TEST(ParseStandaloneTargetJaxTest, NamesAndPaths) {
  EXPECT_EQ(*ParseStandaloneTarget("jax_xla"), StandaloneTarget::kXla);
  EXPECT_EQ(*ParseStandaloneTarget("/x/backends/jax_xla/serve"), StandaloneTarget::kXla);
  absl::StatusOr<StandaloneTarget> none = ParseStandaloneTarget("tvm");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::StrContains(none.status().message(), "jax_xla")) << none.status();
}

}  // namespace
}  // namespace rk::repro
