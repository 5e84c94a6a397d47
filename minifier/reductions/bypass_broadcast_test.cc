#include "minifier/reductions/bypass_broadcast.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

// A keepdim reduction broadcast by a mul into a cast (fuse:wrong_index's
// shape on mixed_bf16.rk before its minimum).
constexpr char kKeepdimMul[] = R"(graph @g(%x: f32[2,8], %k: f32[2,8]) {
  %m = reduce_mean(%x) {axes=[1], keepdim=true} : f32[2,1]
  %p = mul(%k, %m) : f32[2,8]
  %y = cast(%p) {dtype=bf16} : bf16[2,8]
  return %y
})";

TEST(BypassBroadcast, ForwardsUsersToTheSmallerOperandAndReinfersTypes) {
  Candidate c = ParseCandidate(kKeepdimMul);
  // (mul, %m), and the same dropping %m's kept dim; %k has the mul's type
  // (bypass_node's target) and goes with the mul, its only user.
  EXPECT_EQ(NumTargets("bypass_broadcast", c), 2);
  EXPECT_EQ(ApplyReduction("bypass_broadcast", c, {0}), R"(graph @g(%x: f32[2,8]) {
  %m = reduce_mean(%x) {axes=[1], keepdim=true} : f32[2,1]
  %y = cast(%m) {dtype=bf16} : bf16[2,1]
  return %y
}
)");
}

TEST(BypassBroadcast, AKeepdimReductionCanDropItsKeptDims) {
  Candidate c = ParseCandidate(kKeepdimMul);
  EXPECT_EQ(ApplyReduction("bypass_broadcast", c, {1}), R"(graph @g(%x: f32[2,8]) {
  %m = reduce_mean(%x) {axes=[1], keepdim=false} : f32[2]
  %y = cast(%m) {dtype=bf16} : bf16[2]
  return %y
}
)");
  // Read by another node too: no second target.
  Candidate shared = ParseCandidate(R"(graph @g(%x: f32[2,8], %k: f32[2,8]) {
  %m = reduce_mean(%x) {axes=[1], keepdim=true} : f32[2,1]
  %p = mul(%k, %m) : f32[2,8]
  %q = exp(%m) : f32[2,1]
  return %p, %q
})");
  EXPECT_EQ(NumTargets("bypass_broadcast", shared), 1);
}

TEST(BypassBroadcast, AUserThatRejectsTheSmallerTypeIsInvalid) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[2,4], %b: f32[4]) {
  %a = add(%x, %b) : f32[2,4]
  %r = reshape(%a) {shape=[8]} : f32[8]
  return %r
})");
  ASSERT_EQ(NumTargets("bypass_broadcast", c), 1);
  EXPECT_EQ(ApplyReduction("bypass_broadcast", c, {0}).rfind("error: ", 0), 0u);
}

TEST(BypassBroadcast, NoTargetsWithoutBroadcasting) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[4]) {
  %a = add(%x, %y) : f32[4]
  %i = cast(%a) {dtype=i32} : i32[4]
  return %i
})");
  EXPECT_EQ(NumTargets("bypass_broadcast", c), 0);
}

}  // namespace
}  // namespace rk::minifier
