// probdd_nodes: probabilistic delta debugging (ProbDD, search.h) over
// compute nodes.
// One target per compute node in topological order; a candidate replaces
// each chosen node by a new input holding its recorded value, so its users
// still see the same data, and everything only it needed disappears.
//
// Tested by minifier/reductions/probdd_nodes_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_PROBDD_NODES_H_
#define REPROKIT_MINIFIER_REDUCTIONS_PROBDD_NODES_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan ProbDdNodes(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_PROBDD_NODES_H_
