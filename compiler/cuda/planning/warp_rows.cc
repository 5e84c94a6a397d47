#include "compiler/cuda/planning/warp_rows.h"

#include <algorithm>
#include <cstdint>

namespace rk::compiler::cuda {

int WarpRowsPerBlock(const std::vector<const KernelShape*>& stages, int element_bytes) {
  if (stages.empty()) return 0;
  const int64_t per_lane =
      std::min(kMaxWarpRowPoints, kMaxWarpRowBytes / std::max(element_bytes, 4));
  const int64_t max_points = 32 * per_lane;
  for (const KernelShape* stage : stages) {
    if (stage->form != KernelForm::kRowReduction) return 0;
    if (stage->row.reduce.points > max_points) return 0;
    for (const kernel::Stmt* s : stage->row.rest) {
      if (s->kind == kernel::StmtKind::kLoop && PeelChain({s}).points > max_points) return 0;
    }
  }
  return kWarpRowsPerBlock;
}

}  // namespace rk::compiler::cuda
