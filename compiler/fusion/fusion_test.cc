#include "compiler/fusion/fusion.h"

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler::fusion {
namespace {

FusionPlan Plan(const std::string& text, const CompileOptions& options = {}) {
  absl::StatusOr<Graph> graph = Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  EXPECT_TRUE(context.ok());
  absl::StatusOr<FusionPlan> plan = PlanFusion(*graph, *context);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

constexpr char kSoftmax[] = R"(graph @g(%x: f32[8,128]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
  %d = sub(%x, %m) : f32[8,128]
  %e = exp(%d) : f32[8,128]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
  %y = div(%e, %s) : f32[8,128]
  return %y
})";

TEST(FusionTest, SoftmaxIsTwoKernels) {
  FusionPlan plan = Plan(kSoftmax);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].kind, GroupKind::kReduction);  // max
  EXPECT_TRUE(plan.groups[1].reduction.valid());         // sum fused with div
  EXPECT_EQ(plan.groups[1].outer_dims, 1);
  EXPECT_EQ(plan.groups[1].detail, "%s (reduce_sum) + epilogue %y (div) <- %d (sub), %e (exp)");
}

TEST(FusionTest, CapRefusesFusion) {
  CompileOptions options;
  options.max_pass_applications = 0;
  FusionPlan plan = Plan(kSoftmax, options);
  EXPECT_EQ(plan.groups.size(), 5u);
}

TEST(FusionTest, SharedExpensiveValueIsMaterialized) {
  FusionPlan plan = Plan(R"(graph @g(%x: f32[4]) {
    %e = exp(%x) : f32[4]
    %a = reduce_sum(%e) {axes=[0], keepdim=false} : f32[]
    %b = reduce_max(%e) {axes=[0], keepdim=false} : f32[]
    return %a, %b
  })");
  EXPECT_EQ(plan.groups.size(), 3u);
  EXPECT_TRUE(plan.materialized[1]);
}

TEST(FusionTest, CumsumRootsItsGroupAndPadFusesAsAnIndexMap) {
  FusionPlan plan = Plan(R"(graph @g(%x: f32[4,8]) {
    %e = exp(%x) : f32[4,8]
    %c = cumsum(%e) {axis=1, exclusive=false, reverse=false} : f32[4,8]
    %p = pad(%c) {pads=[1,0,0,2], value=0.0} : f32[5,10]
    %n = neg(%p) : f32[5,10]
    return %n
  })");
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].kind, GroupKind::kScan);
  EXPECT_EQ(plan.groups[0].detail, "%c (cumsum) <- %e (exp)");
  EXPECT_EQ(plan.groups[1].kind, GroupKind::kElementwise);
  EXPECT_EQ(plan.groups[1].detail, "%n (neg) <- %p (pad)");
}

}  // namespace
}  // namespace rk::compiler::fusion
