#include "compiler/kernel/kernel_builder.h"

#include <string>

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler::kernel {
namespace {

TEST(KernelBuilderTest, TransposeBecomesStridedIndex) {
  absl::StatusOr<Graph> graph = Parse(R"(graph @g(%x: f32[3,5]) {
    %t = transpose(%x) {perm=[1,0]} : f32[5,3]
    %n = neg(%t) : f32[5,3]
    return %n
  })");
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<PassContext> context = PassContext::Create({});
  ASSERT_TRUE(context.ok());
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(*graph, *context);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<Program> program = BuildProgram(*graph, *plan, {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  EXPECT_EQ(PrintKernel(*program, program->kernels[0]),
            "kernel k0  // %n (neg) <- %t (transpose)\n"
            "  for i0 in [0, 5) {\n"
            "    for i1 in [0, 3) {\n"
            "      b1[((i0 * 3) + i1)] = neg<f32>(b0[((i1 * 5) + i0)])\n"
            "    }\n"
            "  }\n");
}

absl::StatusOr<Program> Lower(const std::string& text, const KernelOptions& options) {
  absl::StatusOr<Graph> graph = Parse(text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<PassContext> context = PassContext::Create({});
  if (!context.ok()) return context.status();
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(*graph, *context);
  if (!plan.ok()) return plan.status();
  return BuildProgram(*graph, *plan, options);
}

TEST(KernelBuilderTest, TreeOrderFlattensTheReducedAxesIntoOneLoop) {
  const std::string text = R"(graph @g(%x: f32[3,4,5]) {
    %s = reduce_sum(%x) {axes=[0,2], keepdim=false} : f32[4]
    return %s
  })";
  KernelOptions tree;
  tree.reduce_order = AccumulationOrder::kTree;
  absl::StatusOr<Program> program = Lower(text, tree);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  EXPECT_EQ(PrintKernel(*program, program->kernels[0]),
            "kernel k0  // %s (reduce_sum)\n"
            "  acc0: f64\n"
            "  for i0 in [0, 4) {\n"
            "    acc0 = 0:f64\n"
            "    for i3 in [0, 15) {\n"
            "      acc0 = add(acc0, cast<f64>(b0[((((i3 / 5) * 20) + (i0 * 5)) + (i3 % 5))]))  // tree\n"
            "    }\n"
            "    b1[i0] = cast<f32>(acc0)\n"
            "  }\n");
  // Sequential keeps one loop per reduced axis; fast_math reassociates
  // whatever reduce_order says; max is exact in any order, so stays put.
  absl::StatusOr<Program> sequential = Lower(text, {});
  ASSERT_TRUE(sequential.ok());
  EXPECT_EQ(PrintKernel(*sequential, sequential->kernels[0]).find("tree"), std::string::npos);
  tree.fast_math = true;
  absl::StatusOr<Program> fast = Lower(text, tree);
  ASSERT_TRUE(fast.ok());
  EXPECT_NE(PrintKernel(*fast, fast->kernels[0]).find("// reassociated"), std::string::npos);
  tree.fast_math = false;
  absl::StatusOr<Program> max = Lower(R"(graph @g(%x: f32[3,4,5]) {
    %s = reduce_max(%x) {axes=[0,2], keepdim=false} : f32[4]
    return %s
  })", tree);
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(PrintKernel(*max, max->kernels[0]).find("tree"), std::string::npos);
}

TEST(KernelBuilderTest, ReverseExclusiveCumsumIsARowScan) {
  absl::StatusOr<Program> program = Lower(R"(graph @g(%x: f32[2,3]) {
    %c = cumsum(%x) {axis=1, exclusive=true, reverse=true} : f32[2,3]
    return %c
  })", {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  // Rows outside; per row the sum (in f64) is stored, then updated, walking
  // the row from its end: 2 - i1 as (2 * (i1 + 1)) mod 3.
  EXPECT_EQ(PrintKernel(*program, program->kernels[0]),
            "kernel k0  // %c (cumsum)\n"
            "  acc0: f64\n"
            "  for i0 in [0, 2) {\n"
            "    acc0 = 0:f64\n"
            "    for i1 in [0, 3) {\n"
            "      b1[((i0 * 3) + (((i1 + 1) * 2) % 3))] = cast<f32>(acc0)\n"
            "      acc0 = add(acc0, cast<f64>(b0[((i0 * 3) + (((i1 + 1) * 2) % 3))]))\n"
            "    }\n"
            "  }\n");
}

TEST(KernelBuilderTest, PadSelectsItsValueOutsideTheOperand) {
  absl::StatusOr<Program> program = Lower(R"(graph @g(%x: f32[3]) {
    %p = pad(%x) {pads=[2,1], value=-1.0} : f32[6]
    return %p
  })", {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  EXPECT_EQ(PrintKernel(*program, program->kernels[0]),
            "kernel k0  // %p (pad)\n"
            "  for i0 in [0, 6) {\n"
            "    b1[i0] = where<f32>(and<bool>(ge<bool>(i0, 2), lt<bool>(i0, 5)), "
            "b0[((i0 + 1) % 3)], -1:f32)\n"
            "  }\n");
}

}  // namespace
}  // namespace rk::compiler::kernel
