#include "compiler/cuda/planning/split_rows.h"

#include <algorithm>

namespace rk::compiler::cuda {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks per row that bring rows * blocks up to kSplitTargetBlocks, never
// past it (one wave: a second, partly filled one would only add a tail), at
// most `limit`.
int64_t BlocksPerRow(int64_t rows, int64_t limit) {
  return std::clamp<int64_t>(kSplitTargetBlocks / rows, 1, std::max<int64_t>(limit, 1));
}

}  // namespace

int64_t ChunkLength(int64_t points, int64_t chunks) {
  return CeilDiv(CeilDiv(points, std::max<int64_t>(chunks, 1)), kChunkAlign) * kChunkAlign;
}

std::optional<SplitRows> PlanSplitRows(const KernelShape& shape) {
  if (shape.form != KernelForm::kRowReduction || shape.phases.empty()) return std::nullopt;
  const int64_t rows = shape.phases[0].points;
  const int64_t points = shape.row.reduce.points;
  if (rows < 1 || rows >= kSplitMaxRows || points / kMinChunkPoints < kMinChunks) {
    return std::nullopt;
  }
  SplitRows plan;
  plan.rows = rows;
  plan.points = points;
  plan.chunk_points = ChunkLength(points, BlocksPerRow(rows, points / kMinChunkPoints));
  plan.chunks = CeilDiv(points, plan.chunk_points);
  plan.argmax = shape.row.reduce.body[0]->kind == kernel::StmtKind::kArgmaxUpdate;
  int64_t epilogue_points = 0;
  for (const kernel::Stmt* s : shape.row.rest) {
    if (s->kind == kernel::StmtKind::kLoop) {
      epilogue_points = std::max(epilogue_points, PeelChain({s}).points);
    }
  }
  plan.epilogue_chunks =
      epilogue_points > 0 ? BlocksPerRow(rows, CeilDiv(epilogue_points, kMinEpiloguePoints)) : 1;
  return plan;
}

}  // namespace rk::compiler::cuda
