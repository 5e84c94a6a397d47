// Result types of ops: the single source of truth for what each op accepts.
//
// InferType checks arity, operand dtypes, broadcasting, axes and every
// attribute the op needs (and rejects attributes it does not know), and
// returns the result type or an InvalidArgument naming the rule broken, e.g.
// "add: cannot broadcast f32[8,3] with f32[4]" or "reduce_sum: axis 2 out of
// range for rank 2".
//
// Rules beyond ops.def's comments:
// - Every attribute an op documents is required (keepdim and eps included);
//   attributes it does not document are rejected. Float attributes accept ints.
// - Axes may be negative (counted from the end) and must be unique.
// - reshape takes explicit dims only (no -1); the element count must match.
// - Arithmetic binary ops and matmul take float or integer operands of one
//   dtype; pow is float only. Comparisons take any dtype (bool included);
//   and/or/not take bool only. neg and abs also take integers; every other
//   unary op and every composite is float only.
// - reduce_sum/max/min and argmax take float or integer; reduce_mean float
//   only. reduce_max, reduce_min and argmax reject an axis of size 0.
// - iota's dtype is float or integer, not bool; cast converts any to any.
// - layer_norm/rms_norm: axis must be the last axis, gamma/beta have type
//   x.dtype[last dim], eps is finite and >= 0.
// - gather: data of rank >= 1 (any dtype), indices i32 or i64 of any rank
//   (rank 0 included); axis in [-rank, rank) of data.
// - conv2d, max_pool2d, avg_pool2d: x float [N,C,H,W]; strides and
//   dilations two entries >= 1, pads four entries >= 0 (top, left, bottom,
//   right), kernel two entries >= 1, all below 2^31; a window must fit in
//   the padded input (output sizes: window.h). conv2d: w of x's dtype,
//   [O, C/groups, kH, kW] with groups dividing C and O.
// - Negative dims (in operands or attributes) are errors.
//
// Tested by compiler/ir/shape_inference_test.cc.
#ifndef REPROKIT_COMPILER_IR_SHAPE_INFERENCE_H_
#define REPROKIT_COMPILER_IR_SHAPE_INFERENCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"

namespace rk::compiler {

absl::StatusOr<TensorType> InferType(Op op, absl::Span<const TensorType> operands,
                                     const Attributes& attrs);

// NumPy broadcasting of two shapes; InvalidArgument if incompatible.
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

// Normalizes a possibly negative axis against `rank`; InvalidArgument if out
// of range.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank);

// The axes a reduction (reduce_* or argmax) of a rank-`rank` operand reduces,
// normalized, sorted and unique. For ops that InferType accepted: a missing or
// out-of-range axis reads as 0 instead of being an error.
std::vector<int> ReducedAxes(Op op, const Attributes& attrs, int rank);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_SHAPE_INFERENCE_H_
