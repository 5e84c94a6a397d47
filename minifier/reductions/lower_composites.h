// lower_composites: lower every composite (softmax, log_softmax, layer_norm,
// rms_norm, gelu) to its primitives with the compiler's decompose pass, early.
// One target, offered when the graph has a composite. A fault in an op that a
// composite lowers to, or in fused code inside it, is only reachable by the
// node reductions once the composite is parts; the score counts a composite
// as its lowering plus one, so lowering is progress. Running it right after
// the cheap cuts saves the calls the node reductions would spend on a graph
// whose culprit is hidden in one node (simplify_op offers the same lowering
// among its targets, for candidates that need it combined with others).
//
// Tested by minifier/reductions/lower_composites_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_LOWER_COMPOSITES_H_
#define REPROKIT_MINIFIER_REDUCTIONS_LOWER_COMPOSITES_H_

#include "absl/status/statusor.h"
#include "minifier/candidate.h"
#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan LowerComposites(const ReductionInput& input);

// `candidate` with every composite lowered (unchanged without one).
absl::StatusOr<Candidate> LowerAllComposites(Candidate candidate);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_LOWER_COMPOSITES_H_
