// reduce_order=tree (kernel::AccumulationOrder::kTree, lowered by
// emit_module.cc) end to end: the compiled sum is bit-identical to a C++
// model of the documented order, its error stays within the pairwise bound
// where sequential f32 summation exceeds it, and it agrees with the
// reference interpreter for every float reduction, dtype and odd size.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

// The order kTree documents, in f32: blocks of 16 summed left to right,
// block sums merged like a binary counter, the rest folded from the top.
float ModelTreeSum(const float* x, int64_t n) {
  constexpr int64_t kBlock = 16;
  std::vector<float> stack;
  for (int64_t blk = 0; blk * kBlock < n; ++blk) {
    float partial = 0.0f;
    for (int64_t i = blk * kBlock; i < std::min(n, (blk + 1) * kBlock); ++i) partial += x[i];
    for (int64_t carry = blk; carry & 1; carry >>= 1) {
      partial = stack.back() + partial;
      stack.pop_back();
    }
    stack.push_back(partial);
  }
  float total = 0.0f;
  for (size_t k = 0; k < stack.size(); ++k) {
    const float left = stack[stack.size() - 1 - k];
    total = k == 0 ? left : left + total;
  }
  return 0.0f + total;
}

absl::StatusOr<std::vector<HostTensor>> CompileAndRun(const std::string& text,
                                                      const std::string& options_text,
                                                      const std::vector<HostTensor>& inputs) {
  absl::StatusOr<Graph> graph = Parse(text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<CompileOptions> options = CompileOptions::Parse(options_text);
  if (!options.ok()) return options.status();
  absl::StatusOr<Executable> exe = Compile(*graph, *options);
  if (!exe.ok()) return exe.status();
  return exe->Run(inputs);
}

std::string RowSumGraph(int64_t rows, int64_t n) {
  return absl::StrCat("graph @g(%x: f32[", rows, ",", n, "]) {\n",
                      "  %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[", rows, "]\n",
                      "  return %s\n}");
}

TEST(TreeReductionTest, CompiledSumFollowsTheDocumentedOrderBitForBit) {
  // low_precision: f32 accumulators, so the order shows in every bit.
  for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 48, 100, 1000, 4096, 4111}) {
    SCOPED_TRACE(n);
    RandomSpec spec;
    spec.low = -1;
    spec.high = 3;
    std::vector<HostTensor> inputs = {
        HostTensor::Random(TensorType(DType::kF32, {3, n}), 11 + n, spec)};
    absl::StatusOr<std::vector<HostTensor>> out =
        CompileAndRun(RowSumGraph(3, n), "low_precision=true reduce_order=tree", inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t r = 0; r < 3; ++r) {
      const float want = ModelTreeSum(inputs[0].data<float>() + r * n, n);
      EXPECT_EQ((*out)[0].data<float>()[r], want) << "row " << r;
    }
  }
}

TEST(TreeReductionTest, ErrorStaysWithinThePairwiseBoundWhereSequentialDoesNot) {
  // 2^20 positive values: f32 sequential summation drifts by ~n * eps, the
  // tree by at most (16 + log2(n / 16)) * eps of the sum.
  const int64_t n = int64_t{1} << 20;
  RandomSpec spec;
  spec.low = 0.5;
  spec.high = 1.5;
  std::vector<HostTensor> inputs = {HostTensor::Random(TensorType(DType::kF32, {1, n}), 3, spec)};
  double exact = 0;
  for (int64_t i = 0; i < n; ++i) exact += inputs[0].data<float>()[i];
  auto relative_error = [&](const std::string& options) {
    absl::StatusOr<std::vector<HostTensor>> out = CompileAndRun(RowSumGraph(1, n), options, inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? std::abs((*out)[0].data<float>()[0] - exact) / exact : 1.0;
  };
  const double eps = std::ldexp(1.0, -24);
  const double bound = (16 + 16) * eps;
  const double tree = relative_error("low_precision=true reduce_order=tree");
  const double sequential = relative_error("low_precision=true");
  EXPECT_LE(tree, bound);
  EXPECT_GT(sequential, bound) << "the input no longer separates the two orders";
  // Default numerics accumulate in f64: both orders are exact to f32.
  EXPECT_LE(relative_error("reduce_order=tree"), eps);
}

TEST(TreeReductionTest, MatchesTheReferenceForEveryFloatReductionAndShape) {
  CompileOptions options;
  options.reduce_order = ReduceOrder::kTree;
  CompileOptions low = options;
  low.low_precision = true;
  const char* const graphs[] = {
      // Several reduced axes (one flattened loop), keepdim, mean, a fused
      // prologue and epilogue (softmax-like), max/min (order-free), argmax.
      "graph @g(%x: f32[3,17,33]) {\n %s = reduce_sum(%x) {axes=[1,2], keepdim=true} : f32[3,1,1]\n return %s\n}",
      "graph @g(%x: f32[5,7,9]) {\n %s = reduce_sum(%x) {axes=[0,2], keepdim=false} : f32[7]\n return %s\n}",
      "graph @g(%x: f32[6,130]) {\n %s = reduce_mean(%x) {axes=[1], keepdim=false} : f32[6]\n return %s\n}",
      "graph @g(%x: f32[4,77]) {\n %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[4,1]\n"
      " %d = sub(%x, %m) : f32[4,77]\n %e = exp(%d) : f32[4,77]\n"
      " %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[4,1]\n %y = div(%e, %s) : f32[4,77]\n return %y\n}",
      "graph @g(%x: f32[4,40]) {\n %m = reduce_min(%x) {axes=[1], keepdim=false} : f32[4]\n return %m\n}",
      "graph @g(%x: f32[4,40]) {\n %m = argmax(%x) {axis=1, keepdim=false} : i64[4]\n return %m\n}",
      "graph @g(%x: f32[100]) {\n %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[]\n return %s\n}",
      "graph @g(%x: f32[0,5]) {\n %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[5]\n return %s\n}",
      "graph @g(%x: f64[3,1000]) {\n %s = reduce_sum(%x) {axes=[1], keepdim=false} : f64[3]\n return %s\n}",
      "graph @g(%x: f16[3,1000]) {\n %s = reduce_sum(%x) {axes=[1], keepdim=false} : f16[3]\n return %s\n}",
      "graph @g(%x: bf16[3,300]) {\n %s = reduce_sum(%x) {axes=[1], keepdim=false} : bf16[3]\n return %s\n}",
      "graph @g(%x: i32[3,300]) {\n %s = reduce_sum(%x) {axes=[1], keepdim=false} : i32[3]\n return %s\n}",
  };
  for (const char* text : graphs) {
    SCOPED_TRACE(text);
    const std::string t(text);
    const double rtol = t.find("bf16") != std::string::npos  ? 1.6e-2
                        : t.find("f16") != std::string::npos ? 2e-3
                        : t.find("i32") != std::string::npos ? 0
                                                             : 1e-5;
    for (const CompileOptions& o : {options, low}) {
      absl::StatusOr<std::string> mismatch = CompareWithReference(t, o, rtol);
      ASSERT_TRUE(mismatch.ok()) << mismatch.status();
      EXPECT_EQ(*mismatch, "") << o.ToString();
    }
  }
}

}  // namespace
}  // namespace rk::compiler
