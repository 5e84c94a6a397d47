#include "compiler/kernel/kernel_builder.h"

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

}  // namespace
}  // namespace rk::compiler::kernel
