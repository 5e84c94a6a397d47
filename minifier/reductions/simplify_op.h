// simplify_op: replace ops by simpler ones.
// One target per elementwise unary or cumsum node (replaced by its operand:
// identity)
// and, when the graph has composites, one target lowering every composite to
// its primitives with the compiler's decompose pass (the score counts a
// composite as its lowering plus one, so lowering is progress), then per
// matmul whose operands are both graph inputs, one target setting its
// contracted dim to 1 and, when batched, one setting its batch dims to 1 (on
// both operands; values are the leading blocks). These shrink a matmul where
// shrink_shapes, which shrinks every dim of every input at once, cannot:
// when the failure needs M or N but not K. Likewise per conv2d, max_pool2d
// and avg_pool2d whose input operand is a graph input, one target cutting
// its H and W to what one window needs (the window's span minus its
// padding, at least 1), and per conv2d whose weights are a graph input,
// one target cutting the kernel to 1x1 and, when x is an input too, one
// cutting the input channels per group to 1 (x keeps `groups` channels);
// targets are in node order, several shrinking one input keep the smallest
// dims. Anything inference then rejects (the input also feeds an op that
// needs the old shape) is invalid, never tested.
//
// SimplificationsOf(op) says which of these rewrites SimplifyOp offers for a
// node of `op` (read from the same rule SimplifyOp selects targets by), so
// the op coverage test (testing/op_coverage_test.cc) can require every op to
// have one or a documented "no simpler form" entry.
//
// Tested by minifier/reductions/simplify_op_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
#define REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_

#include <vector>

#include "compiler/ir/op.h"
#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan SimplifyOp(const ReductionInput& input);

enum class OpSimplification {
  kForwardOperand,  // the node becomes its operand (identity), when the types match
  kLowerComposite,  // the compiler's decompose pass rewrites it into primitives
  kShrinkMatmul,    // contracted / batch dims of input operands set to 1
  // conv2d and the pools: an input operand's H and W cut to one window
  kShrinkWindowInput,
  kShrinkConvWeights,  // conv2d: input weights' kernel to 1x1, one channel per group
};

// The rewrites SimplifyOp offers for nodes of `op`; empty when it has none.
std::vector<OpSimplification> SimplificationsOf(compiler::Op op);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_OP_H_
