#include "minifier/reductions/truncate_tail.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


constexpr char kChain[] = R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = relu(%b) : f32[4]
  %d = add(%c, %a) : f32[4]
  return %d
})";

TEST(TruncateTail, KeepsThePrefixAndReturnsWhatCrossesTheCut) {
  Candidate c = ParseCandidate(kChain);
  EXPECT_EQ(NumTargets("truncate_tail", c), 3);
  EXPECT_EQ(ApplyReduction("truncate_tail", c, {1}), R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  return %a, %b
}
)");
  EXPECT_EQ(ApplyReduction("truncate_tail", c, {2}), R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = relu(%b) : f32[4]
  return %a, %c
}
)");
}

}  // namespace
}  // namespace rk::minifier
