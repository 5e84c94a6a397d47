#include "minifier/reductions/simplify_op.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(SimplifyOp, UnaryBecomesIdentityAndCompositesLower) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[2,4]) {
  %a = exp(%x) : f32[2,4]
  %s = softmax(%a) {axis=1} : f32[2,4]
  return %s
})");
  EXPECT_EQ(NumTargets("simplify_op", c), 2);
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0}), R"(graph @g(%x: f32[2,4]) {
  %s = softmax(%x) {axis=1} : f32[2,4]
  return %s
}
)");
  std::string lowered = ApplyReduction("simplify_op", c, {1});
  EXPECT_EQ(lowered.find("softmax"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("reduce_sum"), std::string::npos) << lowered;
}

TEST(SimplifyOp, LoweringACompositeLowersTheScore) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[2,4]) {
  %s = softmax(%x) {axis=1} : f32[2,4]
  return %s
})");
  absl::StatusOr<Candidate> lowered = SimplifyOp(ReductionInput{c}).build(std::vector<int>{0});
  ASSERT_TRUE(lowered.ok());
  EXPECT_LT(ComputeScore(*lowered), ComputeScore(c));
}

TEST(SimplifyOp, MatmulContractedAndBatchDimsShrinkToOne) {
  Candidate c = ParseCandidate(R"(graph @g(%a: f32[3,4,8], %b: f32[3,8,5]) {
  %m = matmul(%a, %b) : f32[3,4,5]
  return %m
})");
  EXPECT_EQ(NumTargets("simplify_op", c), 2);
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0}), R"(graph @g(%a: f32[3,4,1], %b: f32[3,1,5]) {
  %m = matmul(%a, %b) : f32[3,4,5]
  return %m
}
)");
  EXPECT_EQ(ApplyReduction("simplify_op", c, {1}), R"(graph @g(%a: f32[1,4,8], %b: f32[1,8,5]) {
  %m = matmul(%a, %b) : f32[1,4,5]
  return %m
}
)");
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0, 1}), R"(graph @g(%a: f32[1,4,1], %b: f32[1,1,5]) {
  %m = matmul(%a, %b) : f32[1,4,5]
  return %m
}
)");
}

TEST(SimplifyOp, MatmulShrinkKeepsTheLeadingValuesAndUnaryEditsStillApply) {
  Candidate c = ParseCandidate(R"(graph @g(%a: f32[2,4], %b: f32[4,3]) {
  %m = matmul(%a, %b) : f32[2,3]
  %n = neg(%m) : f32[2,3]
  return %n
})");
  ReductionPlan plan = SimplifyOp(ReductionInput{c});
  ASSERT_EQ(plan.num_targets, 2);  // neg -> identity, matmul K -> 1
  absl::StatusOr<Candidate> both = plan.build(std::vector<int>{0, 1});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(PrintCandidate(*both), R"(graph @g(%a: f32[2,1], %b: f32[1,3]) {
  %m = matmul(%a, %b) : f32[2,3]
  return %m
}
)");
  EXPECT_EQ(both->inputs[0].GetDouble(1), c.inputs[0].GetDouble(4));
  EXPECT_EQ(both->inputs[1].GetDouble(2), c.inputs[1].GetDouble(2));
  EXPECT_LT(ComputeScore(*both), ComputeScore(c));
}

TEST(SimplifyOp, MatmulInputSharedWithAnotherShapeIsInvalid) {
  Candidate c = ParseCandidate(R"(graph @g(%a: f32[2,4], %b: f32[4,2]) {
  %m = matmul(%a, %b) : f32[2,2]
  %r = reshape(%b) {shape=[8]} : f32[8]
  return %m, %r
})");
  // %b shrunk to f32[1,2] no longer reshapes to [8]: the candidate is
  // invalid and dropped (a use that re-infers, like transpose, would be fine).
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0}).substr(0, 6), "error:");
}

TEST(SimplifyOp, ConvShrinksItsInputToOneWindowItsKernelAndItsChannels) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[1,4,6,7], %w: f32[6,2,3,3]) {
  %y = conv2d(%x, %w) {dilations=[1,2], groups=2, pads=[1,0,0,0], strides=[1,1]} : f32[1,6,5,3]
  return %y
})");
  ASSERT_EQ(NumTargets("simplify_op", c), 3);
  // One window: 3 rows less the top padding, 5 columns (dilated span).
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0}), R"(graph @g(%x: f32[1,4,2,5], %w: f32[6,2,3,3]) {
  %y = conv2d(%x, %w) {dilations=[1,2], groups=2, pads=[1,0,0,0], strides=[1,1]} : f32[1,6,1,1]
  return %y
}
)");
  EXPECT_EQ(ApplyReduction("simplify_op", c, {1}), R"(graph @g(%x: f32[1,4,6,7], %w: f32[6,2,1,1]) {
  %y = conv2d(%x, %w) {dilations=[1,2], groups=2, pads=[1,0,0,0], strides=[1,1]} : f32[1,6,7,7]
  return %y
}
)");
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0, 1, 2}), R"(graph @g(%x: f32[1,2,2,5], %w: f32[6,1,1,1]) {
  %y = conv2d(%x, %w) {dilations=[1,2], groups=2, pads=[1,0,0,0], strides=[1,1]} : f32[1,6,3,5]
  return %y
}
)");
  absl::StatusOr<Candidate> all = SimplifyOp(ReductionInput{c}).build(std::vector<int>{0, 1, 2});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_LT(ComputeScore(*all), ComputeScore(c));
}

TEST(SimplifyOp, PoolShrinksItsInputToOneWindow) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[2,3,8,8]) {
  %y = max_pool2d(%x) {dilations=[1,1], kernel=[3,2], pads=[1,1,1,1], strides=[2,2]} : f32[2,3,4,5]
  return %y
})");
  ASSERT_EQ(NumTargets("simplify_op", c), 1);
  EXPECT_EQ(ApplyReduction("simplify_op", c, {0}), R"(graph @g(%x: f32[2,3,1,1]) {
  %y = max_pool2d(%x) {dilations=[1,1], kernel=[3,2], pads=[1,1,1,1], strides=[2,2]} : f32[2,3,1,1]
  return %y
}
)");
}

TEST(SimplifyOp, SimplificationsOfNameTheTargetsItOffers) {
  using compiler::Op;
  using V = std::vector<OpSimplification>;
  EXPECT_EQ(SimplificationsOf(Op::kExp), V{OpSimplification::kForwardOperand});
  EXPECT_EQ(SimplificationsOf(Op::kCumsum), V{OpSimplification::kForwardOperand});
  EXPECT_TRUE(SimplificationsOf(Op::kPad).empty());
  EXPECT_EQ(SimplificationsOf(Op::kLayerNorm), V{OpSimplification::kLowerComposite});
  EXPECT_EQ(SimplificationsOf(Op::kMatmul), V{OpSimplification::kShrinkMatmul});
  EXPECT_EQ(SimplificationsOf(Op::kConv2d),
            (V{OpSimplification::kShrinkWindowInput, OpSimplification::kShrinkConvWeights}));
  EXPECT_EQ(SimplificationsOf(Op::kAvgPool2d), V{OpSimplification::kShrinkWindowInput});
  EXPECT_TRUE(SimplificationsOf(Op::kGather).empty());
  EXPECT_TRUE(SimplificationsOf(Op::kAdd).empty());
  // An op it offers nothing for is never a target.
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4]) {
  %a = add(%x, %x) : f32[4]
  return %a
})");
  EXPECT_EQ(NumTargets("simplify_op", c), 0);
}

}  // namespace
}  // namespace rk::minifier
