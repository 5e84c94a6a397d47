// Planted faults (testing only) fire exactly where their op or pattern is.
#include <csignal>

#include "absl/strings/str_cat.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

constexpr char kWithRelu[] = R"(graph @g(%x: f32[4,50]) {
  %e = exp(%x) : f32[4,50]
  %r = relu(%x) : f32[4,50]
  %a = add(%e, %r) : f32[4,50]
  return %a
})";
constexpr char kWithoutRelu[] = R"(graph @g(%x: f32[4,50]) {
  %e = exp(%x) : f32[4,50]
  %a = add(%e, %x) : f32[4,50]
  return %a
})";
constexpr char kSoftmax[] = R"(graph @g(%x: f32[8,64]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
  %d = sub(%x, %m) : f32[8,64]
  %e = exp(%d) : f32[8,64]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
  %y = div(%e, %s) : f32[8,64]
  return %y
})";

CompileOptions WithFault(const std::string& fault) {
  CompileOptions options;
  options.faults = {fault};
  return options;
}

std::string Mismatch(const std::string& text, const std::string& fault) {
  absl::StatusOr<std::string> m = CompareWithReference(text, WithFault(fault), 1e-5);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : "error";
}

TEST(CompileFaultsTest, AccuracyOnlyWhereTheOpIs) {
  EXPECT_NE(Mismatch(kWithRelu, "relu:accuracy"), "");
  EXPECT_EQ(Mismatch(kWithoutRelu, "relu:accuracy"), "");
}

// Every value-computing op carries the value faults, including those that
// lower to other kernel IR ops (clip to maximum/minimum), a scan, and pad,
// the one layout op that computes a value.
TEST(CompileFaultsTest, AccuracyFiresForTheAddedOps) {
  const std::pair<const char*, const char*> cases[] = {
      {"floor", "floor(%x)"},
      {"ceil", "ceil(%x)"},
      {"round", "round(%x)"},
      {"clip", "clip(%x) {max=0.5, min=-0.5}"},
      {"mod", "mod(%x, %x)"},
      {"floordiv", "floordiv(%x, %x)"},
      {"cumsum", "cumsum(%x) {axis=1, exclusive=false, reverse=false}"},
      {"pad", "pad(%e) {pads=[0,0,0,0], value=0.0}"},
  };
  for (const auto& [op, call] : cases) {
    SCOPED_TRACE(op);
    const std::string text = absl::StrCat("graph @g(%x: f32[4,50]) {\n  %e = exp(%x) : f32[4,50]\n",
                                          "  %y = ", call, " : f32[4,50]\n  %z = add(%y, %e) : ",
                                          "f32[4,50]\n  return %z\n}");
    EXPECT_NE(Mismatch(text, absl::StrCat(op, ":accuracy")), "");
    EXPECT_EQ(Mismatch(kWithRelu, absl::StrCat(op, ":accuracy")), "");
  }
}

TEST(CompileFaultsTest, DropLastAndWrongIndex) {
  EXPECT_NE(Mismatch(kSoftmax, "reduce_sum:drop_last"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "reduce_sum:drop_last"), "");
  EXPECT_NE(Mismatch(kSoftmax, "fuse:wrong_index"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "fuse:wrong_index"), "");
}

TEST(CompileFaultsTest, CompileErrorOnlyWhereTheOpIs) {
  absl::StatusOr<Graph> with = Parse(kWithRelu);
  absl::StatusOr<Graph> without = Parse(kWithoutRelu);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(Compile(*with, WithFault("relu:compile_error")).status().code(),
            absl::StatusCode::kInternal);
  EXPECT_TRUE(Compile(*without, WithFault("relu:compile_error")).ok());
}

TEST(CompileFaultsTest, NondeterministicVariesAcrossRuns) {
  absl::StatusOr<Graph> graph = Parse(kWithRelu);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, WithFault("relu:nondeterministic"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  auto a = exe->Run(inputs);
  auto b = exe->Run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE((*a)[0].BitwiseEqual((*b)[0]));
  EXPECT_EQ(Mismatch(kWithoutRelu, "relu:nondeterministic"), "");
}

TEST(CompileFaultsTest, RuntimeCrashOnlyWhereTheOpIs) {
  EXPECT_EQ(Mismatch(kWithoutRelu, "relu:runtime_crash"), "");
  absl::StatusOr<Graph> graph = Parse(kWithRelu);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, WithFault("relu:runtime_crash"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  EXPECT_EXIT((void)exe->Run(inputs), ::testing::KilledBySignal(SIGSEGV), "");
}

// gather is computed in generated code, so its value faults fire there (and
// only where a gather is).
TEST(CompileFaultsTest, GatherFaultsFireInGeneratedCode) {
  constexpr char kGather[] = R"(graph @g(%t: f32[6,8], %i: i32[3]) {
  %y = gather(%t, %i) {axis=0} : f32[3,8]
  return %y
})";
  EXPECT_NE(Mismatch(kGather, "gather:accuracy"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "gather:accuracy"), "");
  EXPECT_EQ(Mismatch(kGather, "relu:accuracy"), "");
  absl::StatusOr<Graph> graph = Parse(kGather);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, WithFault("gather:nondeterministic"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  auto a = exe->Run(inputs);
  auto b = exe->Run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE((*a)[0].BitwiseEqual((*b)[0]));
  EXPECT_EQ(Compile(*graph, WithFault("gather:compile_error")).status().code(),
            absl::StatusCode::kInternal);
}

// conv2d and the pools are kernels of their own: their value faults fire in
// generated code, their runtime_crash in their kernel only.
TEST(CompileFaultsTest, WindowFaultsFireInGeneratedCode) {
  constexpr char kConv[] = R"(graph @g(%x: f32[1,2,6,6], %w: f32[3,2,3,3]) {
  %y = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[1,1]} : f32[1,3,6,6]
  %r = relu(%y) : f32[1,3,6,6]
  return %r
})";
  constexpr char kPools[] = R"(graph @g(%x: f32[1,2,6,6]) {
  %m = max_pool2d(%x) {dilations=[1,1], kernel=[2,2], pads=[1,1,0,0], strides=[2,2]} : f32[1,2,3,3]
  %a = avg_pool2d(%x) {count_include_pad=true, kernel=[3,3], pads=[1,1,1,1], strides=[1,1]} : f32[1,2,6,6]
  return %m, %a
})";
  EXPECT_NE(Mismatch(kConv, "conv2d:accuracy"), "");
  EXPECT_EQ(Mismatch(kWithRelu, "conv2d:accuracy"), "");
  EXPECT_EQ(Mismatch(kPools, "conv2d:accuracy"), "");
  EXPECT_NE(Mismatch(kPools, "max_pool2d:accuracy"), "");
  EXPECT_NE(Mismatch(kPools, "avg_pool2d:accuracy"), "");
  EXPECT_EQ(Mismatch(kConv, "avg_pool2d:accuracy"), "");
  absl::StatusOr<Graph> graph = Parse(kConv);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Executable> exe = Compile(*graph, WithFault("conv2d:runtime_crash"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, 1);
  EXPECT_EXIT((void)exe->Run(inputs), ::testing::KilledBySignal(SIGSEGV), "");
  EXPECT_EQ(Compile(*graph, WithFault("conv2d:compile_error")).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace rk::compiler
