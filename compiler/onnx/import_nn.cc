// ONNX reductions, matmul, normalization, convolution, Pad and CumSum.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

absl::StatusOr<NodeId> Reshape(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Unsqueeze(NodeContext& ctx, NodeId x, std::vector<int64_t> axes) {
  Attributes attrs;
  attrs.Set("axes", std::move(axes));
  return ctx.Emit(Op::kUnsqueeze, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Squeeze(NodeContext& ctx, NodeId x, std::vector<int64_t> axes) {
  Attributes attrs;
  attrs.Set("axes", std::move(axes));
  return ctx.Emit(Op::kSqueeze, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Transpose2D(NodeContext& ctx, NodeId x) {
  Attributes attrs;
  attrs.Set("perm", std::vector<int64_t>{1, 0});
  return ctx.Emit(Op::kTranspose, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Scale(NodeContext& ctx, NodeId x, double alpha) {
  if (alpha == 1.0) return x;
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Scalar(ctx.type(x).dtype, alpha));
  return ctx.Emit(Op::kMul, {x, a});
}

// A per-channel vector [C] reshaped to broadcast over NC... ([C,1,...,1]).
absl::StatusOr<NodeId> PerChannel(NodeContext& ctx, NodeId v, int rank) {
  const int64_t c = ctx.type(v).num_elements();
  std::vector<int64_t> dims(std::max(rank - 1, 1), 1);
  dims[0] = c;
  return Reshape(ctx, v, std::move(dims));
}

// Pad modes that repeat the data's own values, one gather per padded axis
// with a constant index vector: position j of the padded axis (j < 0 before
// the data, j >= d after it) reads
//   edge:    clamp(j, 0, d - 1)
//   reflect: j mirrored at both ends without repeating the end element
//            (period 2(d - 1), as numpy.pad's "reflect"; d = 1 reads 0)
//   wrap:    j mod d (opset 19)
absl::StatusOr<NodeId> PadByGather(NodeContext& ctx, NodeId x, const std::vector<int64_t>& pads,
                                   const std::string& mode) {
  RK_ASSIGN_OR_RETURN(Op gather, OpNamed(ctx, "gather"));
  const int rank = ctx.type(x).shape.rank();
  for (int k = 0; k < rank; ++k) {
    const int64_t before = pads[k], after = pads[k + rank];
    if (before == 0 && after == 0) continue;
    const int64_t d = ctx.type(x).shape.dim(k);
    if (d == 0) return ctx.Error(absl::StrCat("mode '", mode, "' pads an empty dim ", k));
    const int64_t n = before + d + after;
    if (n > (int64_t{1} << 31)) return ctx.Error(absl::StrCat("pads make dim ", k, " ", n, " long"));
    HostTensor index(TensorType(DType::kI64, Shape({n})));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = i - before;
      int64_t src;
      if (mode == "edge") {
        src = std::clamp<int64_t>(j, 0, d - 1);
      } else if (mode == "wrap") {
        src = ((j % d) + d) % d;
      } else if (d == 1) {
        src = 0;
      } else {
        const int64_t period = 2 * (d - 1);
        const int64_t m = ((j % period) + period) % period;
        src = m < d ? m : period - m;
      }
      index.SetInt(i, src);
    }
    RK_ASSIGN_OR_RETURN(NodeId indices, ctx.EmitConstant(std::move(index)));
    Attributes g;
    g.Set("axis", int64_t{k});
    RK_ASSIGN_OR_RETURN(x, ctx.Emit(gather, {x, indices}, std::move(g)));
  }
  return x;
}

}  // namespace

// Declared in import_ops.h (Conv here, MaxPool/AveragePool in import_pool.cc).
absl::StatusOr<Window> ReadWindow(NodeContext& ctx, const Shape& x, std::vector<int64_t> kernel) {
  Window w;
  w.kernel = std::move(kernel);
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> strides, ctx.AttrInts("strides"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> pads, ctx.AttrInts("pads"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dilations, ctx.AttrInts("dilations"));
  RK_ASSIGN_OR_RETURN(std::string auto_pad, ctx.AttrString("auto_pad", "NOTSET"));
  w.strides = strides.value_or(std::vector<int64_t>{1, 1});
  w.dilations = dilations.value_or(std::vector<int64_t>{1, 1});
  w.pads = pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
  if (w.kernel.size() != 2 || w.strides.size() != 2 || w.dilations.size() != 2 ||
      w.pads.size() != 4) {
    return ctx.Error("kernel, strides, dilations and pads must be for 2 spatial dims");
  }
  if (auto_pad == "VALID") {
    w.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int k = 0; k < 2; ++k) {
      const int64_t in = x.dim(2 + k);
      const int64_t out = (in + w.strides[k] - 1) / w.strides[k];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[k] + (w.kernel[k] - 1) * w.dilations[k] + 1 - in);
      const int64_t small = total / 2, large = total - total / 2;
      w.pads[k] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads[k + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad != "NOTSET") {
    return ctx.Unsupported(absl::StrCat("auto_pad '", auto_pad, "'"));
  }
  return w;
}

absl::StatusOr<std::optional<std::vector<int64_t>>> ReduceAxes(NodeContext& ctx, int rank,
                                                               int64_t input_opset) {
  using Axes = std::optional<std::vector<int64_t>>;
  std::vector<int64_t> axes;
  bool noop = false;
  if (ctx.opset() >= input_opset) {
    if (ctx.FindAttr("axes") != nullptr) {
      return ctx.Error(absl::StrCat("from opset ", input_opset,
                                    " the axes are input 1, not an attribute"));
    }
    if (ctx.HasInput(1)) {
      RK_ASSIGN_OR_RETURN(axes, ctx.ConstantInts(1));
    }
    RK_ASSIGN_OR_RETURN(int64_t n, ctx.AttrInt("noop_with_empty_axes", 0));
    noop = n != 0;
  } else {
    if (ctx.num_inputs() > 1) {
      return ctx.Error(absl::StrCat("before opset ", input_opset,
                                    " the axes are an attribute, not an input"));
    }
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> a, ctx.AttrInts("axes"));
    if (a.has_value()) axes = *a;
  }
  if (axes.empty()) {
    if (noop || rank == 0) return Axes();
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<int64_t> normalized;
  for (int64_t a : axes) {
    RK_ASSIGN_OR_RETURN(int n, ctx.Axis(a, rank));
    normalized.push_back(n);
  }
  std::sort(normalized.begin(), normalized.end());
  normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
  return Axes(std::move(normalized));
}

absl::Status ConvertReduce(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  const char* name = type == "ReduceSum"    ? "reduce_sum"
                     : type == "ReduceMean" ? "reduce_mean"
                     : type == "ReduceMax"  ? "reduce_max"
                                            : "reduce_min";
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, name));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const int rank = ctx.type(x).shape.rank();
  RK_ASSIGN_OR_RETURN(int64_t keepdims, ctx.AttrInt("keepdims", 1));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes,
                      ReduceAxes(ctx, rank, type == "ReduceSum" ? 13 : 18));
  if (!axes.has_value()) {
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
  // Opset 20 allows bool for ReduceMax (any) and ReduceMin (all); reprokit
  // reduces numbers, so through i32 and back.
  const bool boolean = ctx.type(x).dtype == DType::kBool && (op == Op::kReduceMax || op == Op::kReduceMin);
  if (boolean) {
    if (ctx.opset() < 20) return ctx.Error("bool input before opset 20");
    Attributes cast;
    cast.Set("dtype", DType::kI32);
    RK_ASSIGN_OR_RETURN(x, ctx.Emit(Op::kCast, {x}, std::move(cast)));
  }
  Attributes attrs;
  attrs.Set("axes", *std::move(axes));
  attrs.Set("keepdim", keepdims != 0);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(op, {x}, std::move(attrs)));
  if (boolean) {
    Attributes cast;
    cast.Set("dtype", DType::kBool);
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kCast, {r}, std::move(cast)));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertArgMax(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrInt("axis", 0));
  RK_ASSIGN_OR_RETURN(int64_t keepdims, ctx.AttrInt("keepdims", 1));
  RK_ASSIGN_OR_RETURN(int64_t last, ctx.AttrInt("select_last_index", 0));
  RK_ASSIGN_OR_RETURN(int a, ctx.Axis(axis, ctx.type(x).shape.rank()));
  if (ctx.node().op_type() == "ArgMin") {
    RK_ASSIGN_OR_RETURN(x, ctx.Emit(Op::kNeg, {x}));
  }
  const int64_t n = ctx.type(x).shape.dim(a);
  if (last != 0) {
    // The last maximum is the first one of the reversed axis.
    RK_ASSIGN_OR_RETURN(Op gather, OpNamed(ctx, "gather"));
    HostTensor order(TensorType(DType::kI64, Shape({n})));
    for (int64_t k = 0; k < n; ++k) order.SetInt(k, n - 1 - k);
    RK_ASSIGN_OR_RETURN(NodeId indices, ctx.EmitConstant(std::move(order)));
    Attributes g;
    g.Set("axis", int64_t{a});
    RK_ASSIGN_OR_RETURN(x, ctx.Emit(gather, {x, indices}, std::move(g)));
  }
  Attributes attrs;
  attrs.Set("axis", int64_t{a});
  attrs.Set("keepdim", keepdims != 0);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kArgmax, {x}, std::move(attrs)));
  if (last != 0) {
    RK_ASSIGN_OR_RETURN(NodeId top, ctx.Scalar(DType::kI64, static_cast<double>(n - 1)));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kSub, {top, r}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertMatMul(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(1));
  const bool a_vector = ctx.type(a).shape.rank() == 1;
  const bool b_vector = ctx.type(b).shape.rank() == 1;
  if (a_vector) {
    RK_ASSIGN_OR_RETURN(a, Unsqueeze(ctx, a, {0}));
  }
  if (b_vector) {
    RK_ASSIGN_OR_RETURN(b, Unsqueeze(ctx, b, {1}));
  }
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kMatmul, {a, b}));
  const int rank = ctx.type(r).shape.rank();
  std::vector<int64_t> drop;
  if (a_vector) drop.push_back(rank - 2);
  if (b_vector) drop.push_back(rank - 1);
  if (!drop.empty()) {
    RK_ASSIGN_OR_RETURN(r, Squeeze(ctx, r, drop));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertGemm(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(double alpha, ctx.AttrFloat("alpha", 1.0));
  RK_ASSIGN_OR_RETURN(double beta, ctx.AttrFloat("beta", 1.0));
  RK_ASSIGN_OR_RETURN(int64_t trans_a, ctx.AttrInt("transA", 0));
  RK_ASSIGN_OR_RETURN(int64_t trans_b, ctx.AttrInt("transB", 0));
  if (trans_a != 0) {
    RK_ASSIGN_OR_RETURN(a, Transpose2D(ctx, a));
  }
  if (trans_b != 0) {
    RK_ASSIGN_OR_RETURN(b, Transpose2D(ctx, b));
  }
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kMatmul, {a, b}));
  RK_ASSIGN_OR_RETURN(r, Scale(ctx, r, alpha));
  if (ctx.HasInput(2) && beta != 0) {
    RK_ASSIGN_OR_RETURN(NodeId c, ctx.Input(2));
    RK_ASSIGN_OR_RETURN(c, Scale(ctx, c, beta));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kAdd, {r, c}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertSoftmax(NodeContext& ctx) {
  const Op op = ctx.node().op_type() == "Softmax" ? Op::kSoftmax : Op::kLogSoftmax;
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape shape = ctx.type(x).shape;
  const int rank = shape.rank();
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", ctx.opset() >= 13 ? -1 : 1));
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, rank));
  Attributes attrs;
  if (ctx.opset() >= 13 || axis == rank - 1) {
    attrs.Set("axis", int64_t{axis});
    RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(op, {x}, std::move(attrs)));
    ctx.SetOutput(0, r);
    return absl::OkStatus();
  }
  // Before opset 13 the input is seen as 2-D: [dims before axis, the rest].
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < rank; ++k) (k < axis ? outer : inner) *= shape.dim(k);
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshape(ctx, x, {outer, inner}));
  attrs.Set("axis", int64_t{1});
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(op, {flat}, std::move(attrs)));
  RK_ASSIGN_OR_RETURN(r, Reshape(ctx, r, shape.dims()));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertLayerNorm(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId gamma, ctx.Input(1));
  const Shape shape = ctx.type(x).shape;
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", -1));
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, shape.rank()));
  RK_ASSIGN_OR_RETURN(double eps, ctx.AttrFloat("epsilon", 1e-5));
  // reprokit's layer_norm normalizes the last dim: fold the normalized dims
  // into one.
  std::vector<int64_t> normalized(shape.dims().begin() + axis, shape.dims().end());
  int64_t inner = 1;
  for (int64_t d : normalized) inner *= d;
  std::vector<int64_t> flat_dims(shape.dims().begin(), shape.dims().begin() + axis);
  flat_dims.push_back(inner);
  auto as_vector = [&](NodeId v) -> absl::StatusOr<NodeId> {
    if (ctx.type(v).shape.dims() != normalized) {
      Attributes attrs;
      attrs.Set("shape", normalized);
      RK_ASSIGN_OR_RETURN(v, ctx.Emit(Op::kBroadcastTo, {v}, std::move(attrs)));
    }
    return Reshape(ctx, v, {inner});
  };
  RK_ASSIGN_OR_RETURN(gamma, as_vector(gamma));
  NodeId beta;
  if (ctx.HasInput(2)) {
    RK_ASSIGN_OR_RETURN(beta, ctx.Input(2));
    RK_ASSIGN_OR_RETURN(beta, as_vector(beta));
  } else {
    Attributes zeros;
    zeros.Set("value", 0.0);
    zeros.Set("dtype", ctx.type(x).dtype);
    zeros.Set("shape", std::vector<int64_t>{inner});
    RK_ASSIGN_OR_RETURN(beta, ctx.Emit(Op::kFull, {}, std::move(zeros)));
  }
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshape(ctx, x, flat_dims));
  Attributes attrs;
  attrs.Set("axis", static_cast<int64_t>(flat_dims.size() - 1));
  attrs.Set("eps", eps);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kLayerNorm, {flat, gamma, beta}, std::move(attrs)));
  RK_ASSIGN_OR_RETURN(r, Reshape(ctx, r, shape.dims()));
  ctx.SetOutput(0, r);
  const bool stats = (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) ||
                     (ctx.node().output_size() > 2 && !ctx.node().output(2).empty());
  if (!stats) return absl::OkStatus();
  // Mean and 1 / sqrt(variance + eps) over the normalized dims, computed in
  // f32 for 16-bit inputs (ONNX's stash_type 1), shaped like the input with
  // the normalized dims kept as 1.
  RK_ASSIGN_OR_RETURN(int64_t stash, ctx.AttrInt("stash_type", 1));
  if (stash != 1) return ctx.Unsupported("stash_type other than 1 (float)");
  NodeId wide = flat;
  if (IsLowPrecision(ctx.type(flat).dtype)) {
    Attributes cast;
    cast.Set("dtype", DType::kF32);
    RK_ASSIGN_OR_RETURN(wide, ctx.Emit(Op::kCast, {flat}, std::move(cast)));
  }
  auto mean_of = [&](NodeId v) -> absl::StatusOr<NodeId> {
    Attributes reduce;
    reduce.Set("axes", std::vector<int64_t>{static_cast<int64_t>(flat_dims.size() - 1)});
    reduce.Set("keepdim", true);
    return ctx.Emit(Op::kReduceMean, {v}, std::move(reduce));
  };
  RK_ASSIGN_OR_RETURN(NodeId mean, mean_of(wide));
  RK_ASSIGN_OR_RETURN(NodeId centered, ctx.Emit(Op::kSub, {wide, mean}));
  RK_ASSIGN_OR_RETURN(NodeId square, ctx.Emit(Op::kMul, {centered, centered}));
  RK_ASSIGN_OR_RETURN(NodeId var, mean_of(square));
  RK_ASSIGN_OR_RETURN(NodeId e, ctx.Scalar(ctx.type(var).dtype, eps));
  RK_ASSIGN_OR_RETURN(NodeId shifted, ctx.Emit(Op::kAdd, {var, e}));
  RK_ASSIGN_OR_RETURN(NodeId inv, ctx.Emit(Op::kRsqrt, {shifted}));
  std::vector<int64_t> stat_dims(shape.dims().begin(), shape.dims().begin() + axis);
  stat_dims.resize(shape.rank(), 1);
  RK_ASSIGN_OR_RETURN(mean, Reshape(ctx, mean, stat_dims));
  RK_ASSIGN_OR_RETURN(inv, Reshape(ctx, inv, stat_dims));
  ctx.SetOutput(1, mean);
  ctx.SetOutput(2, inv);
  return absl::OkStatus();
}

absl::Status ConvertBatchNorm(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(int64_t training, ctx.AttrInt("training_mode", 0));
  if (training != 0) return ctx.Unsupported("training_mode=1");
  for (int i = 1; i < ctx.node().output_size(); ++i) {
    if (!ctx.node().output(i).empty()) return ctx.Unsupported("the running mean / var outputs");
  }
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const int rank = ctx.type(x).shape.rank();
  if (rank < 2) return ctx.Error("the input needs a channel dim (rank >= 2)");
  RK_ASSIGN_OR_RETURN(double eps, ctx.AttrFloat("epsilon", 1e-5));
  NodeId params[4];
  for (int i = 0; i < 4; ++i) {
    RK_ASSIGN_OR_RETURN(NodeId p, ctx.Input(i + 1));
    RK_ASSIGN_OR_RETURN(params[i], PerChannel(ctx, p, rank));
  }
  const auto [scale, bias, mean, var] = params;
  // (x - mean) / sqrt(var + eps) * scale + bias
  RK_ASSIGN_OR_RETURN(NodeId e, ctx.Scalar(ctx.type(var).dtype, eps));
  RK_ASSIGN_OR_RETURN(NodeId ve, ctx.Emit(Op::kAdd, {var, e}));
  RK_ASSIGN_OR_RETURN(NodeId sd, ctx.Emit(Op::kSqrt, {ve}));
  RK_ASSIGN_OR_RETURN(NodeId centered, ctx.Emit(Op::kSub, {x, mean}));
  RK_ASSIGN_OR_RETURN(NodeId normalized, ctx.Emit(Op::kDiv, {centered, sd}));
  RK_ASSIGN_OR_RETURN(NodeId scaled, ctx.Emit(Op::kMul, {normalized, scale}));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kAdd, {scaled, bias}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertConv(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op conv, OpNamed(ctx, "conv2d"));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId w, ctx.Input(1));
  const int rank = ctx.type(x).shape.rank();
  if (rank == 5) return ConvertConv3d(ctx);
  if (rank != 3 && rank != 4) return ctx.Unsupported(absl::StrCat(rank - 2, "-D convolution"));
  const bool one_d = rank == 3;
  if (one_d) {
    // Conv1d as Conv2d over a height of 1.
    RK_ASSIGN_OR_RETURN(x, Unsqueeze(ctx, x, {2}));
    RK_ASSIGN_OR_RETURN(w, Unsqueeze(ctx, w, {2}));
  }
  const Shape ws = ctx.type(w).shape;
  std::vector<int64_t> kernel = {ws.dim(2), ws.dim(3)};
  absl::StatusOr<Window> window;
  if (one_d) {
    // Read the 1-D attributes and widen them.
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> s, ctx.AttrInts("strides"));
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> p, ctx.AttrInts("pads"));
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> d, ctx.AttrInts("dilations"));
    RK_ASSIGN_OR_RETURN(std::string auto_pad, ctx.AttrString("auto_pad", "NOTSET"));
    if (auto_pad != "NOTSET" && auto_pad != "VALID") {
      return ctx.Unsupported("auto_pad SAME_* on a 1-D convolution");
    }
    Window w1;
    w1.kernel = kernel;
    w1.strides = {1, s.has_value() && s->size() == 1 ? (*s)[0] : 1};
    w1.dilations = {1, d.has_value() && d->size() == 1 ? (*d)[0] : 1};
    w1.pads = {0, 0, 0, 0};
    if (p.has_value() && p->size() == 2 && auto_pad == "NOTSET") w1.pads = {0, (*p)[0], 0, (*p)[1]};
    window = w1;
  } else {
    window = ReadWindow(ctx, ctx.type(x).shape, kernel);
  }
  if (!window.ok()) return window.status();
  RK_ASSIGN_OR_RETURN(int64_t group, ctx.AttrInt("group", 1));
  Attributes attrs;
  attrs.Set("strides", window->strides);
  attrs.Set("pads", window->pads);
  attrs.Set("dilations", window->dilations);
  attrs.Set("groups", group);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(conv, {x, w}, std::move(attrs)));
  if (ctx.HasInput(2)) {
    RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(2));
    RK_ASSIGN_OR_RETURN(b, PerChannel(ctx, b, 4));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kAdd, {r, b}));
  }
  if (one_d) {
    RK_ASSIGN_OR_RETURN(r, Squeeze(ctx, r, {2}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertPad(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op pad, OpNamed(ctx, "pad"));
  RK_ASSIGN_OR_RETURN(std::string mode, ctx.AttrString("mode", "constant"));
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      !(mode == "wrap" && ctx.opset() >= 19)) {
    return ctx.Unsupported(absl::StrCat("mode '", mode, "' (opset ", ctx.opset(), ")"));
  }
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape shape = ctx.type(x).shape;
  const int rank = shape.rank();
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.opset() < 11) {
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> p, ctx.AttrInts("pads"));
    if (!p.has_value()) return ctx.Error("no pads");
    pads = *p;
    RK_ASSIGN_OR_RETURN(value, ctx.AttrFloat("value", 0.0));
  } else {
    RK_ASSIGN_OR_RETURN(pads, ctx.ConstantInts(1));
    if (ctx.HasInput(2)) {
      RK_ASSIGN_OR_RETURN(HostTensor v, ctx.ConstantInput(2));
      if (v.num_elements() != 1) return ctx.Error("constant_value must be a scalar");
      if (v.dtype() != ctx.type(x).dtype) {
        return ctx.Error(absl::StrCat("constant_value is ", std::string(DTypeName(v.dtype())),
                                      ", the data ", std::string(DTypeName(ctx.type(x).dtype))));
      }
      value = v.GetDouble(0);
    }
    if (ctx.num_inputs() > 3 && ctx.opset() < 18) {
      return ctx.Error("input 3 (axes) is from opset 18");
    }
    if (ctx.HasInput(3)) {
      // Pads for some axes only: widen to every axis.
      RK_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantInts(3));
      if (pads.size() != 2 * axes.size()) return ctx.Error("pads and axes differ in length");
      std::vector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes.size(); ++i) {
        RK_ASSIGN_OR_RETURN(int a, ctx.Axis(axes[i], rank));
        full[a] = pads[i];
        full[a + rank] = pads[i + axes.size()];
      }
      pads = full;
    }
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return ctx.Error(absl::StrCat(pads.size(), " pads for rank ", rank, " (needs ", 2 * rank, ")"));
  }
  // The value as the data's float type holds it (an opset < 11 `value` is a
  // 32-bit float attribute, narrower or wider than the data; found by the
  // onnx_import harness with an int64 constant_value, now refused above).
  if (IsFloat(ctx.type(x).dtype)) {
    value = HostTensor::Full(TensorType(ctx.type(x).dtype, {}), value).GetDouble(0);
  }
  // Negative pads crop: a slice first, then the non-negative padding.
  std::vector<int64_t> start(rank, 0), limit = shape.dims(), stride(rank, 1);
  bool crop = false;
  for (int k = 0; k < rank; ++k) {
    // Compared before negating: -INT64_MIN does not exist.
    if (pads[k] < -shape.dim(k) || pads[k + rank] < -shape.dim(k)) {
      return ctx.Error("negative pads remove more than the dim");
    }
    if (pads[k] < 0) {
      start[k] = -pads[k];
      pads[k] = 0;
      crop = true;
    }
    if (pads[k + rank] < 0) {
      limit[k] += pads[k + rank];
      pads[k + rank] = 0;
      crop = true;
    }
    if (start[k] > limit[k]) return ctx.Error("negative pads remove more than the dim");
  }
  if (crop) {
    Attributes s;
    s.Set("start", start);
    s.Set("limit", limit);
    s.Set("stride", stride);
    RK_ASSIGN_OR_RETURN(x, ctx.Emit(Op::kSlice, {x}, std::move(s)));
  }
  if (mode != "constant") {
    RK_ASSIGN_OR_RETURN(NodeId r, PadByGather(ctx, x, pads, mode));
    ctx.SetOutput(0, r);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("pads", pads);
  attrs.Set("value", value);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(pad, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertCumSum(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op cumsum, OpNamed(ctx, "cumsum"));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstantInts(1));
  if (axis.size() != 1) return ctx.Error("axis must be a scalar");
  RK_ASSIGN_OR_RETURN(int a, ctx.Axis(axis[0], ctx.type(x).shape.rank()));
  RK_ASSIGN_OR_RETURN(int64_t exclusive, ctx.AttrInt("exclusive", 0));
  RK_ASSIGN_OR_RETURN(int64_t reverse, ctx.AttrInt("reverse", 0));
  Attributes attrs;
  attrs.Set("axis", int64_t{a});
  attrs.Set("exclusive", exclusive != 0);
  attrs.Set("reverse", reverse != 0);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(cumsum, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
