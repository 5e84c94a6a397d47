// The tiled matmul form (KernelOptions::tiled_matmul, matmul_lowering.cc):
// its structure, and end to end on the CPU (where it is the form used) the
// same bits as the reference interpreter, which sums in f64 over increasing
// k, for full and edge tiles, batches, broadcasting and empty dims.
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "compiler/kernel/kernel_builder.h"
#include "gtest/gtest.h"

namespace rk::compiler::kernel {
namespace {

std::string MatmulGraph(const std::string& dtype, const std::string& a, const std::string& b,
                        const std::string& out) {
  return absl::StrCat("graph @g(%a: ", dtype, a, ", %b: ", dtype, b, ") {\n  %c = matmul(%a, %b) : ",
                      dtype, out, "\n  return %c\n}");
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

TEST(MatmulLoweringTest, TiledFormHasAnL1TileAndEdgeTiles) {
  KernelOptions options;
  options.tiled_matmul = true;
  absl::StatusOr<Program> program = Lower(MatmulGraph("f32", "[6,130]", "[130,67]", "[6,67]"), options);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  const Kernel& k = program->kernels[0];
  ASSERT_EQ(k.locals.size(), 2u);
  EXPECT_EQ(program->buffers[k.locals[0]].type.ToString(), "f64[32]") << "4 x 8 f64 accumulators";
  EXPECT_EQ(program->buffers[k.locals[1]].type.ToString(), "f32[1040]") << "a 130 x 8 panel of b";
  const std::string text = PrintKernel(*program, k);
  // One loop of full 8-column panels, a 3-column edge panel; in each, the
  // k loop packing the panel, a loop of full 4-row tiles and a 2-row edge
  // tile (rows and columns of a tile are unrolled): six k loops in all.
  int k_loops = 0;
  for (size_t at = text.find("in [0, 130)"); at != std::string::npos;
       at = text.find("in [0, 130)", at + 1)) {
    ++k_loops;
  }
  EXPECT_EQ(k_loops, 6) << text;
  EXPECT_NE(text.find("in [0, 3)"), std::string::npos) << text;
  // Without the option: the row form the NVPTX backend matches.
  absl::StatusOr<Program> rows = Lower(MatmulGraph("f32", "[6,130]", "[130,67]", "[6,67]"), {});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->kernels[0].locals.size(), 1u);
  EXPECT_EQ(rows->buffers[rows->kernels[0].locals[0]].type.ToString(), "f64[67]");
}

TEST(MatmulLoweringTest, PanelsTooBigForTheStackAreReadInPlace) {
  KernelOptions options;
  options.tiled_matmul = true;
  absl::StatusOr<Program> program =
      Lower(MatmulGraph("f32", "[2,20000]", "[20000,64]", "[2,64]"), options);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->kernels[0].locals.size(), 1u) << "20000 x 8 f32 is 640 KB: no panel";
}

struct Case {
  const char* a;
  const char* b;
  const char* out;
};

TEST(MatmulLoweringTest, CompiledTilesMatchTheReferenceBitForBit) {
  const Case cases[] = {
      {"[1,1]", "[1,1]", "[1,1]"},
      {"[5,7]", "[7,3]", "[5,3]"},
      {"[6,130]", "[130,67]", "[6,67]"},
      {"[128,128]", "[128,128]", "[128,128]"},
      {"[3,200]", "[200,1]", "[3,1]"},
      {"[1,33]", "[33,129]", "[1,129]"},
      {"[2,3,9,17]", "[17,70]", "[2,3,9,70]"},
      {"[2,1,5,8]", "[3,8,65]", "[2,3,5,65]"},
      {"[4,0]", "[0,5]", "[4,5]"},
      {"[0,3]", "[3,5]", "[0,5]"},
      {"[3,17000]", "[17000,11]", "[3,11]"},  // unpacked panels
  };
  for (const Case& c : cases) {
    for (const char* dtype : {"f32", "f64", "i32"}) {
      const std::string text = MatmulGraph(dtype, c.a, c.b, c.out);
      SCOPED_TRACE(text);
      absl::StatusOr<std::string> mismatch = CompareWithReference(text, {}, 0);
      ASSERT_TRUE(mismatch.ok()) << mismatch.status();
      EXPECT_EQ(*mismatch, "");
    }
  }
  // f16 / bf16 round their f64 sums through f32: within an ulp of the type.
  for (const char* dtype : {"f16", "bf16"}) {
    const std::string text = MatmulGraph(dtype, "[6,130]", "[130,67]", "[6,67]");
    absl::StatusOr<std::string> mismatch =
        CompareWithReference(text, {}, std::string(dtype) == "f16" ? 2e-3 : 1.6e-2);
    ASSERT_TRUE(mismatch.ok()) << mismatch.status();
    EXPECT_EQ(*mismatch, "") << text;
  }
}

TEST(MatmulLoweringTest, ThreadsKeepTheBitsAndFastMathStaysClose) {
  const std::string text = MatmulGraph("f32", "[2,70,300]", "[300,130]", "[2,70,130]");
  CompileOptions threads;
  threads.threads = 2;
  absl::StatusOr<std::string> mismatch = CompareWithReference(text, threads, 0);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
  // fast_math: f32 accumulators, so outputs near zero (sums of 300 products
  // that cancel) carry relative errors of ~1e-3.
  CompileOptions fast;
  fast.fast_math = true;
  mismatch = CompareWithReference(text, fast, 1e-2);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
}

}  // namespace
}  // namespace rk::compiler::kernel
