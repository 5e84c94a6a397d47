// InferType for the layout ops: reshape, transpose, broadcast_to, slice,
// concat, squeeze, unsqueeze and pad. None of them changes the dtype.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/ir/shape_inference_internal.h"

namespace rk::compiler::shape_inference_internal {
namespace {

std::string Brackets(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ","), "]");
}

// Reshape takes explicit dims only (no -1): the printed graph then states
// every result shape, and a rewrite never has to re-derive a dim.
absl::StatusOr<TensorType> InferReshape(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> dims = attrs.GetInts("shape").value();
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "shape"));
  const Shape shape(dims);
  if (shape.num_elements() != x.num_elements()) {
    return OpError(op, "cannot reshape ", x.ToString(), " (", x.num_elements(), " elements) to ",
                   shape.ToString(), " (", shape.num_elements(), " elements)");
  }
  return TensorType(x.dtype, shape);
}

absl::StatusOr<TensorType> InferTranspose(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> perm = attrs.GetInts("perm").value();
  const int rank = x.shape.rank();
  std::vector<bool> seen(rank, false);
  bool is_permutation = static_cast<int>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!is_permutation || p < 0 || p >= rank || seen[p]) {
      is_permutation = false;
      break;
    }
    seen[p] = true;
  }
  if (!is_permutation) {
    return OpError(op, "perm ", Brackets(perm), " is not a permutation of the ", rank,
                   " axes of ", x.ToString());
  }
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.shape.dim(static_cast<int>(p)));
  return TensorType(x.dtype, Shape(std::move(dims)));
}

// NumPy rules, one direction only: x's dims (aligned right) equal the target's
// or are 1, and x has no more axes than the target.
absl::StatusOr<TensorType> InferBroadcastTo(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> dims = attrs.GetInts("shape").value();
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "shape"));
  const Shape target(dims);
  bool ok = x.shape.rank() <= target.rank();
  for (int i = 0; ok && i < x.shape.rank(); ++i) {
    const int64_t d = x.shape.dim(x.shape.rank() - 1 - i);
    ok = d == 1 || d == target.dim(target.rank() - 1 - i);
  }
  if (!ok) return OpError(op, "cannot broadcast ", x.ToString(), " to ", target.ToString());
  return TensorType(x.dtype, target);
}

absl::StatusOr<TensorType> InferSlice(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> start = attrs.GetInts("start").value();
  const std::vector<int64_t> limit = attrs.GetInts("limit").value();
  const std::vector<int64_t> stride = attrs.GetInts("stride").value();
  const int rank = x.shape.rank();
  if (static_cast<int>(start.size()) != rank || static_cast<int>(limit.size()) != rank ||
      static_cast<int>(stride.size()) != rank) {
    return OpError(op, "start, limit and stride need one entry per axis of ", x.ToString(),
                   ", got ", start.size(), ", ", limit.size(), " and ", stride.size());
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > x.shape.dim(i)) {
      return OpError(op, "axis ", i, ": need 0 <= start <= limit <= ", x.shape.dim(i), ", got start ",
                     start[i], " limit ", limit[i]);
    }
    if (stride[i] < 1) return OpError(op, "axis ", i, ": stride must be >= 1, got ", stride[i]);
    // ceil((limit - start) / stride) without overflow for any stride.
    const int64_t extent = limit[i] - start[i];
    dims[i] = extent == 0 ? 0 : (extent - 1) / stride[i] + 1;
  }
  return TensorType(x.dtype, Shape(std::move(dims)));
}

absl::StatusOr<TensorType> InferConcat(Op op, absl::Span<const TensorType> operands,
                                       const Attributes& attrs) {
  const TensorType& first = operands[0];
  absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), first.shape.rank());
  if (!axis.ok()) return WithOp(op, axis.status());
  std::vector<int64_t> dims = first.shape.dims();
  for (size_t k = 1; k < operands.size(); ++k) {
    const TensorType& t = operands[k];
    bool compatible = t.dtype == first.dtype && t.shape.rank() == first.shape.rank();
    for (int i = 0; compatible && i < t.shape.rank(); ++i) {
      compatible = i == *axis || t.shape.dim(i) == first.shape.dim(i);
    }
    if (!compatible) {
      return OpError(op, "operand ", k, " ", t.ToString(), " does not match ", first.ToString(),
                     " outside axis ", *axis);
    }
    dims[*axis] += t.shape.dim(*axis);
  }
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "result"));
  return TensorType(first.dtype, Shape(std::move(dims)));
}

absl::StatusOr<TensorType> InferSqueeze(Op op, const TensorType& x, const Attributes& attrs) {
  absl::StatusOr<std::vector<int>> axes =
      NormalizeAxes(op, attrs.GetInts("axes").value(), x.shape.rank());
  if (!axes.ok()) return axes.status();
  std::vector<int64_t> dims;
  for (int i = 0; i < x.shape.rank(); ++i) {
    const bool squeezed = std::find(axes->begin(), axes->end(), i) != axes->end();
    if (squeezed && x.shape.dim(i) != 1) {
      return OpError(op, "axis ", i, " of ", x.ToString(), " has size ", x.shape.dim(i),
                     ", not 1");
    }
    if (!squeezed) dims.push_back(x.shape.dim(i));
  }
  return TensorType(x.dtype, Shape(std::move(dims)));
}

// Axes name positions in the result, whose rank is rank(x) + len(axes).
absl::StatusOr<TensorType> InferUnsqueeze(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> raw = attrs.GetInts("axes").value();
  const int rank = x.shape.rank() + static_cast<int>(raw.size());
  absl::StatusOr<std::vector<int>> axes = NormalizeAxes(op, raw, rank);
  if (!axes.ok()) return axes.status();
  std::vector<int64_t> dims;
  int next = 0;
  for (int i = 0; i < rank; ++i) {
    const bool inserted = std::find(axes->begin(), axes->end(), i) != axes->end();
    dims.push_back(inserted ? 1 : x.shape.dim(next++));
  }
  return TensorType(x.dtype, Shape(std::move(dims)));
}

// pads: every axis's leading count, then every axis's trailing count, each
// >= 0 (at most 2^40, the element limit of a type, so sums never overflow).
absl::StatusOr<TensorType> InferPad(Op op, const TensorType& x, const Attributes& attrs) {
  const std::vector<int64_t> pads = attrs.GetInts("pads").value();
  const int rank = x.shape.rank();
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return OpError(op, "pads needs 2 entries per axis of ", x.ToString(), " (", 2 * rank,
                   "), got ", pads.size());
  }
  constexpr int64_t kMaxPad = int64_t{1} << 40;
  std::vector<int64_t> dims = x.shape.dims();
  for (int i = 0; i < rank; ++i) {
    const int64_t begin = pads[i], end = pads[rank + i];
    if (begin < 0 || end < 0 || begin > kMaxPad || end > kMaxPad) {
      return OpError(op, "axis ", i, ": pads must be in [0, 2^40], got ", begin, " and ", end);
    }
    dims[i] += begin + end;
  }
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "result"));
  return TensorType(x.dtype, Shape(std::move(dims)));
}

}  // namespace

absl::StatusOr<TensorType> InferLayout(Op op, absl::Span<const TensorType> operands,
                                       const Attributes& attrs) {
  switch (op) {
    case Op::kReshape: return InferReshape(op, operands[0], attrs);
    case Op::kTranspose: return InferTranspose(op, operands[0], attrs);
    case Op::kBroadcastTo: return InferBroadcastTo(op, operands[0], attrs);
    case Op::kSlice: return InferSlice(op, operands[0], attrs);
    case Op::kConcat: return InferConcat(op, operands, attrs);
    case Op::kSqueeze: return InferSqueeze(op, operands[0], attrs);
    case Op::kUnsqueeze: return InferUnsqueeze(op, operands[0], attrs);
    case Op::kPad: return InferPad(op, operands[0], attrs);
    default: break;
  }
  return absl::InternalError(absl::StrCat(std::string(OpName(op)), ": not a layout op"));
}

}  // namespace rk::compiler::shape_inference_internal
