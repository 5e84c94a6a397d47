// cut_head: cut the graph before a compute node.
// Target i keeps only the last i+1 compute nodes; every earlier compute node
// that a kept node reads becomes a new graph input holding its recorded
// value (sources and original inputs stay). Targets run from the latest cut
// (keep only the last node) to the one after the first node; the engine
// binary-searches for the latest cut that still fails.
//
// Tested by minifier/reductions/cut_head_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_CUT_HEAD_H_
#define REPROKIT_MINIFIER_REDUCTIONS_CUT_HEAD_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan CutHead(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_CUT_HEAD_H_
