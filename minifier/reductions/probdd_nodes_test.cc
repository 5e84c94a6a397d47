#include "minifier/reductions/probdd_nodes.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(ProbDdNodes, RemovedNodesBecomeInputsAndTheirOnlyOperandsGo) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = relu(%b) : f32[4]
  return %c
})");
  EXPECT_EQ(NumTargets("probdd_nodes", c), 3);
  EXPECT_EQ(ApplyReduction("probdd_nodes", c, {1}), R"(graph @g(%b: f32[4]) {
  %c = relu(%b) : f32[4]
  return %c
}
)");
  EXPECT_EQ(ApplyReduction("probdd_nodes", c, {0}), R"(graph @g(%a: f32[4]) {
  %b = exp(%a) : f32[4]
  %c = relu(%b) : f32[4]
  return %c
}
)");
}

}  // namespace
}  // namespace rk::minifier
