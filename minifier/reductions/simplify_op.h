// simplify_op: replace ops by simpler ones.
// One target per elementwise unary node (replaced by its operand: identity)
// and, when the graph has composites, one target lowering every composite to
// its primitives with the compiler's decompose pass (the score counts a
// composite as its lowering plus one, so lowering is progress).
//
// Tested by minifier/reductions/simplify_op_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
#define REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan SimplifyOp(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
