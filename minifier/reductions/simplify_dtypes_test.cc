#include "minifier/reductions/simplify_dtypes.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {


TEST(SimplifyDtypes, RewritesOneLowPrecisionDtypeToF32) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f16[4], %y: bf16[4]) {
  %a = exp(%x) : f16[4]
  %b = cast(%a) {dtype=bf16} : bf16[4]
  %c = add(%b, %y) : bf16[4]
  return %c
})");
  EXPECT_EQ(NumTargets("simplify_dtypes", c), 2);
  EXPECT_EQ(ApplyReduction("simplify_dtypes", c, {0}), R"(graph @g(%x: f32[4], %y: bf16[4]) {
  %a = exp(%x) : f32[4]
  %b = cast(%a) {dtype=bf16} : bf16[4]
  %c = add(%b, %y) : bf16[4]
  return %c
}
)");
  EXPECT_EQ(ApplyReduction("simplify_dtypes", c, {0, 1}), R"(graph @g(%x: f32[4], %y: f32[4]) {
  %a = exp(%x) : f32[4]
  %b = cast(%a) {dtype=f32} : f32[4]
  %c = add(%b, %y) : f32[4]
  return %c
}
)");
}

}  // namespace
}  // namespace rk::minifier
