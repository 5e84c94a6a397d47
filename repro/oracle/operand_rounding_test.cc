#include "repro/oracle/operand_rounding.h"

#include <cmath>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::TensorType;

TEST(HalfUlpTest, FollowsTheBinadeAndTheSubnormalSpacing) {
  EXPECT_EQ(HalfUlp(DType::kBF16, 1.0), std::ldexp(1.0, -8));
  EXPECT_EQ(HalfUlp(DType::kBF16, 3.0), std::ldexp(1.0, -7));
  EXPECT_EQ(HalfUlp(DType::kBF16, -3.0), std::ldexp(1.0, -7));
  EXPECT_EQ(HalfUlp(DType::kF16, 1.0), std::ldexp(1.0, -11));
  EXPECT_EQ(HalfUlp(DType::kF16, 0.0), std::ldexp(1.0, -25));
  EXPECT_EQ(HalfUlp(DType::kF16, 1e-7), std::ldexp(1.0, -25));
  EXPECT_EQ(HalfUlp(DType::kBF16, 0.0), std::ldexp(1.0, -134));
  EXPECT_EQ(HalfUlp(DType::kF32, 1.0), 0.0);
  EXPECT_EQ(HalfUlp(DType::kBF16, INFINITY), 0.0);
}

// The fp64 values of every node of `text` on `inputs`.
std::vector<HostTensor> Fp64Values(const compiler::Graph& graph, std::vector<HostTensor> inputs) {
  compiler::EvalOptions options;
  options.fp64 = true;
  options.record_intermediates = true;
  absl::StatusOr<compiler::EvalResult> r = compiler::Evaluate(graph, inputs, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->values : std::vector<HostTensor>();
}

HostTensor Filled(DType dtype, std::vector<int64_t> dims, double value) {
  HostTensor t(TensorType(dtype, compiler::Shape(std::move(dims))));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetDouble(i, value);
  return t;
}

TEST(OperandRoundingTest, PowMovesByItsPartialDerivativesTimesHalfAUnit) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%a: bf16[], %b: bf16[2]) {
  %y = pow(%a, %b) : bf16[2]
  return %y
})");
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<HostTensor> values =
      Fp64Values(*g, {Filled(DType::kBF16, {}, 2.0), Filled(DType::kBF16, {2}, 3.0)});
  absl::StatusOr<double> rms = OperandRoundingRms(*g, values, g->outputs()[0]);
  ASSERT_TRUE(rms.ok()) << rms.status();
  // y = a^b = 8; half a unit of a = 2 is 2^-7, of b = 3 also 2^-7.
  // dy/da = b y / a = 12, dy/db = y ln a = 5.545; the larger of the up and
  // down moves is taken for each: both up moves, as y is convex in each.
  const double h = std::ldexp(1.0, -7);
  const double want = (std::pow(2.0 + h, 3.0) - 8.0) + (std::pow(2.0, 3.0 + h) - 8.0);
  EXPECT_NEAR(*rms, want, 1e-12);
}

TEST(OperandRoundingTest, ARepeatedOperandMovesAsOne) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: bf16[3]) {
  %y = mul(%x, %x) : bf16[3]
  return %y
})");
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<HostTensor> values = Fp64Values(*g, {Filled(DType::kBF16, {3}, 1.0)});
  absl::StatusOr<double> rms = OperandRoundingRms(*g, values, g->outputs()[0]);
  ASSERT_TRUE(rms.ok()) << rms.status();
  const double h = std::ldexp(1.0, -8);
  EXPECT_NEAR(*rms, (1 + h) * (1 + h) - 1, 1e-15);
}

TEST(OperandRoundingTest, ZeroWithoutLowPrecisionOperands) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: f32[2], %b: bf16[2]) {
  %c = cast(%b) {dtype=f32} : f32[2]
  %y = exp(%x) : f32[2]
  %z = add(%y, %c) : f32[2]
  return %z, %x
})");
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<HostTensor> values =
      Fp64Values(*g, {Filled(DType::kF32, {2}, 1.0), Filled(DType::kBF16, {2}, 1.0)});
  for (compiler::NodeId out : g->outputs()) {
    absl::StatusOr<double> rms = OperandRoundingRms(*g, values, out);
    ASSERT_TRUE(rms.ok()) << rms.status();
    EXPECT_EQ(*rms, 0.0);
  }
}

TEST(OperandRoundingTest, AttributesThatNameADtypeKeepTheirMeaning) {
  // cast's target is promoted with the rest of the one-node graph, so the
  // moved operand is not rounded back to bf16 on the way out.
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: bf16[2]) {
  %e = exp(%x) : bf16[2]
  %y = cast(%e) {dtype=f64} : f64[2]
  return %y
})");
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<HostTensor> values = Fp64Values(*g, {Filled(DType::kBF16, {2}, 0.0)});
  absl::StatusOr<double> rms = OperandRoundingRms(*g, values, g->outputs()[0]);
  ASSERT_TRUE(rms.ok()) << rms.status();
  EXPECT_EQ(*rms, std::ldexp(1.0, -8));  // exp(0) = 1, half a unit of bf16 at 1
}

TEST(OperandRoundingTest, MissingValuesAreAnInternalError) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: bf16[2]) {
  %e = exp(%x) : bf16[2]
  return %e
})");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(OperandRoundingRms(*g, {}, g->outputs()[0]).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace rk::repro
