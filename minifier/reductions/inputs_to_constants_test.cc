#include "minifier/reductions/inputs_to_constants.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(InputsToConstants, ZerosOnesAndSplats) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[4]) {
  %a = add(%x, %y) : f32[4]
  return %a
})");
  EXPECT_EQ(NumTargets("inputs_to_constants", c), 6);
  // Targets: x, y as zeros, then as ones, then as splats; x's first choice wins.
  EXPECT_EQ(ApplyReduction("inputs_to_constants", c, {0, 2}).find("value=1.0"),
            std::string::npos);
  EXPECT_EQ(ApplyReduction("inputs_to_constants", c, {1}), R"(graph @g(%x: f32[4]) {
  %1 = full() {dtype=f32, shape=[4], value=0.0} : f32[4]
  %a = add(%x, %1) : f32[4]
  return %a
}
)");
  EXPECT_EQ(ApplyReduction("inputs_to_constants", c, {2}), R"(graph @g(%y: f32[4]) {
  %1 = full() {dtype=f32, shape=[4], value=1.0} : f32[4]
  %a = add(%1, %y) : f32[4]
  return %a
}
)");
}

TEST(InputsToConstants, SingleElementInputsAreNotTargets) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[1,1], %y: f32[2]) {
  %a = add(%x, %y) : f32[1,2]
  return %a
})");
  EXPECT_EQ(NumTargets("inputs_to_constants", c), 3);
  EXPECT_EQ(ApplyReduction("inputs_to_constants", c, {0}), R"(graph @g(%x: f32[1,1]) {
  %1 = full() {dtype=f32, shape=[2], value=0.0} : f32[2]
  %a = add(%x, %1) : f32[1,2]
  return %a
}
)");
}

}  // namespace
}  // namespace rk::minifier
