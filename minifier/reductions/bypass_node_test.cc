#include "minifier/reductions/bypass_node.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(BypassNode, ForwardsUsersToASameTypedOperand) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[1]) {
  %a = add(%x, %y) : f32[4]
  %b = relu(%a) : f32[4]
  return %b
})");
  // (add, %x) and (relu, %a); %y has another shape.
  EXPECT_EQ(NumTargets("bypass_node", c), 2);
  EXPECT_EQ(ApplyReduction("bypass_node", c, {0}), R"(graph @g(%x: f32[4]) {
  %b = relu(%x) : f32[4]
  return %b
}
)");
}

}  // namespace
}  // namespace rk::minifier
