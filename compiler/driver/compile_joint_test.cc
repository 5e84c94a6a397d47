// Joint graphs (compiler/autodiff: forward outputs and gradients) compile and
// run on the built-in CPU backend and agree with the fp64 reference: the
// examples with every float input marked, and one small f32 graph per op
// family whose gradient emits the less common op forms (strided and padded
// slices, gathers with constant indices, convolutions with dilation and
// stride swapped, -inf padding, reverse scans).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/autodiff/joint_graph.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::filesystem::path ExamplesDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "examples";
  return std::filesystem::path(srcdir) / workspace / "examples";
}

// max |got - want| over max |want| (at least 0.01): gradients sum many terms,
// so an error is judged against the tensor's scale rather than element by
// element, and a gradient that cancels to about zero in exact arithmetic
// (a bias before a layer norm) is judged against 0.01, the scale of the
// terms that cancel (inputs and seeds are uniform in [-1, 1)).
double NormalizedError(const HostTensor& got, const HostTensor& want) {
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = got.GetDouble(i), b = want.GetDouble(i);
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    worst = std::max(worst, std::fabs(a - b));
    scale = std::max(scale, std::fabs(b));
  }
  return worst / std::max(scale, 1e-2);
}

// Compiles the joint graph of `forward` (all float inputs marked) for `device`,
// runs it on seeded inputs and compares every output with the fp64
// reference; "" or the first output beyond `tolerance` ("unavailable" for a
// device this machine does not have).
std::string CheckJoint(const Graph& forward, double tolerance, const std::string& device) {
  absl::StatusOr<autodiff::JointGraph> joint =
      autodiff::BuildJointGraph(forward, autodiff::GradSpecAllFloat(forward));
  if (!joint.ok()) return joint.status().ToString();
  absl::StatusOr<std::vector<HostTensor>> inputs =
      autodiff::JointInputs(*joint, SeededInputs(forward, 3), 3);
  if (!inputs.ok()) return inputs.status().ToString();
  CompileOptions options;
  options.device = device;
  absl::StatusOr<Executable> exe = Compile(joint->graph, options);
  if (exe.status().code() == absl::StatusCode::kUnavailable) return "unavailable";
  if (!exe.ok()) return absl::StrCat("compile: ", exe.status().ToString());
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run(*inputs);
  if (!got.ok()) return absl::StrCat("run: ", got.status().ToString());
  EvalOptions fp64;
  fp64.fp64 = true;
  absl::StatusOr<EvalResult> want = Evaluate(joint->graph, *inputs, fp64);
  if (!want.ok()) return want.status().ToString();
  for (size_t k = 0; k < got->size(); ++k) {
    const double err = NormalizedError((*got)[k], want->outputs[k]);
    if (!(err <= tolerance)) {
      return absl::StrCat("output ", k, ": normalized error ", err, " > ", tolerance, "\n got ",
                          (*got)[k].Summary(), "\nwant ", want->outputs[k].Summary());
    }
  }
  return "";
}

TEST(CompileJointTest, ExamplesWithEveryFloatInputMarked) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ExamplesDir())) {
    if (entry.path().extension() != ".rk") continue;
    SCOPED_TRACE(entry.path().filename().string());
    absl::StatusOr<Graph> forward = ParseFile(entry.path().string());
    ASSERT_TRUE(forward.ok()) << forward.status();
    // bf16 values carry 8 bits; everything else here is f32.
    const bool bf16 = entry.path().filename() == "mixed_bf16.rk";
    EXPECT_EQ(CheckJoint(*forward, bf16 ? 3e-2 : 1e-4, "cpu"), "");
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

const char* const kGradientOpForms[] = {
      R"(graph @conv(%x: f32[2,4,7,6], %w: f32[6,2,3,2]) {
  %y = conv2d(%x, %w) {dilations=[2,1], groups=2, pads=[1,0,1,1], strides=[2,2]} : f32[2,6,3,3]
  return %y
})",
      R"(graph @pools(%x: f32[1,2,6,5]) {
  %m = max_pool2d(%x) {dilations=[1,1], kernel=[3,2], pads=[1,1,1,0], strides=[2,1]} : f32[1,2,3,5]
  %a = avg_pool2d(%x) {count_include_pad=false, kernel=[2,2], pads=[1,0,0,1], strides=[1,2]} : f32[1,2,6,3]
  return %m, %a
})",
      R"(graph @gather(%d: f32[5,3], %e: f32[4,3]) {
  %i = constant() {value=dense<i64[2,2]>[0, -1, 4, 0]} : i64[2,2]
  %g = gather(%d, %i) {axis=0} : f32[2,2,3]
  %t = transpose(%e) {perm=[1,0]} : f32[3,4]
  %s = slice(%t) {limit=[3,4], start=[1,0], stride=[1,3]} : f32[2,2]
  %c = cumsum(%s) {axis=1, exclusive=true, reverse=false} : f32[2,2]
  %p = pad(%c) {pads=[1,0,0,2], value=0.0} : f32[3,4]
  return %g, %p
})",
      R"(graph @norms(%x: f32[4,8], %g: f32[8], %b: f32[8]) {
  %l = layer_norm(%x, %g, %b) {axis=-1, eps=1e-05} : f32[4,8]
  %r = rms_norm(%x, %g) {axis=-1, eps=1e-05} : f32[4,8]
  %s = log_softmax(%l) {axis=0} : f32[4,8]
  %m = reduce_max(%r) {axes=[1], keepdim=false} : f32[4]
  %q = maximum(%s, %r) : f32[4,8]
  return %q, %m
})",
};

TEST(CompileJointTest, GradientOpFormsCompileOnCpu) {
  for (const char* text : kGradientOpForms) {
    absl::StatusOr<Graph> forward = Parse(text);
    EXPECT_TRUE(forward.ok()) << forward.status();
    if (!forward.ok()) continue;
    SCOPED_TRACE(forward->name());
    EXPECT_EQ(CheckJoint(*forward, 1e-4, "cpu"), "");
  }
}

// The same on the CUDA backend where this machine has a GPU (skipped
// otherwise); the examples too, with the GPU's wider f32 budget for exp/tanh.
TEST(CompileJointTest, JointGraphsCompileOnCuda) {
  std::vector<Graph> graphs;
  for (const char* text : kGradientOpForms) graphs.push_back(*Parse(text));
  for (const auto& entry : std::filesystem::directory_iterator(ExamplesDir())) {
    if (entry.path().extension() == ".rk" && entry.path().filename() != "mixed_bf16.rk") {
      graphs.push_back(*ParseFile(entry.path().string()));
    }
  }
  for (const Graph& forward : graphs) {
    SCOPED_TRACE(forward.name());
    const std::string result = CheckJoint(forward, 1e-4, "cuda");
    if (result == "unavailable") GTEST_SKIP() << "no usable GPU";
    EXPECT_EQ(result, "");
  }
}

// A CUDA compile waits for the PTX assembler's background preparation on
// every way out: a process that compiled for CUDA (and failed, with no GPU)
// and then exited at once used to end in "double free or corruption" when
// that thread was still running as the static destructors ran (this test
// binary, on the 2-core CI machine). Each child compiles and exits at once.
// The same for the context's warm-up thread and the assembly pipeline's
// threads (compiler/cuda/runtime/device_warm_up.h, assembly_pipeline.h):
// every other child's compile fails after they started (an arch LLVM cannot
// print PTX for), the others go as far as the machine allows.
TEST(CompileCudaExitTest, AFinishedCudaCompileLeavesNothingRunningAtExit) {
  const Graph graph = *Parse(
      "graph @g(%x: f32[8]) {\n  %y = exp(%x) : f32[8]\n  return %y\n}\n");
  CompileOptions options;
  options.device = "cuda";
  CompileOptions failing = options;
  failing.cuda_arch = "sm_5";
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      absl::StatusOr<Executable> compiled = Compile(graph, i % 2 == 0 ? options : failing);
      // The failing compile fails where meant: in PTX generation, naming the arch.
      const bool failed_as_meant =
          !compiled.ok() && compiled.status().message().find("sm_5") != std::string::npos;
      std::exit(i % 2 == 1 && !failed_as_meant ? 3 : 0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << i << " ended with status " << status;
  }
}

}  // namespace
}  // namespace rk::compiler
