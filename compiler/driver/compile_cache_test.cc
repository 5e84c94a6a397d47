// The kernel cache seen through Compile: identical kernels are reused (also
// inside other graphs, at other buffer positions), anything that changes the
// code (ops, shapes, faults, numerics options, opt_level) misses, dumps bypass
// the cache, cached code outlives the cache entry, and concurrent compiles
// agree with the reference.
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

Executable MustCompile(const std::string& text, const CompileOptions& options = {}) {
  absl::StatusOr<Graph> graph = Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return *std::move(exe);
}

std::vector<HostTensor> RunOn(const Executable& exe, const std::string& text, uint64_t seed = 3) {
  absl::StatusOr<std::vector<HostTensor>> out = exe.Run(SeededInputs(*Parse(text), seed));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

constexpr const char* kSoftmax = R"(graph @g(%x: f32[6,40]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[6,1]
  %d = sub(%x, %m) : f32[6,40]
  %e = exp(%d) : f32[6,40]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[6,1]
  %y = div(%e, %s) : f32[6,40]
  return %y
})";

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { cpu::KernelCache::Global().Clear(); }
};

TEST_F(CompileCacheTest, IdenticalGraphReusesEveryKernel) {
  Executable first = MustCompile(kSoftmax);
  EXPECT_EQ(first.timings().cached_kernels, 0);
  Executable second = MustCompile(kSoftmax);
  EXPECT_EQ(second.timings().cached_kernels, second.num_kernels());
  EXPECT_EQ(second.timings().optimize_ms, 0);
  EXPECT_EQ(second.timings().jit_ms, 0);
  std::vector<HostTensor> a = RunOn(first, kSoftmax), b = RunOn(second, kSoftmax);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(a[0].BitwiseEqual(b[0]));
  absl::StatusOr<std::string> mismatch = CompareWithReference(kSoftmax, {}, 1e-5);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
}

TEST_F(CompileCacheTest, SameKernelInAnotherGraphAtOtherBuffers) {
  const std::string alone = R"(graph @g(%x: f32[5,9]) {
    %e = exp(%x) : f32[5,9]
    %r = relu(%e) : f32[5,9]
    return %r
  })";
  // The same kernel reads the second input and writes the second output here.
  const std::string inside = R"(graph @g(%w: f32[3], %x: f32[5,9]) {
    %n = neg(%w) : f32[3]
    %e = exp(%x) : f32[5,9]
    %r = relu(%e) : f32[5,9]
    return %n, %r
  })";
  MustCompile(alone);
  Executable exe = MustCompile(inside);
  EXPECT_EQ(exe.timings().cached_kernels, 1);
  absl::StatusOr<std::string> mismatch = CompareWithReference(inside, {}, 1e-5);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
}

TEST_F(CompileCacheTest, DifferentCodeNeverShares) {
  auto graph = [](const char* op, int cols) {
    return absl::StrCat("graph @g(%x: f32[4,", cols, "]) {\n  %y = ", op, "(%x) : f32[4,", cols,
                        "]\n  return %y\n}");
  };
  MustCompile(graph("exp", 16));
  EXPECT_EQ(MustCompile(graph("tanh", 16)).timings().cached_kernels, 0);
  EXPECT_EQ(MustCompile(graph("exp", 17)).timings().cached_kernels, 0);
  for (const char* op : {"exp", "tanh"}) {
    absl::StatusOr<std::string> mismatch = CompareWithReference(graph(op, 16), {}, 1e-5);
    ASSERT_TRUE(mismatch.ok()) << mismatch.status();
    EXPECT_EQ(*mismatch, "") << op;
  }
}

TEST_F(CompileCacheTest, FaultsAndOptionsArePartOfTheKey) {
  const std::string text = R"(graph @g(%x: f32[4,16]) {
    %e = tanh(%x) : f32[4,16]
    %r = relu(%e) : f32[4,16]
    return %r
  })";
  Executable clean = MustCompile(text);
  CompileOptions faulty;
  faulty.faults = {"relu:accuracy"};
  Executable broken = MustCompile(text, faulty);
  EXPECT_EQ(broken.timings().cached_kernels, 0);
  EXPECT_FALSE(RunOn(clean, text)[0].BitwiseEqual(RunOn(broken, text)[0]));
  // And the clean kernel is still the clean one.
  Executable again = MustCompile(text);
  EXPECT_EQ(again.timings().cached_kernels, 1);
  EXPECT_TRUE(RunOn(clean, text)[0].BitwiseEqual(RunOn(again, text)[0]));

  CompileOptions fast;
  fast.fast_math = true;
  EXPECT_EQ(MustCompile(text, fast).timings().cached_kernels, 0);
  CompileOptions opt1;
  opt1.opt_level = 1;
  EXPECT_EQ(MustCompile(text, opt1).timings().cached_kernels, 0);
  CompileOptions narrow;
  narrow.vector_width = 1;
  EXPECT_EQ(MustCompile(text, narrow).timings().cached_kernels, 0);
}

TEST_F(CompileCacheTest, DumpsCompileEverything) {
  MustCompile(kSoftmax);
  CompileOptions options;
  options.dump_dir = ::testing::TempDir();
  Executable exe = MustCompile(kSoftmax, options);
  EXPECT_EQ(exe.timings().cached_kernels, 0);
  EXPECT_GT(exe.timings().jit_ms, 0);
}

TEST_F(CompileCacheTest, CodeOutlivesTheCacheEntry) {
  Executable exe = MustCompile(kSoftmax);
  std::vector<HostTensor> before = RunOn(exe, kSoftmax);
  cpu::KernelCache::Global().Clear();
  std::vector<HostTensor> after = RunOn(exe, kSoftmax);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(before[0].BitwiseEqual(after[0]));
}

TEST_F(CompileCacheTest, ConcurrentCompilesAgreeWithTheReference) {
  std::vector<std::string> graphs = {kSoftmax};
  for (const char* op : {"exp", "tanh", "sigmoid"}) {
    graphs.push_back(absl::StrCat("graph @g(%x: f32[7,33], %y: f32[33]) {\n  %a = add(%x, %y) : "
                                  "f32[7,33]\n  %b = ", op, "(%a) : f32[7,33]\n  return %b\n}"));
  }
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 6; ++i) {
        const std::string& text = graphs[(t + i) % graphs.size()];
        absl::StatusOr<std::string> mismatch = CompareWithReference(text, {}, 1e-5);
        if (!mismatch.ok()) {
          errors[t] = std::string(mismatch.status().message());
        } else if (!mismatch->empty()) {
          errors[t] = *mismatch;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  EXPECT_GT(cpu::KernelCache::Global().hits(), 0);
}

}  // namespace
}  // namespace rk::compiler
