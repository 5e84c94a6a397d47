// The backward-only planted faults (vjp:<op>:<kind>): each makes the gradient
// check fail on a graph of its op and leaves the forward outputs unchanged.
#include <string>
#include <vector>

#include "compiler/autodiff/gradient_check_test_util.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"

namespace rk::compiler::autodiff {
namespace {

struct FaultCase {
  std::string fault;
  std::string graph;
};

const FaultCase kCases[] = {
    {"vjp:transpose:wrong_perm", R"(graph @f(%x: f64[2,3,4] grad) {
  %y = transpose(%x) {perm=[1,2,0]} : f64[3,4,2]
  return %y
})"},
    {"vjp:reduce_sum:drop_broadcast", R"(graph @f(%x: f64[3,4] grad) {
  %y = reduce_sum(%x) {axes=[1], keepdim=false} : f64[3]
  return %y
})"},
    {"vjp:matmul:reshape_transpose", R"(graph @f(%a: f64[2,3] grad, %b: f64[3,4] grad) {
  %y = matmul(%a, %b) : f64[2,4]
  return %y
})"},
    {"vjp:softmax:drop_sum", R"(graph @f(%x: f64[2,5] grad) {
  %y = softmax(%x) {axis=1} : f64[2,5]
  return %y
})"},
    {"vjp:mul:swap_operands", R"(graph @f(%a: f64[4] grad, %b: f64[4] grad) {
  %y = mul(%a, %b) : f64[4]
  return %y
})"},
};

TEST(VjpFaultsTest, EachFaultBreaksOnlyTheGradient) {
  for (const FaultCase& c : kCases) {
    SCOPED_TRACE(c.fault);
    absl::StatusOr<Graph> forward = Parse(c.graph);
    ASSERT_TRUE(forward.ok()) << forward.status();
    std::vector<HostTensor> inputs = SeededInputs(*forward, 9);
    const GradSpec spec = GradSpecFromMarks(*forward);

    absl::StatusOr<GradientCheckResult> clean = CheckGradients(*forward, spec, inputs, {}, 9);
    ASSERT_TRUE(clean.ok()) << clean.status();
    EXPECT_EQ(clean->mismatch, "");

    AutodiffOptions options;
    absl::StatusOr<FaultSet> faults = FaultSet::Parse({c.fault});
    ASSERT_TRUE(faults.ok()) << faults.status();
    options.faults = *faults;
    absl::StatusOr<GradientCheckResult> faulty = CheckGradients(*forward, spec, inputs, options, 9);
    ASSERT_TRUE(faulty.ok()) << faulty.status();
    EXPECT_NE(faulty->mismatch, "") << "the fault must change a gradient";
    EXPECT_TRUE(faulty->forward_equal);
    ASSERT_EQ(faulty->joint_outputs.size(), clean->joint_outputs.size());
    EXPECT_TRUE(faulty->joint_outputs[0].BitwiseEqual(clean->joint_outputs[0]));
  }
}

// A fault on another op leaves a graph's gradients alone.
TEST(VjpFaultsTest, FaultsFireOnlyOnTheirOp) {
  absl::StatusOr<Graph> forward = Parse(kCases[0].graph);
  ASSERT_TRUE(forward.ok());
  AutodiffOptions options;
  options.faults = *FaultSet::Parse({"vjp:mul:swap_operands", "vjp:softmax:drop_sum"});
  absl::StatusOr<GradientCheckResult> r = CheckGradients(
      *forward, GradSpecFromMarks(*forward), SeededInputs(*forward, 1), options, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mismatch, "");
}

}  // namespace
}  // namespace rk::compiler::autodiff
