// InferType for the 2-D window ops over NCHW tensors: conv2d, and (by the
// same rules, without weights) the pools. Attribute meaning: window.h.
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/shape_inference_internal.h"
#include "compiler/ir/window.h"

namespace rk::compiler::shape_inference_internal {
namespace {

// Window attributes stay far from overflow in the output size arithmetic.
constexpr int64_t kMaxWindowAttr = std::numeric_limits<int32_t>::max();

// `name` has `n` entries, each in [min, kMaxWindowAttr].
absl::Status CheckList(Op op, const Attributes& attrs, const char* name, size_t n, int64_t min) {
  const std::vector<int64_t> values = attrs.GetInts(name).value();
  if (values.size() != n) {
    return OpError(op, name, " needs ", n, " entries, got [", absl::StrJoin(values, ","), "]");
  }
  for (int64_t v : values) {
    if (v < min || v > kMaxWindowAttr) {
      return OpError(op, name, " entries must be in [", min, ", ", kMaxWindowAttr, "], got [",
                     absl::StrJoin(values, ","), "]");
    }
  }
  return absl::OkStatus();
}

// conv2d's weights and groups; returns the output channels.
absl::StatusOr<int64_t> CheckConvWeights(Op op, const TensorType& x, const TensorType& w,
                                         const Attributes& attrs) {
  if (w.dtype != x.dtype) {
    return OpError(op, "operand dtypes differ: ", x.ToString(), " and ", w.ToString());
  }
  if (w.shape.rank() != 4) {
    return OpError(op, "weights must be [O,C/groups,kH,kW] (rank 4), got ", w.ToString());
  }
  const int64_t groups = attrs.GetInt("groups").value();
  if (groups < 1 || groups > kMaxWindowAttr) return OpError(op, "groups must be >= 1, got ", groups);
  const int64_t channels = x.shape.dim(1);
  const int64_t out_channels = w.shape.dim(0);
  if (channels % groups != 0 || out_channels % groups != 0) {
    return OpError(op, "groups ", groups, " must divide the input channels (", channels,
                   ") and the output channels (", out_channels, ")");
  }
  if (w.shape.dim(1) != channels / groups) {
    return OpError(op, "weights ", w.ToString(), " need ", channels / groups,
                   " input channels per group (", channels, " / ", groups, ")");
  }
  if (w.shape.dim(2) < 1 || w.shape.dim(3) < 1) {
    return OpError(op, "weights ", w.ToString(), " have an empty kernel");
  }
  if (w.shape.dim(2) > kMaxWindowAttr || w.shape.dim(3) > kMaxWindowAttr) {
    return OpError(op, "weights ", w.ToString(), " have a kernel too large");
  }
  return out_channels;
}

}  // namespace

absl::StatusOr<TensorType> InferWindow(Op op, absl::Span<const TensorType> operands,
                                       const Attributes& attrs) {
  const TensorType& x = operands[0];
  if (!IsFloat(x.dtype)) return OpError(op, "expects a float operand, got ", x.ToString());
  if (x.shape.rank() != 4) {
    return OpError(op, "input must be [N,C,H,W] (rank 4), got ", x.ToString());
  }
  RK_RETURN_IF_ERROR(CheckList(op, attrs, "strides", 2, 1));
  RK_RETURN_IF_ERROR(CheckList(op, attrs, "pads", 4, 0));
  if (attrs.Has("dilations")) RK_RETURN_IF_ERROR(CheckList(op, attrs, "dilations", 2, 1));
  if (attrs.Has("kernel")) RK_RETURN_IF_ERROR(CheckList(op, attrs, "kernel", 2, 1));
  int64_t channels = x.shape.dim(1);
  Shape weights;
  if (op == Op::kConv2d) {
    RK_ASSIGN_OR_RETURN(channels, CheckConvWeights(op, x, operands[1], attrs));
    weights = operands[1].shape;
  }
  const Window2d window = ReadWindow(op, attrs, weights);
  std::vector<int64_t> dims = {x.shape.dim(0), channels, 0, 0};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t in = x.shape.dim(2 + axis);
    dims[2 + axis] = window.OutputSize(axis, in);
    if (dims[2 + axis] < 0) {
      return OpError(op, "a window spanning ", window.Span(axis), " does not fit in ",
                     axis == 0 ? "H" : "W", " = ", in, " padded by ", window.pad_before[axis],
                     " and ", window.pad_after[axis]);
    }
  }
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "result"));
  return TensorType(x.dtype, Shape(std::move(dims)));
}

}  // namespace rk::compiler::shape_inference_internal
