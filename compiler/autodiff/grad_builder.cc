#include "compiler/autodiff/grad_builder.h"

#include <algorithm>

#include "base/status_macros.h"

namespace rk::compiler::autodiff {

absl::StatusOr<NodeId> GradBuilder::Scalar(DType dtype, double value) {
  return b_.Full(TensorType(dtype, Shape()), value);
}

absl::StatusOr<NodeId> GradBuilder::Zeros(const TensorType& type) { return b_.Full(type, 0.0); }

absl::StatusOr<NodeId> GradBuilder::Un(Op op, NodeId x) { return b_.Unary(op, x); }

absl::StatusOr<NodeId> GradBuilder::Bin(Op op, NodeId x, NodeId y) { return b_.Binary(op, x, y); }

absl::StatusOr<NodeId> GradBuilder::BinScalar(Op op, NodeId x, double c) {
  RK_ASSIGN_OR_RETURN(NodeId k, Scalar(type(x).dtype, c));
  return Bin(op, x, k);
}

absl::StatusOr<NodeId> GradBuilder::Where(NodeId cond, NodeId a, NodeId b) {
  return b_.Add(Op::kWhere, {cond, a, b});
}

absl::StatusOr<NodeId> GradBuilder::Cast(NodeId x, DType dtype) {
  if (type(x).dtype == dtype) return x;
  return b_.Cast(x, dtype);
}

absl::StatusOr<NodeId> GradBuilder::Reshape(NodeId x, const Shape& shape) {
  if (this->shape(x) == shape) return x;
  return b_.Reshape(x, shape.dims());
}

absl::StatusOr<NodeId> GradBuilder::Transpose(NodeId x, std::vector<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  return b_.Add(Op::kTranspose, {x}, {{"perm", std::move(perm)}});
}

absl::StatusOr<NodeId> GradBuilder::SwapLastTwo(NodeId x) {
  const int rank = shape(x).rank();
  std::vector<int64_t> perm(rank);
  for (int i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[rank - 1], perm[rank - 2]);
  return Transpose(x, std::move(perm));
}

absl::StatusOr<NodeId> GradBuilder::BroadcastTo(NodeId x, const Shape& shape) {
  if (this->shape(x) == shape) return x;
  return b_.Add(Op::kBroadcastTo, {x}, {{"shape", shape.dims()}});
}

absl::StatusOr<NodeId> GradBuilder::Reduce(Op op, NodeId x, std::vector<int64_t> axes,
                                           bool keepdim) {
  return b_.Reduce(op, x, std::move(axes), keepdim);
}

absl::StatusOr<NodeId> GradBuilder::Slice(NodeId x, std::vector<int64_t> start,
                                          std::vector<int64_t> limit, std::vector<int64_t> stride) {
  return b_.Add(Op::kSlice, {x},
                {{"start", std::move(start)}, {"limit", std::move(limit)},
                 {"stride", std::move(stride)}});
}

absl::StatusOr<NodeId> GradBuilder::Pad(NodeId x, std::vector<int64_t> pads, double value) {
  return b_.Add(Op::kPad, {x}, {{"pads", std::move(pads)}, {"value", value}});
}

absl::StatusOr<NodeId> GradBuilder::Concat(absl::Span<const NodeId> parts, int64_t axis) {
  if (parts.size() == 1) return parts[0];
  return b_.Add(Op::kConcat, parts, {{"axis", axis}});
}

absl::StatusOr<NodeId> GradBuilder::Gather(NodeId data, NodeId indices, int64_t axis) {
  return b_.Add(Op::kGather, {data, indices}, {{"axis", axis}});
}

absl::StatusOr<NodeId> GradBuilder::ReduceToShape(NodeId g, const Shape& target) {
  const Shape& from = shape(g);
  if (from == target) return g;
  const int extra = from.rank() - target.rank();
  std::vector<int64_t> axes;
  for (int i = 0; i < from.rank(); ++i) {
    if (i < extra || (target.dim(i - extra) == 1 && from.dim(i) != 1)) axes.push_back(i);
  }
  NodeId summed = g;
  if (!axes.empty()) {
    RK_ASSIGN_OR_RETURN(summed, Reduce(Op::kReduceSum, g, std::move(axes), /*keepdim=*/true));
  }
  return Reshape(summed, target);
}

absl::StatusOr<NodeId> GradBuilder::BroadcastBack(NodeId g, const Shape& full,
                                                  absl::Span<const int> axes, bool keepdim) {
  NodeId kept = g;
  if (!keepdim) {
    std::vector<int64_t> dims = full.dims();
    for (int axis : axes) dims[axis] = 1;
    RK_ASSIGN_OR_RETURN(kept, Reshape(g, Shape(std::move(dims))));
  }
  return BroadcastTo(kept, full);
}

absl::StatusOr<NodeId> GradBuilder::PadOrSlice(NodeId x, absl::Span<const int64_t> before,
                                               absl::Span<const int64_t> after, double value) {
  const Shape& s = shape(x);
  const int rank = s.rank();
  bool slices = false, pads = false;
  std::vector<int64_t> start(rank), limit(rank), stride(rank, 1), widths(2 * rank, 0);
  for (int i = 0; i < rank; ++i) {
    start[i] = std::max<int64_t>(0, -before[i]);
    limit[i] = s.dim(i) - std::max<int64_t>(0, -after[i]);
    limit[i] = std::max(limit[i], start[i]);
    slices |= before[i] < 0 || after[i] < 0;
    widths[i] = std::max<int64_t>(0, before[i]);
    widths[rank + i] = std::max<int64_t>(0, after[i]);
    pads |= before[i] > 0 || after[i] > 0;
  }
  NodeId out = x;
  if (slices) {
    RK_ASSIGN_OR_RETURN(out, Slice(out, start, limit, stride));
  }
  if (pads) {
    RK_ASSIGN_OR_RETURN(out, Pad(out, widths, value));
  }
  return out;
}

absl::StatusOr<NodeId> GradBuilder::Interleave(NodeId x, int axis, int64_t stride) {
  if (stride == 1) return x;
  const std::vector<int64_t> dims = shape(x).dims();
  // [.., n, ..] -> [.., n, 1, ..] -> pad to [.., n, stride, ..] -> [.., n * stride, ..]
  std::vector<int64_t> split(dims.begin(), dims.end());
  split.insert(split.begin() + axis + 1, 1);
  RK_ASSIGN_OR_RETURN(NodeId column, Reshape(x, Shape(split)));
  const int rank = static_cast<int>(split.size());
  std::vector<int64_t> pads(2 * rank, 0);
  pads[rank + axis + 1] = stride - 1;
  RK_ASSIGN_OR_RETURN(NodeId padded, Pad(column, std::move(pads)));
  std::vector<int64_t> merged = dims;
  merged[axis] *= stride;
  return Reshape(padded, Shape(std::move(merged)));
}

absl::StatusOr<NodeId> GradBuilder::Unslice(NodeId g, const Shape& full,
                                            absl::Span<const int64_t> start,
                                            absl::Span<const int64_t> stride) {
  NodeId spread = g;
  for (int i = 0; i < full.rank(); ++i) {
    RK_ASSIGN_OR_RETURN(spread, Interleave(spread, i, stride[i]));
  }
  std::vector<int64_t> before(full.rank()), after(full.rank());
  for (int i = 0; i < full.rank(); ++i) {
    before[i] = start[i];
    after[i] = full.dim(i) - start[i] - shape(spread).dim(i);
  }
  return PadOrSlice(spread, before, after);
}

absl::StatusOr<NodeId> GradBuilder::Reverse(NodeId x, int axis) {
  const int64_t n = shape(x).dim(axis);
  if (n <= 1) return x;
  HostTensor indices(TensorType(DType::kI64, Shape{n}));
  for (int64_t i = 0; i < n; ++i) indices.SetInt(i, n - 1 - i);
  RK_ASSIGN_OR_RETURN(NodeId idx, b_.Constant(std::move(indices)));
  return Gather(x, idx, axis);
}

absl::StatusOr<NodeId> SumAll(GradBuilder& gb, absl::Span<const NodeId> parts) {
  NodeId sum = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    RK_ASSIGN_OR_RETURN(sum, gb.Bin(Op::kAdd, sum, parts[i]));
  }
  return sum;
}

}  // namespace rk::compiler::autodiff
