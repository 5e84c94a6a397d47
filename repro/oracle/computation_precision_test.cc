#include "repro/oracle/computation_precision.h"

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(ComputationPrecisionTest, FollowsPathsNotOutputDtypes) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: bf16[3], %y: f32[3]) {
  %m = reduce_mean(%x) {axes=[0], keepdim=false} : bf16[]
  %e = erf(%m) : bf16[]
  %c = cast(%e) {dtype=f64} : f64[]
  %r = relu(%y) : f32[3]
  return %c, %r, %e
})");
  ASSERT_TRUE(g.ok()) << g.status();
  using compiler::DType;
  EXPECT_EQ(OutputPrecisions(*g), (std::vector<DType>{DType::kBF16, DType::kF32, DType::kBF16}));
}

}  // namespace
}  // namespace rk::repro
