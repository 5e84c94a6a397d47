// drop_outputs: remove graph outputs.
// One target per output position, ordered by the producing node's id (the
// newest last, so ProbDD keeps it longest); a candidate returns
// the outputs not chosen. Removing every output is invalid.
//
// Tested by minifier/reductions/drop_outputs_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_DROP_OUTPUTS_H_
#define REPROKIT_MINIFIER_REDUCTIONS_DROP_OUTPUTS_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan DropOutputs(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_DROP_OUTPUTS_H_
