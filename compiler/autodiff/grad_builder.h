// GradBuilder: the small vocabulary gradient rules are written in, over a
// GraphBuilder. Every helper adds ordinary ops of compiler/ir/ops.def (there
// is no scatter, no reverse and no transposed convolution in the IR, so the
// helpers that need one build it from pad, slice, reshape and gather), and
// every helper fails with the GraphBuilder's inference error rather than
// adding an invalid node.
//
// Tested through compiler/autodiff/gradient_check_test.cc: every rule that
// uses a helper is checked against finite differences (Unslice by slice and
// the pools, Interleave and Reverse by conv2d, ReduceToShape by every
// broadcasting binary op).
#ifndef REPROKIT_COMPILER_AUTODIFF_GRAD_BUILDER_H_
#define REPROKIT_COMPILER_AUTODIFF_GRAD_BUILDER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/builder.h"

namespace rk::compiler::autodiff {

class GradBuilder {
 public:
  explicit GradBuilder(GraphBuilder& builder) : b_(builder) {}

  GraphBuilder& builder() { return b_; }
  // By value: adding nodes may move the graph's storage.
  TensorType type(NodeId id) const { return b_.type(id); }
  Shape shape(NodeId id) const { return b_.type(id).shape; }

  // A rank-0 `full` of `dtype`, broadcast by its users.
  absl::StatusOr<NodeId> Scalar(DType dtype, double value);
  absl::StatusOr<NodeId> Zeros(const TensorType& type);
  absl::StatusOr<NodeId> Un(Op op, NodeId x);
  absl::StatusOr<NodeId> Bin(Op op, NodeId x, NodeId y);
  // x op c, c a scalar of x's dtype.
  absl::StatusOr<NodeId> BinScalar(Op op, NodeId x, double c);
  absl::StatusOr<NodeId> Where(NodeId cond, NodeId a, NodeId b);
  absl::StatusOr<NodeId> Cast(NodeId x, DType dtype);
  absl::StatusOr<NodeId> Reshape(NodeId x, const Shape& shape);
  absl::StatusOr<NodeId> Transpose(NodeId x, std::vector<int64_t> perm);
  // Swaps the last two axes (a matrix transpose over batch dims).
  absl::StatusOr<NodeId> SwapLastTwo(NodeId x);
  absl::StatusOr<NodeId> BroadcastTo(NodeId x, const Shape& shape);
  absl::StatusOr<NodeId> Reduce(Op op, NodeId x, std::vector<int64_t> axes, bool keepdim);
  absl::StatusOr<NodeId> Slice(NodeId x, std::vector<int64_t> start, std::vector<int64_t> limit,
                               std::vector<int64_t> stride);
  absl::StatusOr<NodeId> Pad(NodeId x, std::vector<int64_t> pads, double value = 0.0);
  absl::StatusOr<NodeId> Concat(absl::Span<const NodeId> parts, int64_t axis);
  absl::StatusOr<NodeId> Gather(NodeId data, NodeId indices, int64_t axis);

  // The sum of a broadcast gradient back to the operand's `target` shape:
  // reduce_sum over the leading axes `g` has beyond target's rank and over
  // the axes where target has 1 and g does not, then a reshape.
  absl::StatusOr<NodeId> ReduceToShape(NodeId g, const Shape& target);
  // A reduction's gradient `g` (keepdim or not) broadcast back over the
  // reduced `axes` (normalized) of `full`.
  absl::StatusOr<NodeId> BroadcastBack(NodeId g, const Shape& full, absl::Span<const int> axes,
                                       bool keepdim);
  // Pads by before[i]/after[i] per axis where positive and slices off where
  // negative.
  absl::StatusOr<NodeId> PadOrSlice(NodeId x, absl::Span<const int64_t> before,
                                    absl::Span<const int64_t> after, double value = 0.0);
  // Along `axis`, stride-1 zeros after every element: [a, b] with stride 3
  // becomes [a, 0, 0, b, 0, 0] (length n * stride).
  absl::StatusOr<NodeId> Interleave(NodeId x, int axis, int64_t stride);
  // The transpose of a strided slice: zeros of shape `full` with `g`'s
  // elements at start + k * stride per axis (the positions the slice read).
  absl::StatusOr<NodeId> Unslice(NodeId g, const Shape& full, absl::Span<const int64_t> start,
                                 absl::Span<const int64_t> stride);
  // x reversed along `axis` (a gather with the constant indices n-1 .. 0).
  absl::StatusOr<NodeId> Reverse(NodeId x, int axis);

 private:
  GraphBuilder& b_;
};

// Sums gradient contributions of one shape; `parts` must not be empty.
absl::StatusOr<NodeId> SumAll(GradBuilder& gb, absl::Span<const NodeId> parts);

}  // namespace rk::compiler::autodiff

#endif  // REPROKIT_COMPILER_AUTODIFF_GRAD_BUILDER_H_
