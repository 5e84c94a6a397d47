// The two-pass plan (split_rows.h) on kernels lowered from small graphs: when
// rows split, how many chunks, that chunks tile a row exactly, the scratch
// layout. No GPU needed.
#include "compiler/cuda/planning/split_rows.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// The plan of the program's only kernel (or of kernel `k`).
std::optional<SplitRows> Plan(const std::string& text, size_t k = 0) {
  absl::StatusOr<kernel::Program> program = LowerToKernelIr(text);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok() || program->kernels.size() <= k) return std::nullopt;
  return PlanSplitRows(AnalyzeKernel(*program, program->kernels[k]));
}

std::string ReduceSum(const std::string& type, const std::string& axes, const std::string& out) {
  return absl::StrCat("graph @g(%x: ", type, ") {\n %s = reduce_sum(%x) {axes=", axes,
                      ", keepdim=false} : ", out, "\n return %s\n}");
}

TEST(SplitRowsTest, FullReductionFillsTheGpu) {
  std::optional<SplitRows> p = Plan(ReduceSum("f32[67108864]", "[0]", "f32[]"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->rows, 1);
  EXPECT_EQ(p->points, 67108864);
  EXPECT_EQ(p->chunks, kSplitTargetBlocks);
  EXPECT_EQ(p->chunk_points % kChunkAlign, 0);
  EXPECT_GE(p->chunks * p->chunk_points, p->points);
  EXPECT_LT((p->chunks - 1) * p->chunk_points, p->points);  // no empty chunk
  EXPECT_EQ(p->epilogue_chunks, 1);                          // a scalar epilogue
  EXPECT_FALSE(p->argmax);
  EXPECT_EQ(p->scratch_bytes(), kSplitTargetBlocks * 8);
}

TEST(SplitRowsTest, FewLongRowsSplitUpToTheTargetBlockCount) {
  std::optional<SplitRows> p = Plan(ReduceSum("f32[64,1048576]", "[1]", "f32[64]"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->rows, 64);
  EXPECT_EQ(p->chunks, 16);  // 1056 / 64: at most one wave of kSplitTargetBlocks
  EXPECT_EQ(p->chunk_points, 65536);
  EXPECT_EQ(p->scratch_bytes(), 64 * 16 * 8);
  std::optional<SplitRows> q = Plan(ReduceSum("f32[200,1048576]", "[1]", "f32[200]"));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->chunks, 5);
  EXPECT_LE(q->rows * q->chunks, kSplitTargetBlocks);
  // An odd row: chunks are still aligned and cover it exactly.
  std::optional<SplitRows> odd = Plan(ReduceSum("f32[4,3000001]", "[1]", "f32[4]"));
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->rows, 4);
  EXPECT_EQ(odd->chunks, 3000001 / kMinChunkPoints);  // capped by the chunk minimum
  EXPECT_GE(odd->chunks * odd->chunk_points, 3000001);
  EXPECT_LT((odd->chunks - 1) * odd->chunk_points, 3000001);
}

TEST(SplitRowsTest, ShortOrManyRowsKeepTheOnePassForm) {
  EXPECT_FALSE(Plan(ReduceSum("f32[300,70]", "[0,1]", "f32[]")).has_value());
  EXPECT_FALSE(Plan(ReduceSum("f32[8,65535]", "[1]", "f32[8]")).has_value());
  EXPECT_TRUE(Plan(ReduceSum("f32[8,65536]", "[1]", "f32[8]")).has_value());
  EXPECT_TRUE(Plan(ReduceSum("f32[263,65536]", "[1]", "f32[263]")).has_value());
  EXPECT_FALSE(Plan(ReduceSum("f32[264,65536]", "[1]", "f32[264]")).has_value());
  // Not row reductions.
  EXPECT_FALSE(Plan(R"(graph @g(%x: f32[1048576]) {
    %y = exp(%x) : f32[1048576]
    return %y
  })")
                   .has_value());
}

TEST(SplitRowsTest, ArgmaxPartialsCarryIndices) {
  std::optional<SplitRows> p = Plan(R"(graph @g(%x: f32[5000000]) {
    %a = argmax(%x) {axis=0, keepdim=false} : i64[]
    return %a
  })");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->argmax);
  EXPECT_EQ(p->index_offset(), p->slots() * kPartialSlotBytes);
  EXPECT_EQ(p->scratch_bytes(), 2 * p->slots() * kPartialSlotBytes);
}

TEST(SplitRowsTest, EpilogueLoopsSplitOverPassTwoBlocks) {
  // softmax's sum kernel divides the whole row in its epilogue.
  std::optional<SplitRows> p = Plan(R"(graph @g(%x: f32[4,2097152]) {
    %y = softmax(%x) {axis=1} : f32[4,2097152]
    return %y
  })",
                                    1);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->epilogue_chunks, kSplitTargetBlocks / 4);
  // At least kMinEpiloguePoints a block.
  std::optional<SplitRows> q = Plan(R"(graph @g(%x: f32[4,1048576]) {
    %y = softmax(%x) {axis=1} : f32[4,1048576]
    return %y
  })",
                                    1);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->epilogue_chunks, 1048576 / kMinEpiloguePoints);
}

TEST(SplitRowsTest, ChunksTileTheRowAtAlignedStarts) {
  for (int64_t points : {int64_t{65536}, int64_t{65537}, int64_t{3000001}, int64_t{67108864}}) {
    for (int64_t chunks : {1, 2, 3, 17, 264, 1056}) {
      SCOPED_TRACE(absl::StrCat(points, " points, ", chunks, " chunks"));
      const int64_t length = ChunkLength(points, chunks);
      EXPECT_EQ(length % kChunkAlign, 0);
      const int64_t used = (points + length - 1) / length;
      EXPECT_LE(used, chunks);
      EXPECT_GE(used * length, points);
      EXPECT_LT((used - 1) * length, points);
    }
  }
}

}  // namespace
}  // namespace rk::compiler::cuda
