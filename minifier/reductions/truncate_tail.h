// truncate_tail: cut the graph after a compute node.
// Target i keeps the compute nodes up to the i-th (in topological order) and
// returns every kept value that a later node or an original output reads
// (so the failure stays observable); everything after is dropped. Targets
// run from the earliest cut (most aggressive) to the one before the last
// node; the engine binary-searches for the earliest cut that still fails.
// drop_outputs then trims the outputs this leaves.
//
// Tested by minifier/reductions/truncate_tail_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_TRUNCATE_TAIL_H_
#define REPROKIT_MINIFIER_REDUCTIONS_TRUNCATE_TAIL_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan TruncateTail(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_TRUNCATE_TAIL_H_
