// shrink_shapes: make the graph inputs smaller.
// With L = ceil(log2(largest input dim)), target 0 makes every input a
// scalar (every dim 1, then the size-1 dims dropped: rank 0), and target
// 1 + i divides every input dim by 2^(L-i) (rounding up, at least 1):
// target 1 makes every dim 1 keeping the rank, the last target halves.
// Input values are the leading block of the current ones; types downstream
// are re-inferred, so a shape attribute that no longer fits (reshape,
// broadcast_to, slice, full, reduction axes beyond the new rank) makes the
// candidate invalid, never tested. The engine tries target 0 first (one call
// when scalars still fail), then binary-searches for the smallest shapes.
//
// Tested by minifier/reductions/shrink_shapes_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_SHRINK_SHAPES_H_
#define REPROKIT_MINIFIER_REDUCTIONS_SHRINK_SHAPES_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan ShrinkShapes(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_SHRINK_SHAPES_H_
