#include "minifier/reduction.h"

#include "minifier/reductions/bypass_broadcast.h"
#include "minifier/reductions/bypass_node.h"
#include "minifier/reductions/cut_head.h"
#include "minifier/reductions/drop_outputs.h"
#include "minifier/reductions/inputs_to_constants.h"
#include "minifier/reductions/keep_cone.h"
#include "minifier/reductions/lower_composites.h"
#include "minifier/reductions/probdd_nodes.h"
#include "minifier/reductions/remove_unused_inputs.h"
#include "minifier/reductions/shrink_shapes.h"
#include "minifier/reductions/simplify_dtypes.h"
#include "minifier/reductions/simplify_op.h"
#include "minifier/reductions/truncate_tail.h"
#include "minifier/reductions/window_scan.h"

namespace rk::minifier {
namespace {

constexpr ReductionInfo kReductions[] = {
#define REDUCTION(stem, fn, search, values, oracles, phase) \
  {#stem, &fn, SearchKind::search, values, OracleCost::oracles, ReductionPhase::phase},
#include "minifier/reductions.def"
#undef REDUCTION
};

}  // namespace

absl::Span<const ReductionInfo> AllReductions() { return kReductions; }

const ReductionInfo* FindReduction(std::string_view name) {
  for (const ReductionInfo& info : kReductions) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace rk::minifier
