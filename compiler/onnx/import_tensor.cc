// ONNX tensor ops: constants, shapes, layout. Shape arithmetic folds to
// constants (import_context.h), so the inputs that must be known (Reshape's
// shape, Slice's starts, ...) are read with ConstantInts.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/onnx/import_ops.h"
#include "compiler/onnx/onnx_tensor.h"

namespace rk::compiler::onnx_io {
namespace {

HostTensor Int64Vector(const std::vector<int64_t>& values) {
  HostTensor t(TensorType(DType::kI64, Shape({static_cast<int64_t>(values.size())})));
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}

absl::StatusOr<NodeId> Reshape(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> SliceAxis(NodeContext& ctx, NodeId x, int axis, int64_t start,
                                 int64_t limit, int64_t stride = 1) {
  const Shape shape = ctx.type(x).shape;
  std::vector<int64_t> starts(shape.rank(), 0), limits = shape.dims(), strides(shape.rank(), 1);
  starts[axis] = start;
  limits[axis] = limit;
  strides[axis] = stride;
  if (start == 0 && limit == shape.dim(axis) && stride == 1) return x;
  Attributes attrs;
  attrs.Set("start", std::move(starts));
  attrs.Set("limit", std::move(limits));
  attrs.Set("stride", std::move(strides));
  return ctx.Emit(Op::kSlice, {x}, std::move(attrs));
}

// Axes from the attribute (before `input_opset`) or from input 1.
absl::StatusOr<std::optional<std::vector<int64_t>>> AxesOf(NodeContext& ctx, int64_t input_opset,
                                                           int input) {
  if (ctx.opset() < input_opset) return ctx.AttrInts("axes");
  if (!ctx.HasInput(input)) return std::optional<std::vector<int64_t>>();
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantInts(input));
  return std::optional<std::vector<int64_t>>(std::move(axes));
}

absl::StatusOr<std::vector<int64_t>> NormalizedAxes(NodeContext& ctx,
                                                    const std::vector<int64_t>& axes, int rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    RK_ASSIGN_OR_RETURN(int n, ctx.Axis(a, rank));
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    return ctx.Error(absl::StrCat("repeated axis in [", absl::StrJoin(axes, ","), "]"));
  }
  return out;
}

}  // namespace

absl::Status ConvertConstant(NodeContext& ctx) {
  if (ctx.node().attribute_size() != 1) {
    return ctx.Error("a Constant needs exactly one value attribute");
  }
  const onnx::AttributeProto& a = ctx.node().attribute(0);
  HostTensor value;
  if (a.name() == "value") {
    absl::StatusOr<HostTensor> t = TensorFromProto(a.t(), ctx.model_dir());
    if (!t.ok()) return ctx.Error(std::string(t.status().message()));
    value = *std::move(t);
  } else if (a.name() == "value_float") {
    value = HostTensor::Full(TensorType(DType::kF32, Shape()), a.f());
  } else if (a.name() == "value_int") {
    value = HostTensor(TensorType(DType::kI64, Shape()));
    value.SetInt(0, a.i());
  } else if (a.name() == "value_floats") {
    value = HostTensor(TensorType(DType::kF32, Shape({a.floats_size()})));
    for (int i = 0; i < a.floats_size(); ++i) value.data<float>()[i] = a.floats(i);
  } else if (a.name() == "value_ints") {
    value = Int64Vector(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  } else {
    return ctx.Unsupported(absl::StrCat("attribute '", a.name(), "'"));
  }
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.EmitConstant(std::move(value)));
  ctx.SetOutput(0, c);
  return absl::OkStatus();
}

absl::Status ConvertShape(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const std::vector<int64_t> dims = ctx.type(x).shape.dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  RK_ASSIGN_OR_RETURN(int64_t start, ctx.AttrInt("start", 0));
  RK_ASSIGN_OR_RETURN(int64_t end, ctx.AttrInt("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.EmitConstant(Int64Vector(
                                    std::vector<int64_t>(dims.begin() + start, dims.begin() + end))));
  ctx.SetOutput(0, c);
  return absl::OkStatus();
}

absl::Status ConvertSize(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  HostTensor n(TensorType(DType::kI64, Shape()));
  n.SetInt(0, ctx.type(x).num_elements());
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.EmitConstant(std::move(n)));
  ctx.SetOutput(0, c);
  return absl::OkStatus();
}

absl::Status ConvertConstantOfShape(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.ConstantInts(0));
  DType dtype = DType::kF32;
  double value = 0;
  if (const onnx::AttributeProto* a = ctx.FindAttr("value"); a != nullptr) {
    absl::StatusOr<HostTensor> t = TensorFromProto(a->t(), ctx.model_dir());
    if (!t.ok()) return ctx.Error(std::string(t.status().message()));
    if (t->num_elements() != 1) return ctx.Error("'value' must have one element");
    dtype = t->dtype();
    value = t->GetDouble(0);
  }
  Attributes attrs;
  attrs.Set("value", value);
  attrs.Set("dtype", dtype);
  attrs.Set("shape", std::move(dims));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kFull, {}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertRange(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(HostTensor start, ctx.ConstantInput(0));
  RK_ASSIGN_OR_RETURN(HostTensor limit, ctx.ConstantInput(1));
  RK_ASSIGN_OR_RETURN(HostTensor delta, ctx.ConstantInput(2));
  if (start.num_elements() != 1 || limit.num_elements() != 1 || delta.num_elements() != 1) {
    return ctx.Error("start, limit and delta must be scalars");
  }
  const DType dtype = start.dtype();
  const double s = start.GetDouble(0), l = limit.GetDouble(0), d = delta.GetDouble(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    return ctx.Error("delta must be non-zero and the bounds finite");
  }
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > double{1 << 24}) return ctx.Error(absl::StrCat("range of ", count, " elements"));
  HostTensor out(TensorType(dtype, Shape({static_cast<int64_t>(count)})));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    if (IsFloat(dtype)) {
      out.SetDouble(i, s + static_cast<double>(i) * d);
    } else {
      out.SetInt(i, start.GetInt(0) + i * delta.GetInt(0));
    }
  }
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.EmitConstant(std::move(out)));
  ctx.SetOutput(0, c);
  return absl::OkStatus();
}

absl::Status ConvertReshape(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  std::vector<int64_t> dims;
  if (ctx.opset() < 5) {
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> attr, ctx.AttrInts("shape"));
    if (!attr.has_value()) return ctx.Error("no 'shape'");
    dims = *attr;
  } else {
    RK_ASSIGN_OR_RETURN(dims, ctx.ConstantInts(1));
  }
  RK_ASSIGN_OR_RETURN(int64_t allowzero, ctx.AttrInt("allowzero", 0));
  const Shape in = ctx.type(x).shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && allowzero == 0) {
      if (static_cast<int>(i) >= in.rank()) return ctx.Error("0 in 'shape' past the input's rank");
      dims[i] = in.dim(static_cast<int>(i));
    }
    if (dims[i] == -1) {
      if (infer >= 0) return ctx.Error("more than one -1 in 'shape'");
      infer = static_cast<int>(i);
      continue;
    }
    if (dims[i] < 0) return ctx.Error(absl::StrCat("negative dim ", dims[i], " in 'shape'"));
    if (__builtin_mul_overflow(known, dims[i], &known)) {
      return ctx.Error(absl::StrCat("'shape' [", absl::StrJoin(dims, ","),
                                    "] has more elements than 64 bits count"));
    }
  }
  if (infer >= 0) {
    if (known == 0 || in.num_elements() % known != 0) {
      return ctx.Error(absl::StrCat("cannot infer the -1 dim: ", in.num_elements(),
                                    " elements into [", absl::StrJoin(dims, ","), "]"));
    }
    dims[infer] = in.num_elements() / known;
  }
  RK_ASSIGN_OR_RETURN(NodeId r, Reshape(ctx, x, std::move(dims)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertFlatten(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape in = ctx.type(x).shape;
  RK_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrInt("axis", 1));
  if (axis < 0) axis += in.rank();
  if (axis < 0 || axis > in.rank()) return ctx.Error(absl::StrCat("axis ", axis, " out of range"));
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < in.rank(); ++k) (k < axis ? outer : inner) *= in.dim(k);
  RK_ASSIGN_OR_RETURN(NodeId r, Reshape(ctx, x, {outer, inner}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertTranspose(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const int rank = ctx.type(x).shape.rank();
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> perm, ctx.AttrInts("perm"));
  std::vector<int64_t> p(rank);
  if (perm.has_value()) {
    p = *perm;
  } else {
    for (int k = 0; k < rank; ++k) p[k] = rank - 1 - k;
  }
  std::vector<int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  if (p == identity) {
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("perm", std::move(p));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kTranspose, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertSqueeze(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape in = ctx.type(x).shape;
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, AxesOf(ctx, 13, 1));
  std::vector<int64_t> squeezed;
  if (axes.has_value()) {
    RK_ASSIGN_OR_RETURN(squeezed, NormalizedAxes(ctx, *axes, in.rank()));
  } else {
    for (int k = 0; k < in.rank(); ++k) {
      if (in.dim(k) == 1) squeezed.push_back(k);
    }
  }
  if (squeezed.empty()) {
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("axes", std::move(squeezed));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kSqueeze, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertUnsqueeze(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, AxesOf(ctx, 13, 1));
  if (!axes.has_value()) return ctx.Error("no axes");
  const int out_rank = ctx.type(x).shape.rank() + static_cast<int>(axes->size());
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> normalized, NormalizedAxes(ctx, *axes, out_rank));
  Attributes attrs;
  attrs.Set("axes", std::move(normalized));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kUnsqueeze, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertConcat(NodeContext& ctx) {
  std::vector<NodeId> parts;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    RK_ASSIGN_OR_RETURN(NodeId p, ctx.Input(i));
    parts.push_back(p);
  }
  if (parts.empty()) return ctx.Error("no inputs");
  RK_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrInt("axis", 0));
  RK_ASSIGN_OR_RETURN(int a, ctx.Axis(axis, ctx.type(parts[0]).shape.rank()));
  if (parts.size() == 1) {
    ctx.SetOutput(0, parts[0]);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("axis", int64_t{a});
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kConcat, parts, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertSlice(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape in = ctx.type(x).shape;
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> s, ctx.AttrInts("starts"));
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> e, ctx.AttrInts("ends"));
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> a, ctx.AttrInts("axes"));
    if (!s.has_value() || !e.has_value()) return ctx.Error("no starts or ends");
    starts = *s;
    ends = *e;
    if (a.has_value()) axes = *a;
  } else {
    RK_ASSIGN_OR_RETURN(starts, ctx.ConstantInts(1));
    RK_ASSIGN_OR_RETURN(ends, ctx.ConstantInts(2));
    if (ctx.HasInput(3)) {
      RK_ASSIGN_OR_RETURN(axes, ctx.ConstantInts(3));
    }
    if (ctx.HasInput(4)) {
      RK_ASSIGN_OR_RETURN(steps, ctx.ConstantInts(4));
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return ctx.Error("starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> start(in.rank(), 0), limit = in.dims(), stride(in.rank(), 1);
  std::vector<bool> seen(in.rank(), false);
  std::vector<int> reversed;  // axes with negative steps
  for (size_t i = 0; i < starts.size(); ++i) {
    RK_ASSIGN_OR_RETURN(int a, ctx.Axis(axes[i], in.rank()));
    if (seen[a]) return ctx.Error(absl::StrCat("axis ", a, " appears twice"));
    seen[a] = true;
    const int64_t d = in.dim(a);
    int64_t s = starts[i], e = ends[i], step = steps[i];
    if (step == 0) return ctx.Error("a step of 0");
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      start[a] = s;
      limit[a] = std::max(s, e);
      stride[a] = step;
    } else {
      // Walks down from s to (exclusive) e: the same elements as an upward
      // slice, read in reverse with a gather below.
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      const int64_t count = d > 0 && s > e ? (s - e - 1) / (-step) + 1 : 0;
      start[a] = count > 0 ? s - (count - 1) * (-step) : 0;
      limit[a] = count > 0 ? s + 1 : 0;
      stride[a] = -step;
      reversed.push_back(a);
    }
  }
  Attributes attrs;
  attrs.Set("start", start);
  attrs.Set("limit", limit);
  attrs.Set("stride", stride);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kSlice, {x}, std::move(attrs)));
  for (int a : reversed) {
    const int64_t n = ctx.type(r).shape.dim(a);
    if (n <= 1) continue;
    RK_ASSIGN_OR_RETURN(Op gather, OpNamed(ctx, "gather"));
    std::vector<int64_t> order(n);
    for (int64_t k = 0; k < n; ++k) order[k] = n - 1 - k;
    RK_ASSIGN_OR_RETURN(NodeId indices, ctx.EmitConstant(Int64Vector(order)));
    Attributes g;
    g.Set("axis", int64_t{a});
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(gather, {r, indices}, std::move(g)));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertSplit(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const Shape in = ctx.type(x).shape;
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", 0));
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, in.rank()));
  const int outputs = ctx.node().output_size();
  const int64_t d = in.dim(axis);
  std::vector<int64_t> sizes;
  if (ctx.opset() < 13) {
    RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> s, ctx.AttrInts("split"));
    if (s.has_value()) sizes = *s;
  } else if (ctx.HasInput(1)) {
    RK_ASSIGN_OR_RETURN(sizes, ctx.ConstantInts(1));
  }
  const onnx::AttributeProto* num_outputs = ctx.FindAttr("num_outputs");
  if (num_outputs != nullptr && ctx.opset() < 18) {
    return ctx.Error("attribute 'num_outputs' is from opset 18");
  }
  if (num_outputs != nullptr) {
    if (!sizes.empty() || ctx.HasInput(1)) {
      return ctx.Error("both a 'split' input and 'num_outputs' (ONNX allows one)");
    }
    RK_ASSIGN_OR_RETURN(int64_t n, ctx.AttrInt("num_outputs", 0));
    if (n != outputs) {
      return ctx.Error(absl::StrCat("num_outputs=", n, " but the node has ", outputs, " outputs"));
    }
  }
  if (sizes.empty() && !ctx.HasInput(1)) {
    if (outputs <= 0) return ctx.Error("no outputs");
    if (ctx.opset() < 18 && d % outputs != 0) {
      // Before opset 18 equal parts had to be exact.
      return ctx.Error(absl::StrCat("dim ", d, " does not split into ", outputs,
                                    " equal parts (before opset 18 it must)"));
    }
    // Opset 18: parts of ceil(d / n), the last one smaller. Where that
    // leaves the last part empty (9 into 4: 3,3,3,0) the rule as written is
    // followed (ONNX Runtime refuses such a node); a negative last part
    // (5 into 4) is refused.
    const int64_t part = (d + outputs - 1) / outputs;
    const int64_t last = d - part * (outputs - 1);
    if (last < 0) {
      return ctx.Error(absl::StrCat("dim ", d, " into ", outputs, " parts of ", part,
                                    " leaves the last part ", last, " elements"));
    }
    sizes.assign(outputs, part);
    sizes.back() = last;
  }
  if (static_cast<int>(sizes.size()) != outputs) {
    return ctx.Error(absl::StrCat(sizes.size(), " split sizes for ", outputs, " outputs"));
  }
  int64_t offset = 0;
  for (int i = 0; i < outputs; ++i) {
    if (sizes[i] < 0 || offset + sizes[i] > d) {
      return ctx.Error(absl::StrCat("split sizes [", absl::StrJoin(sizes, ","), "] exceed dim ", d));
    }
    RK_ASSIGN_OR_RETURN(NodeId part, SliceAxis(ctx, x, axis, offset, offset + sizes[i]));
    ctx.SetOutput(i, part);
    offset += sizes[i];
  }
  if (offset != d) {
    return ctx.Error(absl::StrCat("split sizes [", absl::StrJoin(sizes, ","), "] do not add up to ", d));
  }
  return absl::OkStatus();
}

absl::Status ConvertExpand(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.ConstantInts(1));
  absl::StatusOr<Shape> shape = BroadcastShapes(ctx.type(x).shape, Shape(dims));
  if (!shape.ok()) return ctx.Error(std::string(shape.status().message()));
  if (*shape == ctx.type(x).shape) {
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("shape", shape->dims());
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kBroadcastTo, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertTile(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.ConstantInts(1));
  if (static_cast<int>(repeats.size()) != ctx.type(x).shape.rank()) {
    return ctx.Error("'repeats' must have one entry per dim");
  }
  NodeId r = x;
  for (size_t a = 0; a < repeats.size(); ++a) {
    if (repeats[a] < 0) return ctx.Error("negative repeat");
    if (repeats[a] == 1) continue;
    if (repeats[a] == 0) {
      RK_ASSIGN_OR_RETURN(r, SliceAxis(ctx, r, static_cast<int>(a), 0, 0));
      continue;
    }
    std::vector<NodeId> copies(repeats[a], r);
    Attributes attrs;
    attrs.Set("axis", static_cast<int64_t>(a));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kConcat, copies, std::move(attrs)));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertGather(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op gather, OpNamed(ctx, "gather"));
  RK_ASSIGN_OR_RETURN(NodeId data, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId indices, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", 0));
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, ctx.type(data).shape.rank()));
  Attributes attrs;
  attrs.Set("axis", int64_t{axis});
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(gather, {data, indices}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
