// Judging gradients (gradients.h): a graph with `grad` inputs is judged as its
// joint graph; a backward-only fault fails a gradient and is named after its
// forward op; --grad marks inputs.
#include "repro/oracle/gradients.h"

#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/oracle/oracle.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;
using compiler::Graph;

Graph ParseOrDie(const std::string& text) {
  absl::StatusOr<Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

absl::StatusOr<Verdict> Judge(const Graph& g, std::vector<std::string> faults = {}) {
  CompileOptions options;
  options.faults = std::move(faults);
  return JudgeInProcess(g, compiler::SeededInputs(g, 7), options, OracleOptions());
}

constexpr char kTranspose[] = R"(graph @f(%x: f32[2,3,4] grad, %b: f32[3,4,2]) {
  %y = transpose(%x) {perm=[1,2,0]} : f32[3,4,2]
  %z = add(%y, %b) : f32[3,4,2]
  return %z
})";

TEST(GradientsTest, FaultFreeJointGraphPasses) {
  absl::StatusOr<Verdict> v = Judge(ParseOrDie(kTranspose));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kPass) << v->message;
  ASSERT_EQ(v->outputs.size(), 2u);  // the forward output, then grad(%x)
  EXPECT_EQ(v->outputs[0].gradient_of, "");
  EXPECT_EQ(v->outputs[1].gradient_of, "x");
  EXPECT_EQ(OutputLabel(v->outputs[1]), "grad(%x)");
}

TEST(GradientsTest, BackwardOnlyFaultFailsTheGradientNamedAfterTheForwardOp) {
  absl::StatusOr<Verdict> v = Judge(ParseOrDie(kTranspose), {"vjp:transpose:wrong_perm"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kAccuracy) << v->message;
  EXPECT_EQ(v->signature.ToString(), "accuracy:miscompile:grad:transpose:f32");
  EXPECT_EQ(v->outputs[0].metrics.judgement, Judgement::kPass);  // forward unchanged
  EXPECT_EQ(v->outputs[1].metrics.judgement, Judgement::kFail);
  EXPECT_NE(v->message.find("grad(%x)"), std::string::npos) << v->message;
  std::optional<AccuracyDetail> d = ParseAccuracyDetail(v->signature);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->gradient);
  EXPECT_EQ(d->op, "transpose");
}

TEST(GradientsTest, WithoutMarksTheBackwardFaultIsNotJudged) {
  Graph g = ParseOrDie(kTranspose);
  absl::StatusOr<Graph> unmarked = ApplyGradFlag(g, "none");
  ASSERT_TRUE(unmarked.ok()) << unmarked.status();
  EXPECT_FALSE(HasGradientMarks(*unmarked));
  absl::StatusOr<Verdict> v = Judge(*unmarked, {"vjp:transpose:wrong_perm"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kPass);
  EXPECT_EQ(v->outputs.size(), 1u);
}

TEST(GradientsTest, ForwardFaultKeepsTheForwardSignature) {
  Graph g = ParseOrDie(R"(graph @f(%x: f32[64] grad) {
  %r = relu(%x) : f32[64]
  %y = mul(%r, %x) : f32[64]
  return %y
})");
  absl::StatusOr<Verdict> v = Judge(g, {"relu:accuracy"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kAccuracy);
  EXPECT_EQ(v->signature.ToString(), "accuracy:miscompile:relu:f32");
}

TEST(GradientsTest, MulSwapOperandsNamesMul) {
  Graph g = ParseOrDie(R"(graph @f(%a: f32[16] grad, %b: f32[16]) {
  %t = tanh(%a) : f32[16]
  %y = mul(%t, %b) : f32[16]
  return %y
})");
  absl::StatusOr<Verdict> v = Judge(g, {"vjp:mul:swap_operands"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->signature.ToString(), "accuracy:miscompile:grad:mul:f32") << v->message;
}

TEST(GradientsTest, FaultOnAnAbsentOpDoesNotFire) {
  absl::StatusOr<Verdict> v = Judge(ParseOrDie(kTranspose), {"vjp:matmul:reshape_transpose"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kPass);
}

TEST(GradientsTest, IsolatedOracleAgreesWithInProcess) {
  Oracle::Config config;
  absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  Graph g = ParseOrDie(kTranspose);
  CompileOptions options;
  options.faults = {"vjp:transpose:wrong_perm"};
  absl::StatusOr<Verdict> v = (*oracle)->Judge(g, compiler::SeededInputs(g, 7), options);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->signature.ToString(), "accuracy:miscompile:grad:transpose:f32");
  EXPECT_EQ(v->outputs[1].gradient_of, "x");  // crosses the worker's wire
}

TEST(GradientsTest, GradFlagMarksByNameAllFloatOrNone) {
  Graph g = ParseOrDie(R"(graph @f(%x: f32[4], %i: i32[4], %w: f32[4]) {
  %c = cast(%i) {dtype=f32} : f32[4]
  %y = add(%x, %c) : f32[4]
  %z = mul(%y, %w) : f32[4]
  return %z
})");
  absl::StatusOr<Graph> w = ApplyGradFlag(g, "%w");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_NE(compiler::PrintInline(*w).find("%w: f32[4] grad"), std::string::npos);
  EXPECT_EQ(compiler::PrintInline(*w).find("%x: f32[4] grad"), std::string::npos);
  absl::StatusOr<Graph> all = ApplyGradFlag(g, "all-float");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(compiler::autodiff::GradSpecFromMarks(*all).inputs.size(), 2u);
  absl::StatusOr<Graph> none = ApplyGradFlag(*all, "none");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(HasGradientMarks(*none));

  absl::StatusOr<Graph> unknown = ApplyGradFlag(g, "x,nosuch");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("nosuch"), std::string::npos);
  absl::StatusOr<Graph> integer = ApplyGradFlag(g, "i");
  EXPECT_EQ(integer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(integer.status().message().find("only float"), std::string::npos)
      << integer.status();
  EXPECT_EQ(ApplyGradFlag(g, ",").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GradientsTest, SignatureDetailRoundTrips) {
  Signature s = GradientAccuracySignature("precision", "matmul", "bf16");
  EXPECT_EQ(s.ToString(), "accuracy:precision:grad:matmul:bf16");
  absl::StatusOr<Signature> parsed = Signature::Parse(s.ToString());
  ASSERT_TRUE(parsed.ok());
  std::optional<AccuracyDetail> d = ParseAccuracyDetail(*parsed);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->gradient);
  EXPECT_EQ(d->subkind, "precision");
  EXPECT_EQ(d->op, "matmul");
  EXPECT_EQ(d->dtype, "bf16");
  EXPECT_EQ(AccuracySignatureLike(*d, "miscompile", "add", "f32").ToString(),
            "accuracy:miscompile:grad:add:f32");
  std::optional<AccuracyDetail> forward =
      ParseAccuracyDetail(AccuracySignature("miscompile", "relu", "f32"));
  ASSERT_TRUE(forward.has_value());
  EXPECT_FALSE(forward->gradient);
  EXPECT_FALSE(ParseAccuracyDetail(TimeoutSignature("compile")).has_value());
}

}  // namespace
}  // namespace rk::repro
