// keep_cone: keep one value and only what computes it.
// Target i makes the i-th compute node (in topological order) the graph's
// only output; ApplyEdit then drops every node it does not need. Targets run
// from the earliest node (most aggressive) to the last; the engine
// binary-searches for the earliest node whose value still fails.
//
// Unlike truncate_tail, which returns every value crossing its cut (so the
// failure stays visible whichever value carries it), a cone has one output
// and often far fewer nodes: the candidates a compiler whose cost grows with
// the graph's outputs and size (Inductor: seconds each) compiles fastest.
// The search assumes that a value at or after the culprit fails, which holds
// for values the culprit feeds; where it does not, the search still ends on
// a failing cone, only perhaps a later one, and the reductions after it trim
// the rest.
//
// Tested by minifier/reductions/keep_cone_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_KEEP_CONE_H_
#define REPROKIT_MINIFIER_REDUCTIONS_KEEP_CONE_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan KeepCone(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_KEEP_CONE_H_
