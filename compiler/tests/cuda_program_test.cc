// device=cuda end to end: compiled GPU code judged against the reference
// interpreter (every op family, f32/f16/bf16, row reductions short and long,
// softmax, layer_norm, tiled matmul, cumsum, pad) with the error-budget rule of
// gpu_accuracy.h (allclose to the native reference at the dtype's tolerance,
// else no farther from fp64 than the native reference is, times 2 or 3),
// planted faults, and the Unavailable path. GPU tests skip with the driver's
// reason where there is no GPU.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "compiler/tests/cuda_test_util.h"
#include "compiler/tests/gpu_accuracy.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::string Mismatch(const std::string& text, const std::string& fault) {
  CompileOptions options = Cuda();
  options.faults = {fault};
  absl::StatusOr<std::string> m = cuda::CompareWithErrorBudget(text, options, 1e-5);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : "error";
}

constexpr char kSoftmax[] = R"(graph @g(%x: f32[8,640]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
  %d = sub(%x, %m) : f32[8,640]
  %e = exp(%d) : f32[8,640]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
  %y = div(%e, %s) : f32[8,640]
  return %y
})";
constexpr char kWithRelu[] = R"(graph @g(%x: f32[4,50]) {
  %e = exp(%x) : f32[4,50]
  %r = relu(%x) : f32[4,50]
  %a = add(%e, %r) : f32[4,50]
  return %a
})";

TEST(CudaUnavailableTest, CompileSaysWhyWithoutAGpu) {
  absl::StatusOr<Graph> graph = Parse(kWithRelu);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, Cuda());
  absl::StatusOr<cuda::CudaDevice*> device = cuda::CudaDevice::Get();
  if (device.ok()) {
    EXPECT_TRUE(exe.ok()) << exe.status();
    return;
  }
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnavailable);
  const std::string message(exe.status().message());
  EXPECT_TRUE(absl::StrContains(message, "no CUDA driver (libcuda.so.1 not found)") ||
              absl::StrContains(message, "no GPU"))
      << message;
}

TEST(CudaUnavailableTest, DumpsPtxEvenWithoutAGpu) {
  const std::string dir = ::testing::TempDir() + "/cuda_dump";
  std::filesystem::create_directories(dir);
  absl::StatusOr<Graph> graph = Parse(kSoftmax);
  ASSERT_TRUE(graph.ok());
  CompileOptions options = Cuda();
  options.dump_dir = dir;
  (void)Compile(*graph, options);
  for (const char* name : {"fusion.txt", "kernels.txt", "llvm_after_opt.ll", "kernels.ptx",
                           "launches.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  std::ifstream ptx(dir + "/kernels.ptx");
  std::string text((std::istreambuf_iterator<char>(ptx)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(text, ".entry rk_k0"));
  EXPECT_TRUE(absl::StrContains(text, "shfl.sync.bfly"));
}

TEST(CudaDiffTest, UnaryOpsEveryFloatType) {
  REQUIRE_GPU();
  const char* const ops[] = {"neg", "abs",  "exp",     "log", "sqrt", "rsqrt", "reciprocal",
                             "tanh", "sigmoid", "relu", "erf", "sin",  "cos",   "gelu"};
  for (const char* dtype : {"f32", "f64", "f16", "bf16"}) {
    for (const char* op : ops) {
      const std::string t = absl::StrCat(dtype, "[3,37]");
      const std::string name(op);
      RandomSpec spec;
      spec.low = name == "log" || name == "sqrt" || name == "rsqrt" ? 0.1 : -3;
      spec.high = 3;
      Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t, "\n return %y\n}"),
            Tolerance(dtype), Cuda(), spec);
    }
  }
}

// Runs `op` on every 16-bit pattern of `dtype` (f16/bf16: NaNs, infinities,
// subnormals included) and compares with the exact result rounded once to
// `dtype`: every element must be that value or a neighbour (one unit in the
// last place), and at most 1% of them a neighbour. Returns "" on a pass.
std::string CheckNearlyCorrectlyRounded(const std::string& op, const std::string& dtype,
                                        const std::string& device) {
  const std::string t = absl::StrCat(dtype, "[65536]");
  absl::StatusOr<Graph> graph =
      Parse(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t, "\n return %y\n}"));
  if (!graph.ok()) return graph.status().ToString();
  CompileOptions options;
  options.device = device;
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  if (!exe.ok()) return exe.status().ToString();
  HostTensor x = HostTensor::Zeros(graph->type(graph->inputs()[0]));
  for (int i = 0; i < 65536; ++i) x.data<uint16_t>()[i] = static_cast<uint16_t>(i);
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run({x});
  if (!got.ok()) return got.status().ToString();
  HostTensor want = HostTensor::Zeros(x.type());
  int64_t neighbours = 0;
  for (int i = 0; i < 65536; ++i) {
    const double v = x.GetDouble(i);
    want.SetDouble(i, op == "exp" ? std::exp(v) : 1 / (1 + std::exp(-v)));
    const uint16_t g = (*got)[0].data<uint16_t>()[i], w = want.data<uint16_t>()[i];
    if (std::isnan(want.GetDouble(i)) && std::isnan((*got)[0].GetDouble(i))) continue;
    if (g == w) continue;
    if (std::abs(int{g} - int{w}) != 1 || (g ^ w) >= 0x8000) {
      return absl::StrCat(op, "(", v, "): got ", (*got)[0].GetDouble(i), " want ",
                          want.GetDouble(i));
    }
    ++neighbours;
  }
  if (neighbours > 655) return absl::StrCat(op, ": ", neighbours, " of 65536 off by one ulp");
  return "";
}

TEST(CudaUnavailableTest, SixteenBitExpAndSigmoidRoundNearlyCorrectlyOnTheCpu) {
  // The check below, on the CPU backend: it runs without a GPU.
  for (const char* dtype : {"bf16", "f16"}) {
    for (const char* op : {"exp", "sigmoid"}) {
      EXPECT_EQ(CheckNearlyCorrectlyRounded(op, dtype, "cpu"), "") << dtype;
    }
  }
}

TEST(CudaDiffTest, SixteenBitExpAndSigmoidRoundNearlyCorrectly) {
  // f16/bf16 exp and sigmoid use ex2.approx / rcp.approx (codegen_options.h):
  // all 65,536 inputs of each type still round to the exact value or next to it.
  REQUIRE_GPU();
  for (const char* dtype : {"bf16", "f16"}) {
    for (const char* op : {"exp", "sigmoid"}) {
      EXPECT_EQ(CheckNearlyCorrectlyRounded(op, dtype, "cuda"), "") << dtype;
    }
  }
}

TEST(CudaDiffTest, BinaryCompareWhereAndCasts) {
  REQUIRE_GPU();
  for (const char* dtype : {"f32", "f16", "bf16", "i32", "i64"}) {
    for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum", "pow"}) {
      const bool is_int = dtype[0] == 'i';
      if (is_int && std::string(op) == "pow") continue;
      RandomSpec spec;
      spec.low = std::string(op) == "pow" ? 0.1 : -3;
      spec.high = 3;
      Check(absl::StrCat("graph @g(%x: ", dtype, "[4,1,19], %y: ", dtype, "[3,1]) {\n %z = ", op,
                         "(%x, %y) : ", dtype, "[4,3,19]\n return %z\n}"),
            is_int ? 0 : Tolerance(dtype), Cuda(), spec);
    }
  }
  Check(R"(graph @g(%a: bool[5,8], %b: bool[8], %x: f32[5,8], %y: f32[]) {
    %c = and(%a, %b) : bool[5,8]
    %n = not(%c) : bool[5,8]
    %l = lt(%x, %y) : bool[5,8]
    %o = or(%n, %l) : bool[5,8]
    %w = where(%o, %x, %y) : f32[5,8]
    return %w, %o
  })",
        0);
  const char* const types[] = {"f16", "bf16", "f32", "f64", "i32", "i64", "bool"};
  for (const char* from : types) {
    for (const char* to : types) {
      if (std::string(from) == to) continue;
      RandomSpec spec;
      spec.low = -40;
      spec.high = 40;
      Check(absl::StrCat("graph @g(%x: ", from, "[3,11]) {\n %y = cast(%x) {dtype=", to, "} : ",
                         to, "[3,11]\n return %y\n}"),
            0, Cuda(), spec);
    }
  }
}

TEST(CudaDiffTest, RoundingScanAndPadOps) {
  REQUIRE_GPU();
  RandomSpec spec;
  spec.low = -5;
  spec.high = 5;
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
    const bool is_int = dtype[0] == 'i';
    const double tol = is_int ? 0 : Tolerance(dtype);
    const std::string t = absl::StrCat(dtype, "[4,3,19]");
    for (const char* op : {"mod", "floordiv"}) {
      Check(absl::StrCat("graph @g(%x: ", dtype, "[4,1,19], %y: ", dtype, "[3,1]) {\n %z = ", op,
                         "(%x, %y) : ", t, "\n return %z\n}"),
            tol, Cuda(), spec);
    }
    Check(absl::StrCat("graph @g(%x: ", t, ") {\n %c = clip(%x) {max=1.5, min=-2.0} : ", t,
                       "\n return %c\n}"),
          0, Cuda(), spec);
    if (!is_int) {
      for (const char* op : {"floor", "ceil", "round"}) {
        Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t,
                           "\n return %y\n}"),
              0, Cuda(), spec);
      }
    }
    // Scans along each axis both ways (one thread a row; 1000 rows of 4).
    for (int axis : {0, 1, 2}) {
      for (const char* flags : {"exclusive=false, reverse=false", "exclusive=true, reverse=true"}) {
        Check(absl::StrCat("graph @g(%x: ", t, ") {\n %c = cumsum(%x) {axis=", axis, ", ", flags,
                           "} : ", t, "\n return %c\n}"),
              tol);
      }
    }
    Check(absl::StrCat("graph @g(%x: ", dtype, "[1000,4]) {\n %c = cumsum(%x) {axis=1, ",
                       "exclusive=false, reverse=true} : ", dtype, "[1000,4]\n return %c\n}"),
          tol);
    Check(absl::StrCat("graph @g(%x: ", t, ") {\n %p = pad(%x) {pads=[1,0,2,0,3,1], ",
                       "value=-2.5} : ", dtype, "[5,6,22]\n %n = neg(%p) : ", dtype,
                       "[5,6,22]\n return %n\n}"),
          0);
  }
}

TEST(CudaDiffTest, LargeFusedElementwiseChain) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    Check(absl::StrCat("graph @g(%x: ", dtype, "[2048,1031], %b: ", dtype, "[1031]) {\n",
                       " %a = add(%x, %b) : ", dtype, "[2048,1031]\n",
                       " %g = gelu(%a) : ", dtype, "[2048,1031]\n",
                       " %m = mul(%g, %x) : ", dtype, "[2048,1031]\n",
                       " %t = tanh(%m) : ", dtype, "[2048,1031]\n return %t\n}"),
          Tolerance(dtype));
  }
}

TEST(CudaDiffTest, ReductionsShortLongAndFull) {
  REQUIRE_GPU();
  for (const char* dtype : {"f32", "f16", "bf16", "i32"}) {
    for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
      if (dtype[0] == 'i' && std::string(op) == "reduce_mean") continue;
      for (int cols : {5, 33, 1000, 5003}) {
        Check(absl::StrCat("graph @g(%x: ", dtype, "[6,", cols, "]) {\n %y = ", op,
                           "(%x) {axes=[1], keepdim=false} : ", dtype, "[6]\n return %y\n}"),
              dtype[0] == 'i' ? 0 : Tolerance(dtype));
      }
      Check(absl::StrCat("graph @g(%x: ", dtype, "[40,33,5]) {\n %y = ", op,
                         "(%x) {axes=[0,2], keepdim=true} : ", dtype, "[1,33,1]\n return %y\n}"),
            dtype[0] == 'i' ? 0 : Tolerance(dtype));
    }
  }
  Check(R"(graph @g(%x: f32[7,3001], %z: f32[300000]) {
    %a = argmax(%x) {axis=1, keepdim=false} : i64[7]
    %b = argmax(%x) {axis=0, keepdim=true} : i64[1,3001]
    %s = reduce_sum(%z) {axes=[0], keepdim=false} : f32[]
    return %a, %b, %s
  })",
        1e-5);
}

TEST(CudaDiffTest, SoftmaxAndLayerNorm) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    for (const char* shape : {"16,67", "64,1024", "3,8192"}) {
      Check(NormalizationGraph(dtype, shape),
            std::string(dtype) == "f32" ? 5e-5 : Tolerance(dtype));
    }
  }
}

// Row groups, vector-wide points and inlined upcasts (row_group.h,
// inline_producers.h, nvptx_kernel.h) on shapes that take each path.
TEST(CudaDiffTest, RowGroupsVectorPointsAndInlinedProducers) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    for (const char* shape : {"96,768", "40,4096", "7,96"}) {
      const std::string t = absl::StrCat(dtype, "[", shape, "]");
      const std::string last = std::string(shape).substr(std::string(shape).find(',') + 1);
      const std::string v = absl::StrCat(dtype, "[", last, "]");
      // Two row groups read the same upcast input.
      Check(absl::StrCat("graph @g(%x: ", t, ", %g: ", v, ", %b: ", v, ") {\n",
                         " %s = softmax(%x) {axis=1} : ", t, "\n",
                         " %n = layer_norm(%x, %g, %b) {axis=1, eps=1e-5} : ", t, "\n",
                         " %a = add(%s, %n) : ", t, "\n",
                         " %e = exp(%a) : ", t, "\n",
                         " return %s, %n, %e\n}"),
            std::string(dtype) == "f32" ? 5e-5 : Tolerance(dtype));
    }
    Check(absl::StrCat("graph @g(%x: ", dtype, "[512,1024], %b: ", dtype, "[1024]) {\n",
                       " %a = add(%x, %b) : ", dtype, "[512,1024]\n",
                       " %g = gelu(%a) : ", dtype, "[512,1024]\n",
                       " %s = sigmoid(%g) : ", dtype, "[512,1024]\n return %s, %a\n}"),
          Tolerance(dtype));
  }
  // A per-row value read across rows keeps its kernels apart, and stays right.
  Check(R"(graph @g(%x: f32[64,64]) {
    %m = reduce_max(%x) {axes=[1], keepdim=false} : f32[64]
    %a = add(%x, %m) : f32[64,64]
    %s = reduce_sum(%a) {axes=[1], keepdim=false} : f32[64]
    return %s
  })",
        1e-5);
}

// Short rows run a warp per row (warp_rows.h): lengths that divide into
// 16-byte vectors a lane and ones that do not (a loop over the lane's
// points), row counts that leave the last block's warps partly idle, every
// float type, and the block form's neighbours just past the length limit.
TEST(CudaWarpRowsTest, NormalizationsOnShortRows) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    for (const char* shape : {"37,32", "37,67", "21,200", "300,96", "45,768", "13,1000", "9,1024",
                              "4099,768", "11,1025"}) {
      SCOPED_TRACE(absl::StrCat(dtype, "[", shape, "]"));
      Check(NormalizationGraph(dtype, shape),
            std::string(dtype) == "f32" ? 5e-5 : Tolerance(dtype));
    }
  }
}

TEST(CudaWarpRowsTest, ReductionsOnShortRows) {
  REQUIRE_GPU();
  for (const char* dtype : {"f32", "f16", "bf16", "i32"}) {
    for (int cols : {32, 40, 67, 96, 333, 768, 1000, 1024}) {
      SCOPED_TRACE(absl::StrCat(dtype, "[19,", cols, "]"));
      const bool is_int = dtype[0] == 'i';
      const std::string x = absl::StrCat(dtype, "[19,", cols, "]");
      const std::string r = absl::StrCat(dtype, "[19]");
      Check(absl::StrCat("graph @g(%x: ", x, ") {\n",
                         " %s = reduce_sum(%x) {axes=[1], keepdim=false} : ", r, "\n",
                         " %m = reduce_max(%x) {axes=[1], keepdim=false} : ", r, "\n",
                         " %n = reduce_min(%x) {axes=[1], keepdim=true} : ", dtype, "[19,1]\n",
                         " %a = argmax(%x) {axis=1, keepdim=false} : i64[19]\n",
                         is_int ? "" : absl::StrCat(" %e = reduce_mean(%x) {axes=[1], keepdim=false} : ", r, "\n"),
                         " return %s, %m, %n, %a", is_int ? "" : ", %e", "\n}"),
            is_int ? 0 : Tolerance(dtype));
    }
  }
}

TEST(CudaWarpRowsTest, ArgmaxKeepsTheFirstMaximumAndNaN) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    for (int cols : {64, 300, 768}) {
      SCOPED_TRACE(absl::StrCat(dtype, " ", cols));
      // Integers in [-20, 20] as floats: the maximum repeats within a row,
      // and the first one must win across lanes too. log of the negative
      // entries is NaN, which counts as the largest (first NaN wins).
      const std::string i = absl::StrCat("i32[29,", cols, "]");
      const std::string f = absl::StrCat(dtype, "[29,", cols, "]");
      Check(absl::StrCat("graph @g(%x: ", i, ") {\n",
                         " %f = cast(%x) {dtype=", dtype, "} : ", f, "\n",
                         " %a = argmax(%f) {axis=1, keepdim=false} : i64[29]\n",
                         " %l = log(%f) : ", f, "\n",
                         " %b = argmax(%l) {axis=1, keepdim=true} : i64[29,1]\n",
                         " %m = reduce_max(%f) {axes=[1], keepdim=false} : ", dtype, "[29]\n",
                         " return %a, %b, %m\n}"),
            0);
    }
  }
}

TEST(CudaWarpRowsTest, ResultsAreDeterministic) {
  REQUIRE_GPU();
  for (const char* dtype : kFloatTypes) {
    SCOPED_TRACE(dtype);
    absl::StatusOr<Graph> graph = Parse(NormalizationGraph(dtype, "37,768"));
    ASSERT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Executable> exe = Compile(*graph, Cuda());
    ASSERT_TRUE(exe.ok()) << exe.status();
    std::vector<HostTensor> inputs = SeededInputs(*graph, 3);
    auto first = exe->Run(inputs);
    ASSERT_TRUE(first.ok()) << first.status();
    for (int run = 0; run < 3; ++run) {
      auto again = exe->Run(inputs);
      ASSERT_TRUE(again.ok()) << again.status();
      for (size_t o = 0; o < first->size(); ++o) {
        EXPECT_TRUE((*first)[o].BitwiseEqual((*again)[o])) << "output " << o;
      }
    }
  }
}

TEST(CudaDiffTest, Matmul) {
  REQUIRE_GPU();
  for (const char* dtype : {"f32", "f16", "bf16", "i32", "f64"}) {
    Check(absl::StrCat("graph @g(%a: ", dtype, "[3,1,9,17], %b: ", dtype, "[4,17,5]) {\n",
                       " %c = matmul(%a, %b) : ", dtype, "[3,4,9,5]\n return %c\n}"),
          dtype[0] == 'i' ? 0 : Tolerance(dtype));
    Check(absl::StrCat("graph @g(%a: ", dtype, "[130,257], %b: ", dtype, "[257,97]) {\n",
                       " %c = matmul(%a, %b) : ", dtype, "[130,97]\n return %c\n}"),
          dtype[0] == 'i' ? 0 : Tolerance(dtype));
  }
  Check(R"(graph @g(%a: f32[9,17], %b: f32[5,17]) {
    %t = transpose(%b) {perm=[1,0]} : f32[17,5]
    %e = exp(%a) : f32[9,17]
    %c = matmul(%e, %t) : f32[9,5]
    %r = relu(%c) : f32[9,5]
    return %r
  })",
        1e-5);
  CompileOptions fast = Cuda();
  fast.fast_math = true;
  Check(R"(graph @g(%a: f32[512,384], %b: f32[384,256]) {
    %c = matmul(%a, %b) : f32[512,256]
    return %c
  })",
        1e-4, fast);
}

TEST(CudaDiffTest, NumericsOptionsAndUnfused) {
  REQUIRE_GPU();
  const std::string text = R"(graph @g(%x: f32[64,131]) {
    %e = exp(%x) : f32[64,131]
    %t = tanh(%e) : f32[64,131]
    %s = reduce_sum(%t) {axes=[1], keepdim=true} : f32[64,1]
    %d = div(%t, %s) : f32[64,131]
    return %d
  })";
  CompileOptions fast = Cuda();
  fast.fast_math = true;
  Check(text, 1e-4, fast);
  CompileOptions low = Cuda();
  low.low_precision = true;
  Check(R"(graph @g(%x: f16[16,40], %y: bf16[40]) {
    %e = exp(%x) : f16[16,40]
    %m = mul(%e, %x) : f16[16,40]
    %c = cast(%y) {dtype=f16} : f16[40]
    %a = add(%m, %c) : f16[16,40]
    return %a
  })",
        2e-3, low);
  CompileOptions unfused = Cuda();
  unfused.opt_level = 0;
  Check(text, 1e-5, unfused);
  Check(R"(graph @g(%x: f32[0,5], %y: f32[5]) {
    %a = add(%x, %y) : f32[0,5]
    %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[5]
    return %a, %s
  })",
        1e-5);
}

TEST(CudaFaultsTest, FaultsFireOnlyWhereTheirOpIs) {
  REQUIRE_GPU();
  EXPECT_NE(Mismatch(kWithRelu, "relu:accuracy"), "");
  EXPECT_EQ(Mismatch(kSoftmax, "relu:accuracy"), "");
  EXPECT_NE(Mismatch(kSoftmax, "reduce_sum:drop_last"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "reduce_sum:drop_last"), "");
  EXPECT_NE(Mismatch(kSoftmax, "fuse:wrong_index"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "fuse:wrong_index"), "");
  EXPECT_EQ(Mismatch(kSoftmax, "relu:runtime_crash"), "");
}

TEST(CudaFaultsTest, NondeterministicVariesAcrossRuns) {
  REQUIRE_GPU();
  absl::StatusOr<Graph> graph = Parse(kWithRelu);
  ASSERT_TRUE(graph.ok());
  CompileOptions options = Cuda();
  options.faults = {"relu:nondeterministic"};
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  auto a = exe->Run(inputs);
  auto b = exe->Run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE((*a)[0].BitwiseEqual((*b)[0]));
}

// Steady-state timing (`reprokit check --repeat`, tools/steady_state.h): one
// GPU time per run with the inputs uploaded once, and the program still
// computes the same values after being timed.
TEST(CudaTimingTest, TimeEachRunGivesOneGpuTimePerRun) {
  REQUIRE_GPU();
  absl::StatusOr<Graph> graph = Parse(kSoftmax);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, Cuda());
  ASSERT_TRUE(exe.ok()) << exe.status();
  const cuda::CudaProgram* gpu = cuda::AsCudaProgram(*exe);
  ASSERT_NE(gpu, nullptr);
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  auto before = exe->Run(inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<std::vector<double>> ms = gpu->TimeEachRunMs(inputs, 2, 5);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ASSERT_EQ(ms->size(), 5u);
  for (double t : *ms) {
    EXPECT_GT(t, 0);
    EXPECT_LT(t, 1000);
  }
  absl::StatusOr<std::vector<double>> none = gpu->TimeEachRunMs(inputs, 0, 0);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  auto after = exe->Run(inputs);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE((*before)[0].BitwiseEqual((*after)[0]));
}

// A bad address poisons the process's CUDA context, so the crash runs in a
// fresh child process.
TEST(CudaFaultsTest, RuntimeCrashIsAnIllegalAddress) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        absl::StatusOr<Graph> graph = Parse(kWithRelu);
        CompileOptions options = Cuda();
        options.faults = {"relu:runtime_crash"};
        absl::StatusOr<Executable> exe = Compile(*graph, options);
        if (!exe.ok()) std::exit(2);
        absl::StatusOr<std::vector<HostTensor>> out = exe->Run(SeededInputs(*graph, 1));
        std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
        std::exit(out.ok() ? 0 : 3);
      },
      ::testing::ExitedWithCode(3), "CUDA_ERROR_ILLEGAL_ADDRESS");
}

}  // namespace
}  // namespace rk::compiler
