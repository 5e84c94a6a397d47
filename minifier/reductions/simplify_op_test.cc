#include "minifier/reductions/simplify_op.h"

#include "gtest/gtest.h"
#include "minifier/test_util.h"

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
  std::vector<compiler::HostTensor> values;
  absl::StatusOr<Candidate> lowered = SimplifyOp(ReductionInput{c, values}).build(std::vector<int>{0});
  ASSERT_TRUE(lowered.ok());
  EXPECT_LT(ComputeScore(*lowered), ComputeScore(c));
}

}  // namespace
}  // namespace rk::minifier
