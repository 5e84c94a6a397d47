#include "compiler/passes/conv_affine_fold.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/passes/pass_test_util.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

// The rewrite changes roundings, so values are compared with a tolerance:
// the folded graph against the original (both native) and, the point of
// it, both against the original's fp64 evaluation.
PassRun MustFold(const char* text, double tolerance = 1e-5) {
  absl::StatusOr<PassRun> run = RunPass(&ConvAffineFold, text, {}, /*exact=*/false);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return PassRun{};
  absl::StatusOr<Graph> input = Parse(text);
  EXPECT_TRUE(input.ok());
  EXPECT_TRUE(SameValues(*input, run->graph, RandomInputs(*input, 3), tolerance));
  return *run;
}

// Conv -> batch norm as the ONNX importer and constant_fold leave it: per
// channel mean, sqrt(var + eps), scale and bias. Weights and parameters are
// chosen so the folded values are exact: a = scale / sd = (2, -0.5),
// d = bias - mean * a = (0.25 - 0.5 * 2, 1 - 2 * -0.5) = (-0.75, 2).
constexpr char kBatchNorm[] = R"(graph @g(%x: f32[1,3,5,5]) {
  %w = constant() {value=dense<f32[2,3,1,1]>[1.0, -0.5, 2.0, 0.25, 4.0, -1.0]} : f32[2,3,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,5,5]
  %mean = constant() {value=dense<f32[2,1,1]>[0.5, 2.0]} : f32[2,1,1]
  %sd = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %scale = constant() {value=dense<f32[2,1,1]>[4.0, -2.0]} : f32[2,1,1]
  %bias = constant() {value=dense<f32[2,1,1]>[0.25, 1.0]} : f32[2,1,1]
  %s = sub(%c, %mean) : f32[1,2,5,5]
  %n = div(%s, %sd) : f32[1,2,5,5]
  %m = mul(%n, %scale) : f32[1,2,5,5]
  %b = add(%m, %bias) : f32[1,2,5,5]
  %r = relu(%b) : f32[1,2,5,5]
  return %r
})";

TEST(ConvAffineFoldTest, BatchNormBecomesScaledWeightsAndABias) {
  PassRun run = MustFold(kBatchNorm);
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[1,3,5,5]) {
  %1 = constant() {value=dense<f32[2,3,1,1]>[2.0, -1.0, 4.0, -0.125, -2.0, 0.5]} : f32[2,3,1,1]
  %2 = conv2d(%x, %1) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,5,5]
  %3 = constant() {value=dense<f32[2,1,1]>[-0.75, 2.0]} : f32[2,1,1]
  %b = add(%2, %3) : f32[1,2,5,5]
  %r = relu(%b) : f32[1,2,5,5]
  return %r
})"));
  ASSERT_EQ(run.log.size(), 1u);
  EXPECT_EQ(run.log[0].detail, "%b (add): 4 steps into %c (conv2d)");
}

TEST(ConvAffineFoldTest, CloserToFp64ThanTheChain) {
  // Random-looking weights and statistics: the folded graph's error against
  // the fp64 reference stays within f32's budget.
  constexpr char kText[] = R"(graph @g(%x: f32[1,4,6,6]) {
  %w = constant() {value=dense<f32[3,4,3,3]>[0.31, -0.72, 0.15, 0.93, -0.44, 0.27, 0.61, -0.18, 0.05, -0.36, 0.82, -0.91, 0.47, 0.12, -0.58, 0.66, -0.23, 0.39, 0.71, -0.14, 0.28, -0.87, 0.53, 0.09, -0.65, 0.34, 0.77, -0.41, 0.19, -0.96, 0.58, 0.02, -0.29, 0.84, -0.51, 0.13, 0.45, -0.68, 0.22, 0.99, -0.07, 0.36, -0.83, 0.57, 0.11, -0.32, 0.74, -0.49, 0.26, 0.63, -0.15, 0.88, -0.54, 0.06, -0.77, 0.42, 0.17, -0.94, 0.31, 0.69, -0.21, 0.48, -0.62, 0.14, 0.85, -0.38, 0.25, -0.71, 0.56, 0.03, -0.46, 0.79, 0.33, -0.12, 0.67, -0.89, 0.44, 0.08, -0.59, 0.21, 0.92, -0.35, 0.16, -0.73, 0.51, 0.27, -0.64, 0.38, 0.04, -0.81, 0.59, -0.19, 0.72, -0.43, 0.29, 0.87, -0.06, 0.54, -0.97, 0.18, 0.41, -0.52, 0.65, -0.27, 0.13, 0.76, -0.34, 0.49]} : f32[3,4,3,3]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[1,1]} : f32[1,3,6,6]
  %mean = constant() {value=dense<f32[3,1,1]>[0.137, -0.291, 0.052]} : f32[3,1,1]
  %sd = constant() {value=dense<f32[3,1,1]>[0.913, 1.271, 0.688]} : f32[3,1,1]
  %scale = constant() {value=dense<f32[3,1,1]>[1.093, 0.771, 1.337]} : f32[3,1,1]
  %bias = constant() {value=dense<f32[3,1,1]>[-0.071, 0.033, 0.219]} : f32[3,1,1]
  %s = sub(%c, %mean) : f32[1,3,6,6]
  %n = div(%s, %sd) : f32[1,3,6,6]
  %m = mul(%n, %scale) : f32[1,3,6,6]
  %b = add(%m, %bias) : f32[1,3,6,6]
  return %b
})";
  PassRun run = MustFold(kText);
  ASSERT_TRUE(run.changed);
  absl::StatusOr<Graph> input = Parse(kText);
  ASSERT_TRUE(input.ok());
  const std::vector<HostTensor> inputs = RandomInputs(*input, 11);
  EvalOptions fp64;
  fp64.fp64 = true;
  absl::StatusOr<EvalResult> exact = Evaluate(*input, inputs, fp64);
  absl::StatusOr<EvalResult> chain = Evaluate(*input, inputs);
  absl::StatusOr<EvalResult> folded = Evaluate(run.graph, inputs);
  ASSERT_TRUE(exact.ok() && chain.ok() && folded.ok());
  double chain_err = 0, folded_err = 0;
  for (int64_t i = 0; i < exact->outputs[0].num_elements(); ++i) {
    const double want = exact->outputs[0].GetDouble(i);
    chain_err = std::max(chain_err, std::abs(chain->outputs[0].GetDouble(i) - want));
    folded_err = std::max(folded_err, std::abs(folded->outputs[0].GetDouble(i) - want));
  }
  EXPECT_LT(folded_err, 1e-5);
  EXPECT_LE(folded_err, 2 * chain_err) << "chain " << chain_err << ", folded " << folded_err;
}

TEST(ConvAffineFoldTest, ScalesWithoutShiftAndSplatsAndConstantMinusChain) {
  // conv * s[c] with no shift: no add; a full scalar; 1 - (conv / 2).
  PassRun run = MustFold(R"(graph @g(%x: f32[1,1,4,4]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,4,4]
  %s = constant() {value=dense<f32[1,2,1,1]>[0.5, 4.0]} : f32[1,2,1,1]
  %m = mul(%s, %c) : f32[1,2,4,4]
  %two = full() {dtype=f32, shape=[], value=2.0} : f32[]
  %h = div(%m, %two) : f32[1,2,4,4]
  %one = full() {dtype=f32, shape=[1,1,1], value=1.0} : f32[1,1,1]
  %y = sub(%one, %h) : f32[1,2,4,4]
  return %y
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[1,1,4,4]) {
  %1 = constant() {value=dense<f32[2,1,1,1]>[-0.25, -6.0]} : f32[2,1,1,1]
  %2 = conv2d(%x, %1) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,4,4]
  %3 = constant() {value=dense<f32[2,1,1]>[1.0, 1.0]} : f32[2,1,1]
  %y = add(%2, %3) : f32[1,2,4,4]
  return %y
})"));
  PassRun scale_only = MustFold(R"(graph @g(%x: f32[1,1,4,4]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,4,4]
  %s = constant() {value=dense<f32[2,1,1]>[0.5, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,4,4]
  return %m
})");
  EXPECT_TRUE(scale_only.changed);
  EXPECT_TRUE(GraphMatches(scale_only.graph, R"(graph @g(%x: f32[1,1,4,4]) {
  %1 = constant() {value=dense<f32[2,1,1,1]>[0.5, 12.0]} : f32[2,1,1,1]
  %m = conv2d(%x, %1) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,4,4]
  return %m
})"));
}

TEST(ConvAffineFoldTest, StopsWhereAStepIsNotSafe) {
  // The chain stops before the per-element constant and the divisor chain;
  // what came before still folds.
  PassRun run = MustFold(R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,2,2]
  %e = constant() {value=dense<f32[1,1,2,2]>[1.0, 2.0, 3.0, 4.0]} : f32[1,1,2,2]
  %a = add(%m, %e) : f32[1,2,2,2]
  %k = full() {dtype=f32, shape=[], value=1.0} : f32[]
  %d = div(%k, %a) : f32[1,2,2,2]
  return %d
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[1,1,2,2]) {
  %1 = constant() {value=dense<f32[2,1,1,1]>[2.0, 12.0]} : f32[2,1,1,1]
  %m = conv2d(%x, %1) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %e = constant() {value=dense<f32[1,1,2,2]>[1.0, 2.0, 3.0, 4.0]} : f32[1,1,2,2]
  %a = add(%m, %e) : f32[1,2,2,2]
  %k = full() {dtype=f32, shape=[], value=1.0} : f32[]
  %d = div(%k, %a) : f32[1,2,2,2]
  return %d
})"));
}

TEST(ConvAffineFoldTest, LeavesWhatItMustNotFold) {
  const char* cases[] = {
      // Weights that are an input.
      R"(graph @g(%x: f32[1,1,2,2], %w: f32[2,1,1,1]) {
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,2,2]
  return %m
})",
      // The convolution has another user.
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,2,2]
  %y = add(%m, %c) : f32[1,2,2,2]
  return %y
})",
      // The convolution is an output.
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,2,2]
  return %m, %c
})",
      // A zero scale (a channel switched off) and a zero divisor.
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[0.0, 4.0]} : f32[2,1,1]
  %m = mul(%c, %s) : f32[1,2,2,2]
  return %m
})",
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[1.0, 0.0]} : f32[2,1,1]
  %m = div(%c, %s) : f32[1,2,2,2]
  return %m
})",
      // bf16: a rounding per weight is as large as the chain's.
      R"(graph @g(%x: bf16[1,1,2,2]) {
  %w = constant() {value=dense<bf16[2,1,1,1]>[1.0, 3.0]} : bf16[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : bf16[1,2,2,2]
  %s = constant() {value=dense<bf16[2,1,1]>[2.0, 4.0]} : bf16[2,1,1]
  %m = mul(%c, %s) : bf16[1,2,2,2]
  return %m
})",
      // A single add is already a bias.
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[2,1,1]>[2.0, 4.0]} : f32[2,1,1]
  %m = add(%c, %s) : f32[1,2,2,2]
  return %m
})",
      // A constant that would broadcast the result to a larger type.
      R"(graph @g(%x: f32[1,1,2,2]) {
  %w = constant() {value=dense<f32[2,1,1,1]>[1.0, 3.0]} : f32[2,1,1,1]
  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,2,2]
  %s = constant() {value=dense<f32[3,1,1,1,1]>[2.0, 4.0, 8.0]} : f32[3,1,1,1,1]
  %m = mul(%c, %s) : f32[3,1,2,2,2]
  return %m
})",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    PassRun run = MustFold(text);
    EXPECT_FALSE(run.changed);
  }
}

// Random values as a dense literal.
std::string Dense(std::mt19937& rng, const std::string& type, int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::string text = absl::StrCat("dense<", type, ">[");
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&text, i ? ", " : "", dist(rng));
  return text + "]";
}

// A convolution with constant weights and a random chain of 2 to 5 per-channel
// add/sub/mul/div steps (constants [C,1,1], [1,C,1,1] or scalar fulls;
// divisors away from zero; constant - chain as well as chain - constant).
std::string RandomChain(uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const std::string dt = pick(2) ? "f32" : "f64";
  const int cin = 1 + pick(4), cout = 1 + pick(6), k = 1 + 2 * pick(2), size = 4 + pick(4);
  const std::string out = absl::StrCat(dt, "[1,", cout, ",", size, ",", size, "]");
  std::string text = absl::StrCat("graph @g(%x: ", dt, "[1,", cin, ",", size, ",", size, "]) {\n");
  const std::string wt = absl::StrCat(dt, "[", cout, ",", cin, ",", k, ",", k, "]");
  absl::StrAppend(&text, "  %w = constant() {value=", Dense(rng, wt, cout * cin * k * k, -1, 1),
                  "} : ", wt, "\n  %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[", k / 2,
                  ",", k / 2, ",", k / 2, ",", k / 2, "], strides=[1,1]} : ", out, "\n");
  std::string cur = "%c";
  const int steps = 2 + pick(4);
  for (int i = 0; i < steps; ++i) {
    const char* ops[] = {"add", "sub", "mul", "div"};
    const std::string op = ops[pick(4)];
    const bool divisor = op == "div" || op == "mul";
    const double lo = divisor ? 0.5 : -1, hi = divisor ? 2 : 1;
    const std::string name = absl::StrCat("%k", i);
    switch (pick(3)) {
      case 0: {
        const std::string t = absl::StrCat(dt, "[", cout, ",1,1]");
        absl::StrAppend(&text, "  ", name, " = constant() {value=", Dense(rng, t, cout, lo, hi), "} : ", t, "\n");
        break;
      }
      case 1: {
        const std::string t = absl::StrCat(dt, "[1,", cout, ",1,1]");
        absl::StrAppend(&text, "  ", name, " = constant() {value=", Dense(rng, t, cout, lo, hi), "} : ", t, "\n");
        break;
      }
      default:
        absl::StrAppend(&text, "  ", name, " = full() {dtype=", dt, ", shape=[], value=",
                        std::uniform_real_distribution<double>(lo, hi)(rng), "} : ", dt, "[]\n");
    }
    const bool swap = op == "sub" && pick(2);  // constant - chain
    absl::StrAppend(&text, "  %s", i, " = ", op, "(", swap ? name : cur, ", ", swap ? cur : name,
                    ") : ", out, "\n");
    cur = absl::StrCat("%s", i);
  }
  return absl::StrCat(text, "  return ", cur, "\n}");
}

TEST(ConvAffineFoldTest, RandomChainsFoldAndStayWithinTheBudget) {
  // The generator makes no convolutions with constant weights, so the
  // pipeline's property test cannot exercise this pass: random chains here.
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const std::string text = RandomChain(seed);
    SCOPED_TRACE(text);
    absl::StatusOr<PassRun> run = RunPass(&ConvAffineFold, text, {}, /*exact=*/false);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->changed);
    int convs = 0, others = 0;
    for (const Node& node : run->graph.nodes()) {
      if (node.op == Op::kConv2d) ++convs;
      if (node.op == Op::kAdd || node.op == Op::kSub || node.op == Op::kMul || node.op == Op::kDiv) {
        ++others;
      }
    }
    EXPECT_EQ(convs, 1);
    EXPECT_LE(others, 1);  // the chain is one bias add at most
    absl::StatusOr<Graph> input = Parse(text);
    ASSERT_TRUE(input.ok());
    const std::vector<HostTensor> inputs = RandomInputs(*input, seed);
    EvalOptions fp64;
    fp64.fp64 = true;
    absl::StatusOr<EvalResult> exact = Evaluate(*input, inputs, fp64);
    absl::StatusOr<EvalResult> chain = Evaluate(*input, inputs);
    absl::StatusOr<EvalResult> folded = Evaluate(run->graph, inputs);
    ASSERT_TRUE(exact.ok() && chain.ok() && folded.ok());
    const bool f32 = run->graph.type(run->graph.outputs()[0]).dtype == DType::kF32;
    double chain_err = 0, folded_err = 0, scale = 0;
    for (int64_t i = 0; i < exact->outputs[0].num_elements(); ++i) {
      const double want = exact->outputs[0].GetDouble(i);
      scale = std::max(scale, std::abs(want));
      chain_err = std::max(chain_err, std::abs(chain->outputs[0].GetDouble(i) - want));
      folded_err = std::max(folded_err, std::abs(folded->outputs[0].GetDouble(i) - want));
    }
    const double unit = f32 ? 6e-8 : 1.2e-16;  // the dtype's unit roundoff
    EXPECT_LE(folded_err, std::max(4 * chain_err, 64 * unit * (1 + scale)))
        << "chain " << chain_err << ", folded " << folded_err;
  }
}

TEST(ConvAffineFoldTest, DisabledByName) {
  CompileOptions options;
  options.disable_passes = {"conv_affine_fold"};
  absl::StatusOr<PassRun> run = RunPass(&ConvAffineFold, kBatchNorm, options, /*exact=*/true);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->changed);
}

}  // namespace
}  // namespace rk::compiler
