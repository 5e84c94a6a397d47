// simplify_op: replace ops by simpler ones.
// One target per elementwise unary node (replaced by its operand: identity)
// and, when the graph has composites, one target lowering every composite to
// its primitives with the compiler's decompose pass (the score counts a
// composite as its lowering plus one, so lowering is progress), then per
// matmul whose operands are both graph inputs, one target setting its
// contracted dim to 1 and, when batched, one setting its batch dims to 1 (on
// both operands; values are the leading blocks). These shrink a matmul where
// shrink_shapes, which shrinks every dim of every input at once, cannot:
// when the failure needs M or N but not K. Anything inference then rejects
// (the input also feeds an op that needs the old shape) is invalid, never
// tested.
//
// Tested by minifier/reductions/simplify_op_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
#define REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan SimplifyOp(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
