#include "minifier/reductions/lower_composites.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

TEST(LowerComposites, OneTargetLowersEveryComposite) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[2,4]) {
  %s = softmax(%x) {axis=1} : f32[2,4]
  %e = exp(%s) : f32[2,4]
  return %e
})");
  EXPECT_EQ(NumTargets("lower_composites", c), 1);
  const std::string lowered = ApplyReduction("lower_composites", c, {0});
  EXPECT_EQ(lowered.find("softmax"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("reduce_max"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("exp("), std::string::npos) << lowered;
}

TEST(LowerComposites, NoTargetWithoutAComposite) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4]) {
  %e = exp(%x) : f32[4]
  return %e
})");
  EXPECT_EQ(NumTargets("lower_composites", c), 0);
}

}  // namespace
}  // namespace rk::minifier
