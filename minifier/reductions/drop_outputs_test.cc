#include "minifier/reductions/drop_outputs.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


constexpr char kTwo[] = R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%x) : f32[4]
  return %b, %a
})";

TEST(DropOutputs, TargetsAreOrderedByNodeAndDropDeadCode) {
  Candidate c = ParseCandidate(kTwo);
  EXPECT_EQ(NumTargets("drop_outputs", c), 2);
  // Target 0 is the output of the older node, %a.
  EXPECT_EQ(ApplyReduction("drop_outputs", c, {0}), R"(graph @g(%x: f32[4]) {
  %b = exp(%x) : f32[4]
  return %b
}
)");
  EXPECT_EQ(ApplyReduction("drop_outputs", c, {0, 1}), "error: no outputs left");
}

}  // namespace
}  // namespace rk::minifier
