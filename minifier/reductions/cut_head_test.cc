#include "minifier/reductions/cut_head.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"
#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {


constexpr char kChain[] = R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = relu(%b) : f32[4]
  %d = add(%c, %a) : f32[4]
  return %d
})";

TEST(CutHead, FeedsTheCutValuesAsNewInputs) {
  Candidate c = ParseCandidate(kChain);
  EXPECT_EQ(NumTargets("cut_head", c), 3);
  EXPECT_EQ(ApplyReduction("cut_head", c, {1}), R"(graph @g(%a: f32[4], %b: f32[4]) {
  %c = relu(%b) : f32[4]
  %d = add(%c, %a) : f32[4]
  return %d
}
)");
}

TEST(CutHead, NewInputsHoldTheRecordedValues) {
  Candidate c = ParseCandidate(kChain);
  std::vector<compiler::HostTensor> values = *RecordValues(c, false);
  TestValues recorded = RecordTestValues(c);
  ReductionPlan plan = CutHead(ReductionInput{c, recorded.values.get()});
  absl::StatusOr<Candidate> cut = plan.build(std::vector<int>{0});
  ASSERT_TRUE(cut.ok()) << cut.status();
  // %x has no user left and goes with the cut nodes.
  ASSERT_EQ(cut->inputs.size(), 2u);
  EXPECT_TRUE(cut->inputs[0].BitwiseEqual(values[1]));
  EXPECT_TRUE(cut->inputs[1].BitwiseEqual(values[3]));
}

}  // namespace
}  // namespace rk::minifier
