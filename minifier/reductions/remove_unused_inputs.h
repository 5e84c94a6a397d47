// remove_unused_inputs: remove graph inputs nothing reads.
// One target per unused input (cuts can leave original inputs unread); the
// candidate drops the chosen ones from the signature.
//
// Tested by minifier/reductions/remove_unused_inputs_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_REMOVE_UNUSED_INPUTS_H_
#define REPROKIT_MINIFIER_REDUCTIONS_REMOVE_UNUSED_INPUTS_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan RemoveUnusedInputs(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_REMOVE_UNUSED_INPUTS_H_
