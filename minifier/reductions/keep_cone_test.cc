#include "minifier/reductions/keep_cone.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

// Two independent chains: a cone keeps one of them.
constexpr char kTwoChains[] = R"(graph @g(%x: f32[4], %y: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%y) : f32[4]
  %c = relu(%a) : f32[4]
  %d = add(%b, %b) : f32[4]
  %e = mul(%c, %x) : f32[4]
  return %d, %e
})";

TEST(KeepCone, KeepsOneValueAndOnlyWhatComputesIt) {
  Candidate c = ParseCandidate(kTwoChains);
  EXPECT_EQ(NumTargets("keep_cone", c), 5);
  EXPECT_EQ(ApplyReduction("keep_cone", c, {2}), R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %c = relu(%a) : f32[4]
  return %c
}
)");
  EXPECT_EQ(ApplyReduction("keep_cone", c, {3}), R"(graph @g(%y: f32[4]) {
  %b = exp(%y) : f32[4]
  %d = add(%b, %b) : f32[4]
  return %d
}
)");
}

TEST(KeepCone, TheLastNodesConeDropsTheOtherOutputs) {
  Candidate c = ParseCandidate(kTwoChains);
  EXPECT_EQ(ApplyReduction("keep_cone", c, {4}), R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %c = relu(%a) : f32[4]
  %e = mul(%c, %x) : f32[4]
  return %e
}
)");
}

}  // namespace
}  // namespace rk::minifier
