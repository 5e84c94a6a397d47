// ONNX TopK lowered at import for k up to kMaxTopK, one selection per output
// position along the axis: the index is the argmax of the key (x, or -x for
// the smallest) over the positions not yet taken (taken ones read -inf), so
// ties go to the lower index as ONNX asks; when every position left reads
// -inf the first one not taken is chosen, so real -inf values are not
// confused with taken ones. The value is read at that index (a max over a
// one-hot selection, exact for -0, inf and NaN). NaN counts as the largest
// key, as argmax has it (and as PyTorch's topk). Results come sorted;
// sorted=0 allows any order. Float inputs only.
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

constexpr int64_t kMaxTopK = 64;

absl::StatusOr<NodeId> AlongAxis(NodeContext& ctx, Op op, NodeId x, int axis) {
  Attributes attrs;
  if (op == Op::kArgmax) {
    attrs.Set("axis", int64_t{axis});
  } else {
    attrs.Set("axes", std::vector<int64_t>{axis});
  }
  attrs.Set("keepdim", true);
  return ctx.Emit(op, {x}, std::move(attrs));
}

}  // namespace

absl::Status ConvertTopK(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const TensorType type = ctx.type(x);
  if (!IsFloat(type.dtype)) return ctx.Unsupported(absl::StrCat("TopK of ", type.ToString()));
  const int rank = type.shape.rank();
  if (rank < 1) return ctx.Error("the input must have rank >= 1");
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", -1));
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, rank));
  RK_ASSIGN_OR_RETURN(int64_t largest, ctx.AttrInt("largest", 1));
  int64_t k = 0;
  if (ctx.opset() < 10) {
    RK_ASSIGN_OR_RETURN(k, ctx.AttrInt("k", -1));
  } else {
    RK_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.ConstantInts(1));
    if (ks.size() != 1) return ctx.Error("K must hold one value");
    k = ks[0];
  }
  const int64_t size = type.shape.dim(axis);
  if (k < 1 || k > size) {
    return ctx.Error(absl::StrCat("k ", k, " must be in [1, ", size, "] (the axis' size)"));
  }
  if (k > kMaxTopK) return ctx.Unsupported(absl::StrCat("k ", k, " above ", kMaxTopK));

  NodeId key = x;
  if (largest == 0) {
    RK_ASSIGN_OR_RETURN(key, ctx.Emit(Op::kNeg, {x}));
  }
  RK_ASSIGN_OR_RETURN(NodeId minus_inf,
                      ctx.Scalar(type.dtype, -std::numeric_limits<double>::infinity()));
  Attributes iota;
  iota.Set("axis", int64_t{axis});
  iota.Set("dtype", DType::kI64);
  iota.Set("shape", type.shape.dims());
  RK_ASSIGN_OR_RETURN(NodeId position, ctx.Emit(Op::kIota, {}, std::move(iota)));
  std::vector<NodeId> values, indices;
  NodeId taken;
  for (int64_t j = 0; j < k; ++j) {
    NodeId index;
    if (j == 0) {
      RK_ASSIGN_OR_RETURN(index, AlongAxis(ctx, Op::kArgmax, key, axis));
    } else {
      RK_ASSIGN_OR_RETURN(NodeId score, ctx.Emit(Op::kWhere, {taken, minus_inf, key}));
      RK_ASSIGN_OR_RETURN(NodeId best, AlongAxis(ctx, Op::kArgmax, score, axis));
      // Only -inf left: the first position not taken.
      RK_ASSIGN_OR_RETURN(NodeId top, AlongAxis(ctx, Op::kReduceMax, score, axis));
      RK_ASSIGN_OR_RETURN(NodeId exhausted, ctx.Emit(Op::kEq, {top, minus_inf}));
      RK_ASSIGN_OR_RETURN(NodeId free, ctx.Emit(Op::kNot, {taken}));
      Attributes cast;
      cast.Set("dtype", DType::kF32);
      RK_ASSIGN_OR_RETURN(NodeId free_f, ctx.Emit(Op::kCast, {free}, std::move(cast)));
      RK_ASSIGN_OR_RETURN(NodeId first_free, AlongAxis(ctx, Op::kArgmax, free_f, axis));
      RK_ASSIGN_OR_RETURN(index, ctx.Emit(Op::kWhere, {exhausted, first_free, best}));
    }
    RK_ASSIGN_OR_RETURN(NodeId chosen, ctx.Emit(Op::kEq, {position, index}));
    RK_ASSIGN_OR_RETURN(NodeId selected, ctx.Emit(Op::kWhere, {chosen, x, minus_inf}));
    RK_ASSIGN_OR_RETURN(NodeId value, AlongAxis(ctx, Op::kReduceMax, selected, axis));
    if (j == 0) {
      taken = chosen;
    } else {
      RK_ASSIGN_OR_RETURN(taken, ctx.Emit(Op::kOr, {taken, chosen}));
    }
    values.push_back(value);
    indices.push_back(index);
  }
  auto joined = [&](const std::vector<NodeId>& parts) -> absl::StatusOr<NodeId> {
    if (parts.size() == 1) return parts[0];
    Attributes attrs;
    attrs.Set("axis", int64_t{axis});
    return ctx.Emit(Op::kConcat, parts, std::move(attrs));
  };
  RK_ASSIGN_OR_RETURN(NodeId all_values, joined(values));
  RK_ASSIGN_OR_RETURN(NodeId all_indices, joined(indices));
  ctx.SetOutput(0, all_values);
  ctx.SetOutput(1, all_indices);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
