#include "minifier/reductions/shrink_shapes.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(ShrinkShapes, LevelsRunFromAllOnesToHalving) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[8,3], %w: f32[3]) {
  %a = mul(%x, %w) : f32[8,3]
  return %a
})");
  EXPECT_EQ(NumTargets("shrink_shapes", c), 4);
  EXPECT_EQ(ApplyReduction("shrink_shapes", c, {3}), R"(graph @g(%x: f32[4,2], %w: f32[2]) {
  %a = mul(%x, %w) : f32[4,2]
  return %a
}
)");
  EXPECT_EQ(ApplyReduction("shrink_shapes", c, {1}), R"(graph @g(%x: f32[1,1], %w: f32[1]) {
  %a = mul(%x, %w) : f32[1,1]
  return %a
}
)");
}

TEST(ShrinkShapes, TargetZeroDropsTheSizeOneDims) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[8,3], %w: f32[3]) {
  %a = mul(%x, %w) : f32[8,3]
  return %a
})");
  EXPECT_EQ(ApplyReduction("shrink_shapes", c, {0}), R"(graph @g(%x: f32[], %w: f32[]) {
  %a = mul(%x, %w) : f32[]
  return %a
}
)");
  // Reduction axes that no longer exist make it invalid; all-ones still fits.
  Candidate r = ParseCandidate(R"(graph @g(%x: f32[4,4]) {
  %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[4]
  return %s
})");
  EXPECT_EQ(ApplyReduction("shrink_shapes", r, {0}).substr(0, 6), "error:");
  EXPECT_EQ(ApplyReduction("shrink_shapes", r, {1}), R"(graph @g(%x: f32[1,1]) {
  %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[1]
  return %s
}
)");
}

TEST(ShrinkShapes, ValuesAreTheLeadingBlock) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4,4]) {
  %a = neg(%x) : f32[4,4]
  return %a
})");
  absl::StatusOr<Candidate> small = ShrinkShapes(ReductionInput{c}).build(std::vector<int>{2});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->inputs[0].GetDouble(1), c.inputs[0].GetDouble(1));
  EXPECT_EQ(small->inputs[0].GetDouble(2), c.inputs[0].GetDouble(4));
}

TEST(ShrinkShapes, ShapeAttributesThatNoLongerFitAreInvalid) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4,4]) {
  %a = reshape(%x) {shape=[16]} : f32[16]
  return %a
})");
  EXPECT_EQ(ApplyReduction("shrink_shapes", c, {2}).substr(0, 6), "error:");
}

}  // namespace
}  // namespace rk::minifier
