// inputs_to_constants: replace graph inputs by splats.
// Targets are every input as zeros, then every input as ones, then every
// input as a splat of its first element (the first chosen variant of an
// input wins); a candidate turns the chosen inputs into `full` nodes.
// Inputs of a single element are not targets: shrink_shapes usually leaves
// inputs that small, and as constants they save one element while mostly
// letting the compiler fold the failing kernel away, so the calls would be
// spent for nothing.
//
// Tested by minifier/reductions/inputs_to_constants_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_INPUTS_TO_CONSTANTS_H_
#define REPROKIT_MINIFIER_REDUCTIONS_INPUTS_TO_CONSTANTS_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan InputsToConstants(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_INPUTS_TO_CONSTANTS_H_
