#include "minifier/reductions/remove_unused_inputs.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(RemoveUnusedInputs, DropsOnlyUnreadInputs) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[2], %z: f32[4]) {
  %a = neg(%z) : f32[4]
  return %a, %x
})");
  EXPECT_EQ(NumTargets("remove_unused_inputs", c), 1);
  EXPECT_EQ(ApplyReduction("remove_unused_inputs", c, {0}), R"(graph @g(%x: f32[4], %z: f32[4]) {
  %a = neg(%z) : f32[4]
  return %a, %x
}
)");
}

}  // namespace
}  // namespace rk::minifier
