// ONNX ops that reprokit spells with several of its own ops: trigonometric
// and hyperbolic forms, Celu, Shrink, Mish, IsInf, the norm-like reductions,
// InstanceNormalization, GroupNormalization, DepthToSpace / SpaceToDepth and
// Trilu. Formulas
// as in the ONNX operator documents; docs/ONNX.md lists them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

absl::StatusOr<NodeId> WithScalar(NodeContext& ctx, Op op, NodeId x, double value) {
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.Scalar(ctx.type(x).dtype, value));
  return ctx.Emit(op, {x, c});
}

absl::StatusOr<NodeId> Layout(NodeContext& ctx, Op op, NodeId x, const char* attr,
                              std::vector<int64_t> values) {
  Attributes attrs;
  attrs.Set(attr, std::move(values));
  return ctx.Emit(op, {x}, std::move(attrs));
}

}  // namespace

absl::Status ConvertComposed(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const DType dtype = ctx.type(x).dtype;
  const Shape shape = ctx.type(x).shape;
  NodeId r;
  if (type == "Tan") {
    RK_ASSIGN_OR_RETURN(NodeId s, ctx.Emit(Op::kSin, {x}));
    RK_ASSIGN_OR_RETURN(NodeId c, ctx.Emit(Op::kCos, {x}));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kDiv, {s, c}));
  } else if (type == "Sinh" || type == "Cosh") {
    // (exp(x) -+ exp(-x)) / 2
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {x}));
    RK_ASSIGN_OR_RETURN(NodeId nx, ctx.Emit(Op::kNeg, {x}));
    RK_ASSIGN_OR_RETURN(NodeId en, ctx.Emit(Op::kExp, {nx}));
    RK_ASSIGN_OR_RETURN(NodeId both, ctx.Emit(type == "Sinh" ? Op::kSub : Op::kAdd, {e, en}));
    RK_ASSIGN_OR_RETURN(r, WithScalar(ctx, Op::kMul, both, 0.5));
  } else if (type == "Celu") {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    RK_ASSIGN_OR_RETURN(double alpha, ctx.AttrFloat("alpha", 1.0));
    RK_ASSIGN_OR_RETURN(NodeId scaled, WithScalar(ctx, Op::kDiv, x, alpha));
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {scaled}));
    RK_ASSIGN_OR_RETURN(NodeId em1, WithScalar(ctx, Op::kSub, e, 1.0));
    RK_ASSIGN_OR_RETURN(NodeId neg, WithScalar(ctx, Op::kMul, em1, alpha));
    RK_ASSIGN_OR_RETURN(NodeId low, WithScalar(ctx, Op::kMinimum, neg, 0.0));
    RK_ASSIGN_OR_RETURN(NodeId high, WithScalar(ctx, Op::kMaximum, x, 0.0));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kAdd, {high, low}));
  } else if (type == "Shrink") {
    // x < -lambd: x + bias; x > lambd: x - bias; else 0
    RK_ASSIGN_OR_RETURN(double lambd, ctx.AttrFloat("lambd", 0.5));
    RK_ASSIGN_OR_RETURN(double bias, ctx.AttrFloat("bias", 0.0));
    RK_ASSIGN_OR_RETURN(NodeId below, WithScalar(ctx, Op::kLt, x, -lambd));
    RK_ASSIGN_OR_RETURN(NodeId above, WithScalar(ctx, Op::kGt, x, lambd));
    RK_ASSIGN_OR_RETURN(NodeId plus, WithScalar(ctx, Op::kAdd, x, bias));
    RK_ASSIGN_OR_RETURN(NodeId minus, WithScalar(ctx, Op::kSub, x, bias));
    RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(dtype, 0.0));
    RK_ASSIGN_OR_RETURN(NodeId inner, ctx.Emit(Op::kWhere, {above, minus, zero}));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kWhere, {below, plus, inner}));
  } else if (type == "Mish") {
    // x * tanh(softplus(x)), softplus(x) = log(1 + exp(x)) (opset 18)
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {x}));
    RK_ASSIGN_OR_RETURN(NodeId e1, WithScalar(ctx, Op::kAdd, e, 1.0));
    RK_ASSIGN_OR_RETURN(NodeId sp, ctx.Emit(Op::kLog, {e1}));
    RK_ASSIGN_OR_RETURN(NodeId t, ctx.Emit(Op::kTanh, {sp}));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kMul, {x, t}));
  } else if (type == "IsInf") {
    RK_ASSIGN_OR_RETURN(int64_t positive, ctx.AttrInt("detect_positive", 1));
    RK_ASSIGN_OR_RETURN(int64_t negative, ctx.AttrInt("detect_negative", 1));
    const double inf = std::numeric_limits<double>::infinity();
    RK_ASSIGN_OR_RETURN(NodeId pos, WithScalar(ctx, Op::kEq, x, positive ? inf : -inf));
    RK_ASSIGN_OR_RETURN(NodeId neg, WithScalar(ctx, Op::kEq, x, negative ? -inf : inf));
    if (positive && negative) {
      RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kOr, {pos, neg}));
    } else if (positive || negative) {
      r = positive ? pos : neg;
    } else {
      RK_ASSIGN_OR_RETURN(NodeId none, ctx.Emit(Op::kNe, {pos, pos}));
      r = none;
    }
  } else {
    return ctx.Unsupported("this op");
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertNormReduce(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const int rank = ctx.type(x).shape.rank();
  RK_ASSIGN_OR_RETURN(int64_t keepdims, ctx.AttrInt("keepdims", 1));
  // The axes became input 1 in opset 18. No axes with noop_with_empty_axes=1
  // reduces over no axis: each element alone, so the elementwise parts still
  // apply (ReduceSumSquare squares, ReduceLogSum takes the log), as ONNX
  // Runtime computes it.
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, ReduceAxes(ctx, rank, 18));
  auto sum = [&](NodeId v) -> absl::StatusOr<NodeId> {
    if (!axes.has_value()) return v;
    Attributes attrs;
    attrs.Set("axes", *axes);
    attrs.Set("keepdim", keepdims != 0);
    return ctx.Emit(Op::kReduceSum, {v}, std::move(attrs));
  };
  NodeId r;
  if (type == "ReduceL1") {
    RK_ASSIGN_OR_RETURN(NodeId a, ctx.Emit(Op::kAbs, {x}));
    RK_ASSIGN_OR_RETURN(r, sum(a));
  } else if (type == "ReduceL2" || type == "ReduceSumSquare") {
    RK_ASSIGN_OR_RETURN(NodeId sq, ctx.Emit(Op::kMul, {x, x}));
    RK_ASSIGN_OR_RETURN(r, sum(sq));
    if (type == "ReduceL2") {
      RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kSqrt, {r}));
    }
  } else if (type == "ReduceLogSum") {
    RK_ASSIGN_OR_RETURN(NodeId s, sum(x));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kLog, {s}));
  } else {  // ReduceLogSumExp: log(sum(exp(x)))
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {x}));
    RK_ASSIGN_OR_RETURN(NodeId s, sum(e));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kLog, {s}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertInstanceNorm(NodeContext& ctx) {
  // Per sample and channel over the spatial dims:
  // (x - mean) / sqrt(var + eps) * scale[c] + bias[c].
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId scale, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(NodeId bias, ctx.Input(2));
  RK_ASSIGN_OR_RETURN(double eps, ctx.AttrFloat("epsilon", 1e-5));
  const int rank = ctx.type(x).shape.rank();
  if (rank < 3) return ctx.Error("the input needs spatial dims (rank >= 3)");
  std::vector<int64_t> axes;
  for (int k = 2; k < rank; ++k) axes.push_back(k);
  auto mean = [&](NodeId v) -> absl::StatusOr<NodeId> {
    Attributes attrs;
    attrs.Set("axes", axes);
    attrs.Set("keepdim", true);
    return ctx.Emit(Op::kReduceMean, {v}, std::move(attrs));
  };
  std::vector<int64_t> channel(rank - 1, 1);
  channel[0] = ctx.type(scale).num_elements();
  RK_ASSIGN_OR_RETURN(NodeId m, mean(x));
  RK_ASSIGN_OR_RETURN(NodeId centered, ctx.Emit(Op::kSub, {x, m}));
  RK_ASSIGN_OR_RETURN(NodeId sq, ctx.Emit(Op::kMul, {centered, centered}));
  RK_ASSIGN_OR_RETURN(NodeId var, mean(sq));
  RK_ASSIGN_OR_RETURN(NodeId ve, WithScalar(ctx, Op::kAdd, var, eps));
  RK_ASSIGN_OR_RETURN(NodeId sd, ctx.Emit(Op::kSqrt, {ve}));
  RK_ASSIGN_OR_RETURN(NodeId normalized, ctx.Emit(Op::kDiv, {centered, sd}));
  RK_ASSIGN_OR_RETURN(NodeId s, Layout(ctx, Op::kReshape, scale, "shape", channel));
  RK_ASSIGN_OR_RETURN(NodeId b, Layout(ctx, Op::kReshape, bias, "shape", channel));
  RK_ASSIGN_OR_RETURN(NodeId scaled, ctx.Emit(Op::kMul, {normalized, s}));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kAdd, {scaled, b}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertGroupNorm(NodeContext& ctx) {
  // Per sample and group of C / G channels over those channels and the
  // spatial dims: (x - mean) / sqrt(var + eps), then scale and bias: one per
  // group in opset 18, one per channel from opset 21, which also computes
  // the statistics in f32 for 16-bit inputs (stash_type 1).
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId scale, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(NodeId bias, ctx.Input(2));
  RK_ASSIGN_OR_RETURN(double eps, ctx.AttrFloat("epsilon", 1e-5));
  RK_ASSIGN_OR_RETURN(int64_t groups, ctx.AttrInt("num_groups", 0));
  const Shape shape = ctx.type(x).shape;
  if (shape.rank() < 2) return ctx.Error("the input needs a channel dim (rank >= 2)");
  const int64_t n = shape.dim(0), c = shape.dim(1);
  if (groups <= 0 || c % groups != 0) {
    return ctx.Error(absl::StrCat("num_groups ", groups, " does not divide the ", c, " channels"));
  }
  const bool per_channel = ctx.opset() >= 21;
  if (!per_channel && ctx.FindAttr("stash_type") != nullptr) {
    return ctx.Error("attribute 'stash_type' is from opset 21");
  }
  RK_ASSIGN_OR_RETURN(int64_t stash, ctx.AttrInt("stash_type", 1));
  if (stash != 1) return ctx.Unsupported("stash_type other than 1 (float)");
  const int64_t params = per_channel ? c : groups;
  for (NodeId p : {scale, bias}) {
    if (ctx.type(p).num_elements() != params) {
      return ctx.Error(absl::StrCat("scale and bias need ", params, " values (one per ",
                                    per_channel ? "channel from opset 21" : "group in opset 18",
                                    "), got ", ctx.type(p).ToString()));
    }
  }
  const DType dtype = ctx.type(x).dtype;
  NodeId wide = x;
  if (per_channel && IsLowPrecision(dtype)) {
    Attributes cast;
    cast.Set("dtype", DType::kF32);
    RK_ASSIGN_OR_RETURN(wide, ctx.Emit(Op::kCast, {x}, std::move(cast)));
  }
  const int64_t per_group = shape.num_elements() / std::max<int64_t>(n * groups, 1);
  RK_ASSIGN_OR_RETURN(NodeId grouped, Layout(ctx, Op::kReshape, wide, "shape", {n, groups, per_group}));
  auto mean = [&](NodeId v) -> absl::StatusOr<NodeId> {
    Attributes attrs;
    attrs.Set("axes", std::vector<int64_t>{2});
    attrs.Set("keepdim", true);
    return ctx.Emit(Op::kReduceMean, {v}, std::move(attrs));
  };
  RK_ASSIGN_OR_RETURN(NodeId m, mean(grouped));
  RK_ASSIGN_OR_RETURN(NodeId centered, ctx.Emit(Op::kSub, {grouped, m}));
  RK_ASSIGN_OR_RETURN(NodeId sq, ctx.Emit(Op::kMul, {centered, centered}));
  RK_ASSIGN_OR_RETURN(NodeId var, mean(sq));
  RK_ASSIGN_OR_RETURN(NodeId ve, WithScalar(ctx, Op::kAdd, var, eps));
  RK_ASSIGN_OR_RETURN(NodeId sd, ctx.Emit(Op::kSqrt, {ve}));
  RK_ASSIGN_OR_RETURN(NodeId normalized, ctx.Emit(Op::kDiv, {centered, sd}));
  RK_ASSIGN_OR_RETURN(normalized, Layout(ctx, Op::kReshape, normalized, "shape", shape.dims()));
  if (wide != x) {
    Attributes cast;
    cast.Set("dtype", dtype);
    RK_ASSIGN_OR_RETURN(normalized, ctx.Emit(Op::kCast, {normalized}, std::move(cast)));
  }
  // Scale and bias as [C, 1, ...] (a group's value repeated over its channels).
  std::vector<int64_t> channel(shape.rank() - 1, 1);
  channel[0] = c;
  auto per_channel_vector = [&](NodeId v) -> absl::StatusOr<NodeId> {
    if (!per_channel) {
      RK_ASSIGN_OR_RETURN(v, Layout(ctx, Op::kReshape, v, "shape", {groups, 1}));
      RK_ASSIGN_OR_RETURN(v, Layout(ctx, Op::kBroadcastTo, v, "shape", {groups, c / groups}));
    }
    return Layout(ctx, Op::kReshape, v, "shape", channel);
  };
  RK_ASSIGN_OR_RETURN(NodeId s, per_channel_vector(scale));
  RK_ASSIGN_OR_RETURN(NodeId b, per_channel_vector(bias));
  RK_ASSIGN_OR_RETURN(NodeId scaled, ctx.Emit(Op::kMul, {normalized, s}));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kAdd, {scaled, b}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertSpaceDepth(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape s = ctx.type(x).shape;
  if (s.rank() != 4) return ctx.Error("the input must be NCHW (rank 4)");
  RK_ASSIGN_OR_RETURN(int64_t b, ctx.AttrInt("blocksize", 0));
  if (b <= 0) return ctx.Error("blocksize must be positive");
  const int64_t n = s.dim(0), c = s.dim(1), h = s.dim(2), w = s.dim(3);
  NodeId r;
  if (ctx.node().op_type() == "DepthToSpace") {
    RK_ASSIGN_OR_RETURN(std::string mode, ctx.AttrString("mode", "DCR"));
    if (c % (b * b) != 0) return ctx.Error("channels not divisible by blocksize^2");
    const int64_t oc = c / (b * b);
    std::vector<int64_t> split, perm;
    if (mode == "DCR") {
      split = {n, b, b, oc, h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      split = {n, oc, b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return ctx.Unsupported(absl::StrCat("mode '", mode, "'"));
    }
    RK_ASSIGN_OR_RETURN(NodeId t, Layout(ctx, Op::kReshape, x, "shape", split));
    RK_ASSIGN_OR_RETURN(t, Layout(ctx, Op::kTranspose, t, "perm", perm));
    RK_ASSIGN_OR_RETURN(r, Layout(ctx, Op::kReshape, t, "shape", {n, oc, h * b, w * b}));
  } else {
    if (h % b != 0 || w % b != 0) return ctx.Error("height or width not divisible by blocksize");
    RK_ASSIGN_OR_RETURN(NodeId t,
                        Layout(ctx, Op::kReshape, x, "shape", {n, c, h / b, b, w / b, b}));
    RK_ASSIGN_OR_RETURN(t, Layout(ctx, Op::kTranspose, t, "perm", {0, 3, 5, 1, 2, 4}));
    RK_ASSIGN_OR_RETURN(r, Layout(ctx, Op::kReshape, t, "shape", {n, c * b * b, h / b, w / b}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertTrilu(NodeContext& ctx) {
  // where(mask, x, 0) with a constant mask over the last two dims.
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape s = ctx.type(x).shape;
  if (s.rank() < 2) return ctx.Error("the input needs rank >= 2");
  RK_ASSIGN_OR_RETURN(int64_t upper, ctx.AttrInt("upper", 1));
  int64_t k = 0;
  if (ctx.HasInput(1)) {
    RK_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.ConstantInts(1));
    if (kv.size() != 1) return ctx.Error("k must be a scalar");
    k = kv[0];
  }
  const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  HostTensor mask(TensorType(DType::kBool, Shape({rows, cols})));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      mask.SetInt(i * cols + j, upper != 0 ? j - i >= k : j - i <= k);
    }
  }
  RK_ASSIGN_OR_RETURN(NodeId m, ctx.EmitConstant(std::move(mask)));
  RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(ctx.type(x).dtype, 0.0));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kWhere, {m, x, zero}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
