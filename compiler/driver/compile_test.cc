// Compile + Run against the reference interpreter on small graphs, plus the
// API surface (timings, logs, errors).
#include "compiler/driver/compile.h"

#include <cmath>
#include <memory>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (NodeId id : graph.inputs()) {
    inputs.push_back(HostTensor::Random(graph.type(id), seed + id.value));
  }
  return inputs;
}

double MaxRelError(const HostTensor& got, const HostTensor& want, double atol) {
  double worst = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = got.GetDouble(i), b = want.GetDouble(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    worst = std::max(worst, std::fabs(a - b) / (std::fabs(b) + atol));
  }
  return worst;
}

void ExpectMatches(const std::string& text, const CompileOptions& options = {}, double rtol = 1e-5) {
  absl::StatusOr<Graph> graph = Parse(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 7);
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<EvalResult> want = Evaluate(*graph, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(got->size(), want->outputs.size());
  for (size_t i = 0; i < got->size(); ++i) {
    ASSERT_EQ((*got)[i].type(), want->outputs[i].type());
    EXPECT_LE(MaxRelError((*got)[i], want->outputs[i], 1e-6), rtol)
        << "output " << i << "\n got " << (*got)[i].Summary() << "\nwant "
        << want->outputs[i].Summary();
  }
}

TEST(CompileTest, Elementwise) {
  ExpectMatches(R"(graph @g(%x: f32[4,33], %y: f32[33]) {
    %a = add(%x, %y) : f32[4,33]
    %e = exp(%a) : f32[4,33]
    %r = relu(%e) : f32[4,33]
    return %r
  })");
}

TEST(CompileTest, Softmax) {
  ExpectMatches(R"(graph @g(%x: f32[8,128]) {
    %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
    %d = sub(%x, %m) : f32[8,128]
    %e = exp(%d) : f32[8,128]
    %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
    %y = div(%e, %s) : f32[8,128]
    return %y
  })");
}

TEST(CompileTest, Matmul) {
  ExpectMatches(R"(graph @g(%a: f32[2,5,7], %b: f32[7,3]) {
    %c = matmul(%a, %b) : f32[2,5,3]
    return %c
  })");
}

TEST(CompileTest, DumpsAndTimings) {
  absl::StatusOr<Graph> graph = Parse(R"(graph @g(%x: f32[4,8]) {
    %s = reduce_sum(%x) {axes=[1], keepdim=true} : f32[4,1]
    %d = div(%x, %s) : f32[4,8]
    return %d
  })");
  ASSERT_TRUE(graph.ok());
  CompileOptions options;
  options.dump_dir = ::testing::TempDir();
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (const char* name : {"fusion.txt", "kernels.txt", "llvm_before_opt.ll", "llvm_after_opt.ll",
                           "kernels.s", "timings.json"}) {
    EXPECT_TRUE(std::ifstream(options.dump_dir + "/" + name).good()) << name;
  }
  EXPECT_EQ(exe->fusion_groups().size(), 1u);
  EXPECT_GT(exe->requested_applications(), 0);
  EXPECT_GT(exe->timings().total_ms(), 0);
}

TEST(CompileTest, CudaWithoutAGpuIsUnavailable) {
  absl::StatusOr<Graph> graph = Parse(R"(graph @g(%x: f32[4]) {
    %r = relu(%x) : f32[4]
    return %r
  })");
  ASSERT_TRUE(graph.ok());
  CompileOptions options;
  options.device = "cuda";
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  // With a usable GPU the compile succeeds; without one it says why.
  if (!exe.ok()) {
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnavailable) << exe.status();
  }
}

TEST(CompileTest, FindBackendNamesTheBuiltinOnes) {
  for (const char* device : {"cpu", "cuda"}) {
    absl::StatusOr<const Backend*> backend = FindBackend(device);
    ASSERT_TRUE(backend.ok()) << backend.status();
    EXPECT_EQ((*backend)->name(), device);
  }
  absl::StatusOr<const Backend*> unknown = FindBackend("tpu");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("'tpu' (known: cpu, cuda)"), std::string::npos)
      << unknown.status();
}

TEST(CompileTest, BadOptionsAreReportedBeforeAnUnknownDevice) {
  absl::StatusOr<Graph> graph = Parse("graph @g(%x: f32[4]) {\n  return %x\n}");
  ASSERT_TRUE(graph.ok());
  CompileOptions options;
  options.device = "tpu";
  options.faults = {"relu:no_such_kind"};
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(exe.status().message().find("unknown device"), std::string::npos) << exe.status();
}

TEST(CompileTest, CpuExecutablesHaveNoCudaProgram) {
  absl::StatusOr<Graph> graph = Parse(R"(graph @g(%x: f32[4]) {
    %r = relu(%x) : f32[4]
    return %r
  })");
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(cuda::AsCudaProgram(*exe), nullptr);
}

// A backend outside the compiler: the reference interpreter behind the
// Backend interface. Shows the seam needs nothing but a graph, options and
// an Executable, and that Executable::Run checks nothing the program does not.
class InterpreterProgram final : public CompiledProgram {
 public:
  explicit InterpreterProgram(Graph graph) : graph_(std::move(graph)) {}
  absl::StatusOr<std::vector<HostTensor>> Run(
      absl::Span<const HostTensor> inputs) const override {
    absl::StatusOr<EvalResult> result = Evaluate(graph_, inputs);
    if (!result.ok()) return result.status();
    return std::move(result->outputs);
  }

 private:
  Graph graph_;
};

class InterpreterBackend final : public Backend {
 public:
  std::string_view name() const override { return "interpreter"; }
  absl::StatusOr<Executable> Compile(const Graph& graph,
                                     const CompileOptions&) const override {
    std::vector<TensorType> input_types;
    for (NodeId id : graph.inputs()) input_types.push_back(graph.type(id));
    CompileReport report;
    report.optimized_graph = graph;
    return Executable(std::move(input_types), std::make_unique<InterpreterProgram>(graph),
                      std::move(report));
  }
};

TEST(CompileTest, AnotherBackendPlugsInThroughTheInterface) {
  absl::StatusOr<Graph> graph = Parse(R"(graph @g(%x: f32[8,16]) {
    %e = exp(%x) : f32[8,16]
    %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
    %y = div(%e, %s) : f32[8,16]
    return %y
  })");
  ASSERT_TRUE(graph.ok());
  const InterpreterBackend other;
  const Backend& backend = other;
  absl::StatusOr<Executable> theirs = backend.Compile(*graph, CompileOptions{});
  absl::StatusOr<Executable> ours = Compile(*graph, CompileOptions{});
  ASSERT_TRUE(theirs.ok() && ours.ok());
  EXPECT_TRUE(theirs->pass_log().empty());
  EXPECT_EQ(theirs->num_kernels(), 0);
  const std::vector<HostTensor> inputs = SeededInputs(*graph, 3);
  absl::StatusOr<std::vector<HostTensor>> a = theirs->Run(inputs);
  absl::StatusOr<std::vector<HostTensor>> b = ours->Run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(MaxRelError((*b)[0], (*a)[0], 1e-6), 1e-5);
  // Executable::Run checks the inputs for every backend, this one included.
  for (const Executable* exe : {&*theirs, &*ours}) {
    EXPECT_EQ(exe->Run({}).status().code(), absl::StatusCode::kInvalidArgument);
    const HostTensor wrong = HostTensor::Random(TensorType{DType::kF32, Shape{8, 15}}, 1);
    absl::StatusOr<std::vector<HostTensor>> r = exe->Run(absl::MakeConstSpan(&wrong, 1));
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("input 0: expected f32[8,16]"), std::string::npos)
        << r.status();
  }
}

}  // namespace
}  // namespace rk::compiler
