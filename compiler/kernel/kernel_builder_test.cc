// Kernel IR text of small graphs: index maps, reduction orders, gather,
// conv2d and the pools.
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

TEST(KernelBuilderTest, GatherClampsTheLoadedIndexAndSelectsZeroOutOfRange) {
  absl::StatusOr<Program> program = Lower(R"(graph @g(%t: f32[5,2], %i: i32[3]) {
    %y = gather(%t, %i) {axis=0} : f32[3,2]
    return %y
  })", {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  const std::string text = PrintKernel(*program, program->kernels[0]);
  // k = i[i0] widened; k + 5 when negative; the row read at the clamped
  // position (0 when out of range), the value selected to 0 there.
  const std::string k = "cast<i64>(b1[i0])";
  const std::string wrapped = "where<i64>(lt<bool>(" + k + ", 0), add<i64>(" + k + ", 5), " + k + ")";
  const std::string in_range =
      "and<bool>(ge<bool>(" + wrapped + ", 0), lt<bool>(" + wrapped + ", 5))";
  EXPECT_EQ(text, "kernel k0  // %y (gather)\n"
                  "  for i0 in [0, 3) {\n"
                  "    for i1 in [0, 2) {\n"
                  "      b2[((i0 * 2) + i1)] = where<f32>(" + in_range + ", b0[((where<i64>(" +
                      in_range + ", " + wrapped + ", 0) * 2) + i1)], 0:f32)\n"
                  "    }\n"
                  "  }\n");
}

TEST(KernelBuilderTest, ConvIsAReductionPerOutputWithCheckedPaddedTaps) {
  absl::StatusOr<Program> program = Lower(R"(graph @g(%x: f32[1,4,5,5], %w: f32[6,2,3,3]) {
    %y = conv2d(%x, %w) {dilations=[1,1], groups=2, pads=[1,0,0,0], strides=[2,2]} : f32[1,6,2,2]
    return %y
  })", {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  // Per output (o, ho, wo): the 2 channels of o's group (o / 3) by 3x3 taps.
  // Only the top can be padding (the last window ends at padded row 4 of
  // 6): rows below 1 read row 0 and add 0; columns are never checked.
  const std::string row = "((i1 * 2) + i4)";
  const std::string real_row = "ge<bool>(" + row + ", 1)";
  EXPECT_EQ(PrintKernel(*program, program->kernels[0]),
            "kernel k0  // %y (conv2d)\n"
            "  acc0: f64\n"
            "  for i0 in [0, 6) {\n"
            "    for i1 in [0, 2) {\n"
            "      for i2 in [0, 2) {\n"
            "        acc0 = 0:f64\n"
            "        for i3 in [0, 2) {\n"
            "          for i4 in [0, 3) {\n"
            "            for i5 in [0, 3) {\n"
            "              acc0 = add(acc0, where<f64>(" + real_row +
                ", mul<f64>(cast<f64>(b0[((((((i0 / 3) * 2) + i3) * 25) + (where<i64>(" + real_row +
                ", sub<i64>(" + row + ", 1), 0) * 5)) + ((i2 * 2) + i5))]), "
                "cast<f64>(b1[((((i0 * 18) + (i3 * 9)) + (i4 * 3)) + i5)])), 0:f64))\n"
            "            }\n"
            "          }\n"
            "        }\n"
            "        b2[(((i0 * 4) + (i1 * 2)) + i2)] = cast<f32>(acc0)\n"
            "      }\n"
            "    }\n"
            "  }\n");
}

TEST(KernelBuilderTest, PoolsSelectTheirPaddingValue) {
  absl::StatusOr<Program> program = Lower(R"(graph @g(%x: f32[1,1,4,4]) {
    %m = max_pool2d(%x) {dilations=[1,1], kernel=[2,2], pads=[1,1,1,1], strides=[2,2]} : f32[1,1,3,3]
    %a = avg_pool2d(%x) {count_include_pad=false, kernel=[2,2], pads=[1,1,1,1], strides=[2,2]} : f32[1,1,3,3]
    return %m, %a
  })", {});
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 2u);
  // Both check rows and columns against [1, 5) in padded coordinates.
  const std::string max = PrintKernel(*program, program->kernels[0]);
  EXPECT_NE(max.find("acc0 = -inf:f32\n"), std::string::npos) << max;
  EXPECT_NE(max.find("acc0 = maximum(acc0, where<f32>(and<bool>(and<bool>(ge<bool>(((i0 * 2) + i2), 1), "
                     "lt<bool>(((i0 * 2) + i2), 5)), "),
            std::string::npos)
      << max;
  EXPECT_NE(max.find(", -inf:f32))\n"), std::string::npos) << max;
  // The average divides by the real taps per axis: 1 at the edges, 2 inside.
  const std::string avg = PrintKernel(*program, program->kernels[1]);
  EXPECT_NE(avg.find("acc0 = add(acc0, where<f64>("), std::string::npos) << avg;
  EXPECT_NE(avg.find("= cast<f32>(div<f64>(acc0, cast<f64>(mul<i64>("
                     "maximum<i64>(sub<i64>(minimum<i64>(((i0 * 2) + 2), 5), maximum<i64>((i0 * 2), 1)), 0), "
                     "maximum<i64>(sub<i64>(minimum<i64>(((i1 * 2) + 2), 5), maximum<i64>((i1 * 2), 1)), 0)))))"),
            std::string::npos)
      << avg;
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
