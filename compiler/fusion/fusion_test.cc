#include "compiler/fusion/fusion.h"

#include <string>

#include "absl/strings/str_cat.h"
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

// A value read at several indices inside one group (the taps of a gradient
// rule) is materialized past 2 of them, so chains of such reads cannot
// multiply a kernel's size (docs/BENCHMARKS_HISTORY.md, "Autodiff: joint
// graphs").
TEST(FusionTest, ValueReadAtManyIndicesIsMaterialized) {
  const std::string taps = R"(graph @g(%x: f32[8]) {
    %e = exp(%x) : f32[8]
    %a = slice(%e) {limit=[4], start=[0], stride=[1]} : f32[4]
    %b = slice(%e) {limit=[5], start=[1], stride=[1]} : f32[4]
    %c = slice(%e) {limit=[6], start=[2], stride=[1]} : f32[4]
    %s = add(%a, %b) : f32[4]
    %t = add(%s, %c) : f32[4]
    return %t
  })";
  FusionPlan plan = Plan(taps);
  EXPECT_TRUE(plan.materialized[1]) << "exp read at 3 indices";
  ASSERT_EQ(plan.groups.size(), 2u);
  // Two taps: computed at both, as before.
  FusionPlan two = Plan(R"(graph @g(%x: f32[8]) {
    %e = exp(%x) : f32[8]
    %a = slice(%e) {limit=[4], start=[0], stride=[1]} : f32[4]
    %b = slice(%e) {limit=[5], start=[1], stride=[1]} : f32[4]
    %s = add(%a, %b) : f32[4]
    return %s
  })");
  EXPECT_FALSE(two.materialized[1]);
  EXPECT_EQ(two.groups.size(), 1u);
  // Users at the exp's own index share one evaluation.
  FusionPlan shared = Plan(R"(graph @g(%x: f32[8]) {
    %e = exp(%x) : f32[8]
    %a = mul(%e, %e) : f32[8]
    %b = add(%a, %e) : f32[8]
    %c = sub(%b, %e) : f32[8]
    return %c
  })");
  EXPECT_FALSE(shared.materialized[1]);
  EXPECT_EQ(shared.groups.size(), 1u);
}

TEST(FusionTest, GatherFusesLikeAnElementwiseOp) {
  // The table's exp fuses into the gather (computed only at gathered rows),
  // the gather into the add; a matmul operand is materialized.
  FusionPlan plan = Plan(R"(graph @g(%t: f32[16,4], %i: i64[2,3], %w: f32[4,4]) {
    %e = exp(%t) : f32[16,4]
    %g = gather(%e, %i) {axis=0} : f32[2,3,4]
    %a = add(%g, %g) : f32[2,3,4]
    %m = matmul(%g, %w) : f32[2,3,4]
    return %a, %m
  })");
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(plan.groups[0].detail, "%g (gather) <- %e (exp)");
  EXPECT_EQ(plan.groups[1].detail, "%a (add)");
  EXPECT_EQ(plan.groups[2].kind, GroupKind::kMatmul);
  FusionPlan single = Plan(R"(graph @g(%t: f32[16,4], %i: i64[2,3]) {
    %e = exp(%t) : f32[16,4]
    %g = gather(%e, %i) {axis=0} : f32[2,3,4]
    %a = neg(%g) : f32[2,3,4]
    return %a
  })");
  ASSERT_EQ(single.groups.size(), 1u);
  EXPECT_EQ(single.groups[0].detail, "%a (neg) <- %e (exp), %g (gather)");
}

TEST(FusionTest, WindowOpsRootTheirGroupsAndFuseOnlyLayoutOperands) {
  // The transposed weights become strides; the exp is materialized (each
  // element is read by many windows); bias and relu form the next group.
  FusionPlan plan = Plan(R"(graph @g(%x: f32[1,2,6,6], %w: f32[2,3,3,3], %b: f32[3,1,1]) {
    %e = exp(%x) : f32[1,2,6,6]
    %t = transpose(%w) {perm=[1,0,2,3]} : f32[3,2,3,3]
    %c = conv2d(%e, %t) {dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[1,1]} : f32[1,3,6,6]
    %a = add(%c, %b) : f32[1,3,6,6]
    %r = relu(%a) : f32[1,3,6,6]
    %p = max_pool2d(%r) {dilations=[1,1], kernel=[2,2], pads=[0,0,0,0], strides=[2,2]} : f32[1,3,3,3]
    return %p
  })");
  ASSERT_EQ(plan.groups.size(), 4u);
  EXPECT_EQ(plan.groups[0].detail, "%e (exp)");
  EXPECT_EQ(plan.groups[1].kind, GroupKind::kWindow);
  EXPECT_EQ(plan.groups[1].detail, "%c (conv2d) <- %t (transpose)");
  EXPECT_EQ(plan.groups[2].detail, "%r (relu) <- %a (add)");
  EXPECT_EQ(plan.groups[3].kind, GroupKind::kWindow);
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

// bench/cli_compile_latency.py's chain: add y, mul y, tanh, sub y, sigmoid in
// turn, `ops` ops in all, with a transpose pair (cheap layout ops) after every
// 10th but the last.
std::string Chain(int ops) {
  const char* forms[] = {"add(%s, %y)", "mul(%s, %y)", "tanh(%s)", "sub(%s, %y)", "sigmoid(%s)"};
  std::string text = "graph @chain(%x: f32[8,8], %y: f32[8,8]) {\n";
  std::string prev = "%x";
  for (int i = 0; i < ops; ++i) {
    std::string op = forms[i % 5];
    op.replace(op.find("%s"), 2, prev);
    absl::StrAppend(&text, "  %v", i, " = ", op, " : f32[8,8]\n");
    prev = absl::StrCat("%v", i);
    if (i % 10 == 9 && i + 1 < ops) {
      absl::StrAppend(&text, "  %t", i, " = transpose(", prev, ") {perm=[1,0]} : f32[8,8]\n",
                      "  %u", i, " = transpose(%t", i, ") {perm=[1,0]} : f32[8,8]\n");
      prev = absl::StrCat("%u", i);
    }
  }
  absl::StrAppend(&text, "  return ", prev, "\n}\n");
  return text;
}

// Non-cheap ops a group computes: its root and its members but layout ops.
int HeavyOps(const Graph& graph, const FusionGroup& group) {
  int ops = 1;
  for (NodeId m : group.members) ops += graph.node(m).op != Op::kTranspose;
  return ops;
}

TEST(FusionTest, CudaKernelsComputeAtMostTheCapOfOps) {
  const std::string text = Chain(1000);
  const Graph graph = *Parse(text);
  CompileOptions cuda;
  cuda.device = "cuda";
  ASSERT_EQ(cuda.cuda_max_fused_ops, 144);  // docs/GPU.md names this default
  FusionPlan plan = Plan(text, cuda);
  // 1,000 ops in groups of 144 from the output back: 6 full ones and 136.
  ASSERT_EQ(plan.groups.size(), 7u);
  EXPECT_EQ(HeavyOps(graph, plan.groups[0]), 1000 - 6 * 144);
  for (size_t g = 1; g < plan.groups.size(); ++g) {
    EXPECT_EQ(HeavyOps(graph, plan.groups[g]), 144) << "group " << g;
  }
  // Every op is computed once: the cut materializes one value per boundary.
  int total = 0;
  for (const FusionGroup& group : plan.groups) total += HeavyOps(graph, group);
  EXPECT_EQ(total, 1000);

  cuda.cuda_max_fused_ops = 100;
  EXPECT_EQ(Plan(text, cuda).groups.size(), 10u);
  cuda.cuda_max_fused_ops = 0;  // no cap
  EXPECT_EQ(Plan(text, cuda).groups.size(), 1u);
}

TEST(FusionTest, TheCpuAndShortCudaChainsAreNotCut) {
  EXPECT_EQ(Plan(Chain(1000)).groups.size(), 1u);  // device=cpu
  CompileOptions cuda;
  cuda.device = "cuda";
  EXPECT_EQ(Plan(Chain(144), cuda).groups.size(), 1u);
  EXPECT_EQ(Plan(Chain(145), cuda).groups.size(), 2u);
  EXPECT_EQ(Plan(kSoftmax, cuda).groups.size(), Plan(kSoftmax).groups.size());
}

TEST(FusionTest, TheCapIsAnOptionWithItsDefaultOmitted) {
  CompileOptions options;
  EXPECT_EQ(options.ToString(), "");
  ASSERT_TRUE(options.Set("cuda_max_fused_ops", "64").ok());
  EXPECT_EQ(options.ToString(), "cuda_max_fused_ops=64");
  EXPECT_FALSE(options.Set("cuda_max_fused_ops", "-1").ok());
}

}  // namespace
}  // namespace rk::compiler::fusion
