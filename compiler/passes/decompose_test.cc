#include "compiler/passes/decompose.h"

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

// Decomposition rounds every intermediate, the reference rounds once.
constexpr double kTolerance = 1e-5;

PassRun MustDecompose(const char* text, const CompileOptions& options = {}) {
  absl::StatusOr<PassRun> run = RunPass(&Decompose, text, options, /*exact=*/false);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  absl::StatusOr<Graph> input = Parse(text);
  EXPECT_TRUE(SameValues(*input, run->graph, RandomInputs(*input, 3),
                         options.low_precision ? 1e-2 : kTolerance));
  EXPECT_TRUE(run->log.empty()) << "required lowering is never numbered";
  return *run;
}

TEST(DecomposeTest, Softmax) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[2,3]) {
  %y = softmax(%x) {axis=-1} : f32[2,3]
  return %y
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,3]) {
  %1 = reduce_max(%x) {axes=[1], keepdim=true} : f32[2,1]
  %2 = sub(%x, %1) : f32[2,3]
  %3 = exp(%2) : f32[2,3]
  %4 = reduce_sum(%3) {axes=[1], keepdim=true} : f32[2,1]
  %y = div(%3, %4) : f32[2,3]
  return %y
})"));
}

TEST(DecomposeTest, LogSoftmax) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[2,3]) {
  %y = log_softmax(%x) {axis=0} : f32[2,3]
  return %y
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,3]) {
  %1 = reduce_max(%x) {axes=[0], keepdim=true} : f32[1,3]
  %2 = sub(%x, %1) : f32[2,3]
  %3 = exp(%2) : f32[2,3]
  %4 = reduce_sum(%3) {axes=[0], keepdim=true} : f32[1,3]
  %5 = log(%4) : f32[1,3]
  %y = sub(%2, %5) : f32[2,3]
  return %y
})"));
}

TEST(DecomposeTest, LayerNorm) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[2,4], %g: f32[4], %b: f32[4]) {
  %y = layer_norm(%x, %g, %b) {axis=1, eps=0.001} : f32[2,4]
  return %y
})");
  EXPECT_TRUE(run.changed);
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[2,4], %g: f32[4], %b: f32[4]) {
  %3 = reduce_mean(%x) {axes=[1], keepdim=true} : f32[2,1]
  %4 = sub(%x, %3) : f32[2,4]
  %5 = mul(%4, %4) : f32[2,4]
  %6 = reduce_mean(%5) {axes=[1], keepdim=true} : f32[2,1]
  %7 = full() {dtype=f32, shape=[], value=0.001} : f32[]
  %8 = add(%6, %7) : f32[2,1]
  %9 = rsqrt(%8) : f32[2,1]
  %10 = mul(%4, %9) : f32[2,4]
  %11 = mul(%10, %g) : f32[2,4]
  %y = add(%11, %b) : f32[2,4]
  return %y
})"));
}

TEST(DecomposeTest, RmsNorm) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[3], %g: f32[3]) {
  %y = rms_norm(%x, %g) {axis=0, eps=0.5} : f32[3]
  return %y
})");
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[3], %g: f32[3]) {
  %2 = mul(%x, %x) : f32[3]
  %3 = reduce_mean(%2) {axes=[0], keepdim=true} : f32[1]
  %4 = full() {dtype=f32, shape=[], value=0.5} : f32[]
  %5 = add(%3, %4) : f32[1]
  %6 = rsqrt(%5) : f32[1]
  %7 = mul(%x, %6) : f32[3]
  %y = mul(%7, %g) : f32[3]
  return %y
})"));
}

TEST(DecomposeTest, Gelu) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[4]) {
  %y = gelu(%x) : f32[4]
  return %y
})");
  // erf sees |x| / sqrt(2) >= 0; x + |x| * erf(...) restores the odd part.
  EXPECT_TRUE(GraphMatches(run.graph, R"(graph @g(%x: f32[4]) {
  %1 = abs(%x) : f32[4]
  %2 = full() {dtype=f32, shape=[], value=0.7071067811865476} : f32[]
  %3 = mul(%1, %2) : f32[4]
  %4 = erf(%3) : f32[4]
  %5 = mul(%1, %4) : f32[4]
  %6 = add(%x, %5) : f32[4]
  %7 = full() {dtype=f32, shape=[], value=0.5} : f32[]
  %y = mul(%6, %7) : f32[4]
  return %y
})"));
}

TEST(DecomposeTest, HalfComputesInF32EvenUnderLowPrecision) {
  const char* text = R"(graph @g(%x: f16[2,3]) {
  %y = softmax(%x) {axis=1} : f16[2,3]
  return %y
})";
  PassRun upcast = MustDecompose(text);
  EXPECT_TRUE(GraphMatches(upcast.graph, R"(graph @g(%x: f16[2,3]) {
  %1 = cast(%x) {dtype=f32} : f32[2,3]
  %2 = reduce_max(%1) {axes=[1], keepdim=true} : f32[2,1]
  %3 = sub(%1, %2) : f32[2,3]
  %4 = exp(%3) : f32[2,3]
  %5 = reduce_sum(%4) {axes=[1], keepdim=true} : f32[2,1]
  %6 = div(%4, %5) : f32[2,3]
  %y = cast(%6) {dtype=f16} : f16[2,3]
  return %y
})"));
  // low_precision rounds after every graph op; a composite is one op.
  CompileOptions low;
  low.low_precision = true;
  PassRun native = MustDecompose(text, low);
  EXPECT_TRUE(GraphMatches(native.graph, PrintInline(upcast.graph)));
}

TEST(DecomposeTest, PrimitivesOnlyIsUnchanged) {
  PassRun run = MustDecompose(R"(graph @g(%x: f32[4]) {
  %y = exp(%x) : f32[4]
  return %y
})");
  EXPECT_FALSE(run.changed);
}

TEST(DecomposeTest, RunsEvenWhenOptionalPassesAreOff) {
  CompileOptions options;
  options.opt_level = 0;
  PassRun run = MustDecompose(R"(graph @g(%x: f32[4]) {
  %y = gelu(%x) : f32[4]
  return %y
})", options);
  EXPECT_TRUE(run.changed);
}

}  // namespace
}  // namespace rk::compiler
