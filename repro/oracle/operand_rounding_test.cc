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

// The fp64 values of every node of `graph` on `inputs`.
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

double RoundToBf16(double x) { return Filled(DType::kBF16, {}, x).GetDouble(0); }

compiler::Graph ParseOrDie(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

// pow's operands are computed in bf16, so the reference rounds them and fused
// code may not: each rounding moves pow by its partial derivative times the
// rounding error, and the two add as independent errors.
TEST(OperandRoundingTest, PowMovesByWhatRoundingEachOperandMovesIt) {
  compiler::Graph g = ParseOrDie(R"(graph @g(%x: bf16[], %y: bf16[]) {
  %a = exp(%x) : bf16[]
  %c = full() {dtype=bf16, shape=[], value=1.703125} : bf16[]
  %b = mul(%y, %c) : bf16[]
  %p = pow(%a, %b) : bf16[]
  return %p
})");
  std::vector<HostTensor> values =
      Fp64Values(g, {Filled(DType::kBF16, {}, 0.7), Filled(DType::kBF16, {}, 1.3)});
  absl::StatusOr<double> rms = OperandRoundingRms(g, values, g.outputs()[0]);
  ASSERT_TRUE(rms.ok()) << rms.status();
  const double x = RoundToBf16(0.7), y = RoundToBf16(1.3);
  const double a = std::exp(x), b = y * 1.703125;
  const double da = std::pow(RoundToBf16(a), b) - std::pow(a, b);
  const double db = std::pow(a, RoundToBf16(b)) - std::pow(a, b);
  ASSERT_NE(da, 0.0);
  ASSERT_NE(db, 0.0);
  EXPECT_NEAR(*rms, std::sqrt(da * da + db * db), 1e-12);
}

// A sensitive intermediate two ops before the output still counts: sin of a
// large argument moves by cos(x) times the argument's rounding, and a cumsum
// over an axis of size 1 hands that on unchanged.
TEST(OperandRoundingTest, IntermediatesBeforeTheOperandsCount) {
  compiler::Graph g = ParseOrDie(R"(graph @g(%x: bf16[1,1]) {
  %c = full() {dtype=bf16, shape=[], value=0.71875} : bf16[]
  %m = mul(%x, %c) : bf16[1,1]
  %s = sin(%m) : bf16[1,1]
  %y = cumsum(%s) {axis=1, exclusive=false, reverse=false} : bf16[1,1]
  return %y
})");
  std::vector<HostTensor> values = Fp64Values(g, {Filled(DType::kBF16, {1, 1}, 43.0)});
  absl::StatusOr<double> rms = OperandRoundingRms(g, values, g.outputs()[0]);
  ASSERT_TRUE(rms.ok()) << rms.status();
  const double m = 43.0 * 0.71875;  // 30.90625: bf16 holds 30.875 or 31.0
  const double dm = std::sin(RoundToBf16(m)) - std::sin(m);
  const double ds = RoundToBf16(std::sin(m)) - std::sin(m);
  ASSERT_GT(std::abs(dm), 0.01);
  EXPECT_NEAR(*rms, std::sqrt(dm * dm + ds * ds), 1e-12);
}

TEST(OperandRoundingTest, ValuesTheirDtypeHoldsAddNothing) {
  // 1 + 2 = 3 and 3 * 3 = 9 are exact in bf16; f32 values are never rounded
  // here, nor are inputs and sources.
  compiler::Graph g = ParseOrDie(R"(graph @g(%x: bf16[4], %y: bf16[4], %f: f32[4]) {
  %a = add(%x, %y) : bf16[4]
  %m = mul(%a, %a) : bf16[4]
  %e = exp(%f) : f32[4]
  %l = log(%e) : f32[4]
  return %m, %l
})");
  std::vector<HostTensor> values =
      Fp64Values(g, {Filled(DType::kBF16, {4}, 1.0), Filled(DType::kBF16, {4}, 2.0),
                     Filled(DType::kF32, {4}, 0.3)});
  for (compiler::NodeId out : g.outputs()) {
    absl::StatusOr<double> rms = OperandRoundingRms(g, values, out);
    ASSERT_TRUE(rms.ok()) << rms.status();
    EXPECT_EQ(*rms, 0.0);
  }
}

TEST(OperandRoundingTest, MissingValuesAreAnInternalError) {
  compiler::Graph g = ParseOrDie(R"(graph @g(%x: bf16[2]) {
  %e = exp(%x) : bf16[2]
  return %e
})");
  EXPECT_EQ(OperandRoundingRms(g, {}, g.outputs()[0]).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace rk::repro
