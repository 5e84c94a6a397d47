#include "compiler/ir/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/shape_inference_internal.h"

namespace rk::compiler {

using shape_inference_internal::CheckDims;
using shape_inference_internal::InferLayout;
using shape_inference_internal::InferWindow;
using shape_inference_internal::NormalizeAxes;
using shape_inference_internal::OpError;
using shape_inference_internal::WithOp;

namespace {

// ---------------------------------------------------------------------------
// Attribute schemas: which attributes each op takes. Every listed attribute is
// required unless marked optional (clip's bounds: absent means unbounded), and
// no other is accepted, so each op has exactly one spelling.

enum class AttrKind { kInt, kFloat, kBool, kInts, kDType, kTensor };

struct AttrSpec {
  const char* name;
  AttrKind kind;
  bool optional = false;
};

std::vector<AttrSpec> AttrSchema(Op op) {
  using K = AttrKind;
  switch (op) {
    case Op::kConstant: return {{"value", K::kTensor}};
    case Op::kFull: return {{"value", K::kFloat}, {"dtype", K::kDType}, {"shape", K::kInts}};
    case Op::kIota: return {{"axis", K::kInt}, {"dtype", K::kDType}, {"shape", K::kInts}};
    case Op::kCast: return {{"dtype", K::kDType}};
    case Op::kClip: return {{"min", K::kFloat, true}, {"max", K::kFloat, true}};
    case Op::kReduceSum:
    case Op::kReduceMean:
    case Op::kReduceMax:
    case Op::kReduceMin: return {{"axes", K::kInts}, {"keepdim", K::kBool}};
    case Op::kArgmax: return {{"axis", K::kInt}, {"keepdim", K::kBool}};
    case Op::kCumsum: return {{"axis", K::kInt}, {"exclusive", K::kBool}, {"reverse", K::kBool}};
    case Op::kPad: return {{"pads", K::kInts}, {"value", K::kFloat}};
    case Op::kReshape:
    case Op::kBroadcastTo: return {{"shape", K::kInts}};
    case Op::kTranspose: return {{"perm", K::kInts}};
    case Op::kSlice: return {{"start", K::kInts}, {"limit", K::kInts}, {"stride", K::kInts}};
    case Op::kConcat:
    case Op::kGather:
    case Op::kSoftmax:
    case Op::kLogSoftmax: return {{"axis", K::kInt}};
    case Op::kSqueeze:
    case Op::kUnsqueeze: return {{"axes", K::kInts}};
    case Op::kLayerNorm:
    case Op::kRmsNorm: return {{"axis", K::kInt}, {"eps", K::kFloat}};
    case Op::kConv2d:
      return {{"strides", K::kInts}, {"pads", K::kInts}, {"dilations", K::kInts},
              {"groups", K::kInt}};
    case Op::kMaxPool2d:
      return {{"kernel", K::kInts}, {"strides", K::kInts}, {"pads", K::kInts},
              {"dilations", K::kInts}};
    case Op::kAvgPool2d:
      return {{"kernel", K::kInts}, {"strides", K::kInts}, {"pads", K::kInts},
              {"count_include_pad", K::kBool}};
    default: return {};
  }
}

const char* AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return "an int";
    case AttrKind::kFloat: return "a float";
    case AttrKind::kBool: return "a bool";
    case AttrKind::kInts: return "an int list";
    case AttrKind::kDType: return "a dtype";
    case AttrKind::kTensor: return "a tensor";
  }
  return "?";
}

bool HasKind(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return std::holds_alternative<int64_t>(value);
    case AttrKind::kFloat:
      return std::holds_alternative<double>(value) || std::holds_alternative<int64_t>(value);
    case AttrKind::kBool: return std::holds_alternative<bool>(value);
    case AttrKind::kInts: return std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::kDType: return std::holds_alternative<DType>(value);
    case AttrKind::kTensor: return std::holds_alternative<HostTensor>(value);
  }
  return false;
}

absl::Status CheckAttributes(Op op, const Attributes& attrs) {
  const std::vector<AttrSpec> schema = AttrSchema(op);
  for (const auto& [name, value] : attrs.values()) {
    auto it = std::find_if(schema.begin(), schema.end(),
                           [&name](const AttrSpec& s) { return name == s.name; });
    if (it == schema.end()) return OpError(op, "unknown attribute '", name, "'");
    if (!HasKind(value, it->kind)) {
      return OpError(op, "attribute '", name, "' must be ", AttrKindName(it->kind));
    }
  }
  for (const AttrSpec& spec : schema) {
    if (!spec.optional && !attrs.Has(spec.name)) {
      return OpError(op, "missing attribute '", spec.name, "'");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckArity(Op op, absl::Span<const TensorType> operands) {
  const int arity = OpArity(op);
  const int n = static_cast<int>(operands.size());
  if (arity < 0 && n == 0) return OpError(op, "expects at least 1 operand, got 0");
  if (arity >= 0 && n != arity) {
    return OpError(op, "expects ", arity, arity == 1 ? " operand" : " operands", ", got ", n);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Dtype rules.

absl::Status RequireFloat(Op op, const TensorType& t) {
  if (IsFloat(t.dtype)) return absl::OkStatus();
  return OpError(op, "expects a float operand, got ", t.ToString());
}

absl::Status RequireNumeric(Op op, const TensorType& t) {
  if (IsFloat(t.dtype) || IsInteger(t.dtype)) return absl::OkStatus();
  return OpError(op, "expects a float or integer operand, got ", t.ToString());
}

absl::Status RequireSameDType(Op op, const TensorType& a, const TensorType& b) {
  if (a.dtype == b.dtype) return absl::OkStatus();
  return OpError(op, "operand dtypes differ: ", a.ToString(), " and ", b.ToString());
}

absl::StatusOr<Shape> BroadcastForOp(Op op, const TensorType& a, const TensorType& b) {
  absl::StatusOr<Shape> shape = BroadcastShapes(a.shape, b.shape);
  if (!shape.ok()) return OpError(op, "cannot broadcast ", a.ToString(), " with ", b.ToString());
  return shape;
}

// ---------------------------------------------------------------------------
// Per-kind inference.

absl::StatusOr<TensorType> InferSource(Op op, const Attributes& attrs) {
  if (op == Op::kConstant) {
    const HostTensor value = attrs.GetTensor("value").value();
    RK_RETURN_IF_ERROR(CheckDims(op, value.shape().dims(), "value"));
    if (!value.valid()) return OpError(op, "value has no storage");
    return value.type();
  }
  const DType dtype = attrs.GetDType("dtype").value();
  const Shape shape(attrs.GetInts("shape").value());
  RK_RETURN_IF_ERROR(CheckDims(op, shape.dims(), "shape"));
  if (op == Op::kFull && !IsFloat(dtype)) {
    // An integer or bool cannot hold inf or nan; converting one is undefined.
    const double value = attrs.GetFloat("value").value();
    if (!std::isfinite(value)) {
      return OpError(op, "value ", absl::StrCat(value), " is not representable in ",
                     std::string(DTypeName(dtype)));
    }
  }
  if (op == Op::kIota) {
    if (dtype == DType::kBool) return OpError(op, "dtype must be a float or integer type, not bool");
    absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), shape.rank());
    if (!axis.ok()) return WithOp(op, axis.status());
  }
  return TensorType(dtype, shape);
}

bool UnaryAcceptsIntegers(Op op) { return op == Op::kNeg || op == Op::kAbs || op == Op::kClip; }

absl::StatusOr<TensorType> InferUnary(Op op, const TensorType& x, const Attributes& attrs) {
  if (UnaryAcceptsIntegers(op)) {
    RK_RETURN_IF_ERROR(RequireNumeric(op, x));
  } else {
    RK_RETURN_IF_ERROR(RequireFloat(op, x));
  }
  if (op == Op::kClip) {
    // A NaN bound would make every element NaN: no program means that.
    for (const char* bound : {"min", "max"}) {
      if (attrs.Has(bound) && std::isnan(attrs.GetFloat(bound).value())) {
        return OpError(op, bound, " must not be NaN");
      }
    }
  }
  return x;
}

absl::StatusOr<TensorType> InferBinary(Op op, const TensorType& a, const TensorType& b) {
  RK_RETURN_IF_ERROR(RequireSameDType(op, a, b));
  // pow has no integer form: a negative integer exponent has no integer result.
  if (op == Op::kPow) {
    RK_RETURN_IF_ERROR(RequireFloat(op, a));
  } else {
    RK_RETURN_IF_ERROR(RequireNumeric(op, a));
  }
  absl::StatusOr<Shape> shape = BroadcastForOp(op, a, b);
  if (!shape.ok()) return shape.status();
  return TensorType(a.dtype, *shape);
}

absl::StatusOr<TensorType> InferCompare(Op op, const TensorType& a, const TensorType& b) {
  RK_RETURN_IF_ERROR(RequireSameDType(op, a, b));
  absl::StatusOr<Shape> shape = BroadcastForOp(op, a, b);
  if (!shape.ok()) return shape.status();
  return TensorType(DType::kBool, *shape);
}

absl::StatusOr<TensorType> InferLogic(Op op, absl::Span<const TensorType> operands) {
  for (const TensorType& t : operands) {
    if (t.dtype != DType::kBool) return OpError(op, "expects bool operands, got ", t.ToString());
  }
  if (operands.size() == 1) return operands[0];
  absl::StatusOr<Shape> shape = BroadcastForOp(op, operands[0], operands[1]);
  if (!shape.ok()) return shape.status();
  return TensorType(DType::kBool, *shape);
}

absl::StatusOr<TensorType> InferWhere(Op op, absl::Span<const TensorType> operands) {
  const TensorType& cond = operands[0];
  const TensorType& a = operands[1];
  const TensorType& b = operands[2];
  if (cond.dtype != DType::kBool) {
    return OpError(op, "condition must be bool, got ", cond.ToString());
  }
  RK_RETURN_IF_ERROR(RequireSameDType(op, a, b));
  absl::StatusOr<Shape> ab = BroadcastForOp(op, a, b);
  if (!ab.ok()) return ab.status();
  absl::StatusOr<Shape> shape = BroadcastShapes(cond.shape, *ab);
  if (!shape.ok()) {
    return OpError(op, "cannot broadcast condition ", cond.ToString(), " with ",
                   TensorType(a.dtype, *ab).ToString());
  }
  return TensorType(a.dtype, *shape);
}

absl::StatusOr<TensorType> InferReduce(Op op, const TensorType& x, const Attributes& attrs) {
  if (op == Op::kReduceMean) {
    RK_RETURN_IF_ERROR(RequireFloat(op, x));
  } else {
    RK_RETURN_IF_ERROR(RequireNumeric(op, x));
  }
  const bool keepdim = attrs.GetBool("keepdim").value();
  std::vector<int> axes;
  if (op == Op::kArgmax) {
    absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), x.shape.rank());
    if (!axis.ok()) return WithOp(op, axis.status());
    axes.push_back(*axis);
  } else {
    absl::StatusOr<std::vector<int>> normalized =
        NormalizeAxes(op, attrs.GetInts("axes").value(), x.shape.rank());
    if (!normalized.ok()) return normalized.status();
    axes = *std::move(normalized);
  }
  // A maximum, minimum or position over nothing has no value.
  const bool needs_elements = op == Op::kReduceMax || op == Op::kReduceMin || op == Op::kArgmax;
  std::vector<int64_t> dims;
  for (int i = 0; i < x.shape.rank(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (reduced && needs_elements && x.shape.dim(i) == 0) {
      return OpError(op, "cannot reduce axis ", i, " of size 0 in ", x.ToString());
    }
    if (!reduced) {
      dims.push_back(x.shape.dim(i));
    } else if (keepdim) {
      dims.push_back(1);
    }
  }
  return TensorType(op == Op::kArgmax ? DType::kI64 : x.dtype, Shape(std::move(dims)));
}

// cumsum: a float or integer operand and an axis of it (so rank >= 1).
absl::StatusOr<TensorType> InferScan(Op op, const TensorType& x, const Attributes& attrs) {
  RK_RETURN_IF_ERROR(RequireNumeric(op, x));
  absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), x.shape.rank());
  if (!axis.ok()) return WithOp(op, axis.status());
  return x;
}

absl::StatusOr<TensorType> InferMatmul(Op op, const TensorType& a, const TensorType& b) {
  RK_RETURN_IF_ERROR(RequireSameDType(op, a, b));
  RK_RETURN_IF_ERROR(RequireNumeric(op, a));
  if (a.shape.rank() < 2 || b.shape.rank() < 2) {
    return OpError(op, "operands must have rank >= 2, got ", a.ToString(), " and ", b.ToString());
  }
  const int ra = a.shape.rank();
  const int rb = b.shape.rank();
  if (a.shape.dim(ra - 1) != b.shape.dim(rb - 2)) {
    return OpError(op, "inner dimensions differ: ", a.ToString(), " x ", b.ToString());
  }
  const Shape batch_a(absl::MakeConstSpan(a.shape.dims()).subspan(0, ra - 2));
  const Shape batch_b(absl::MakeConstSpan(b.shape.dims()).subspan(0, rb - 2));
  absl::StatusOr<Shape> batch = BroadcastShapes(batch_a, batch_b);
  if (!batch.ok()) {
    return OpError(op, "cannot broadcast batch dimensions of ", a.ToString(), " and ",
                   b.ToString());
  }
  std::vector<int64_t> dims = batch->dims();
  dims.push_back(a.shape.dim(ra - 2));
  dims.push_back(b.shape.dim(rb - 1));
  return TensorType(a.dtype, Shape(std::move(dims)));
}

// gather: data of rank >= 1 and any dtype, indices i32 or i64 of any rank;
// the indexed axis of data is replaced by the dims of indices.
absl::StatusOr<TensorType> InferGather(Op op, const TensorType& data, const TensorType& indices,
                                       const Attributes& attrs) {
  if (indices.dtype != DType::kI32 && indices.dtype != DType::kI64) {
    return OpError(op, "indices must be i32 or i64, got ", indices.ToString());
  }
  if (data.shape.rank() == 0) return OpError(op, "data must have rank >= 1, got ", data.ToString());
  absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), data.shape.rank());
  if (!axis.ok()) return WithOp(op, axis.status());
  std::vector<int64_t> dims(data.shape.dims().begin(), data.shape.dims().begin() + *axis);
  dims.insert(dims.end(), indices.shape.dims().begin(), indices.shape.dims().end());
  dims.insert(dims.end(), data.shape.dims().begin() + *axis + 1, data.shape.dims().end());
  RK_RETURN_IF_ERROR(CheckDims(op, dims, "result"));
  return TensorType(data.dtype, Shape(std::move(dims)));
}

// layer_norm and rms_norm: x float of rank >= 1, axis the last axis, every
// parameter of shape [last dim] and x's dtype, eps finite and >= 0.
absl::StatusOr<TensorType> InferNorm(Op op, absl::Span<const TensorType> operands,
                                     const Attributes& attrs) {
  const TensorType& x = operands[0];
  RK_RETURN_IF_ERROR(RequireFloat(op, x));
  if (x.shape.rank() == 0) return OpError(op, "expects an operand of rank >= 1, got ", x.ToString());
  absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), x.shape.rank());
  if (!axis.ok()) return WithOp(op, axis.status());
  if (*axis != x.shape.rank() - 1) {
    return OpError(op, "axis must be the last axis (", x.shape.rank() - 1, "), got ", *axis);
  }
  const double eps = attrs.GetFloat("eps").value();
  if (!std::isfinite(eps) || eps < 0) return OpError(op, "eps must be finite and >= 0, got ", eps);
  const TensorType param(x.dtype, Shape{x.shape.dim(*axis)});
  const char* names[] = {"gamma", "beta"};
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i] != param) {
      return OpError(op, names[i - 1], " must be ", param.ToString(), ", got ",
                     operands[i].ToString());
    }
  }
  return x;
}

absl::StatusOr<TensorType> InferComposite(Op op, absl::Span<const TensorType> operands,
                                          const Attributes& attrs) {
  if (op == Op::kLayerNorm || op == Op::kRmsNorm) return InferNorm(op, operands, attrs);
  const TensorType& x = operands[0];
  RK_RETURN_IF_ERROR(RequireFloat(op, x));
  if (op == Op::kSoftmax || op == Op::kLogSoftmax) {
    absl::StatusOr<int> axis = NormalizeAxis(attrs.GetInt("axis").value(), x.shape.rank());
    if (!axis.ok()) return WithOp(op, axis.status());
  }
  return x;
}

absl::StatusOr<TensorType> InferChecked(Op op, absl::Span<const TensorType> operands,
                                        const Attributes& attrs) {
  switch (GetOpKind(op)) {
    case OpKind::kSource: return InferSource(op, attrs);
    case OpKind::kUnary: return InferUnary(op, operands[0], attrs);
    case OpKind::kBinary: return InferBinary(op, operands[0], operands[1]);
    case OpKind::kCompare: return InferCompare(op, operands[0], operands[1]);
    case OpKind::kLogic: return InferLogic(op, operands);
    case OpKind::kSelect: return InferWhere(op, operands);
    case OpKind::kCast: return TensorType(attrs.GetDType("dtype").value(), operands[0].shape);
    case OpKind::kReduce: return InferReduce(op, operands[0], attrs);
    case OpKind::kScan: return InferScan(op, operands[0], attrs);
    case OpKind::kLayout: return InferLayout(op, operands, attrs);
    case OpKind::kMatmul: return InferMatmul(op, operands[0], operands[1]);
    case OpKind::kGather: return InferGather(op, operands[0], operands[1], attrs);
    case OpKind::kWindow: return InferWindow(op, operands, attrs);
    case OpKind::kComposite: return InferComposite(op, operands, attrs);
  }
  return absl::InternalError(absl::StrCat(std::string(OpName(op)), ": no shape inference rule"));
}

}  // namespace

namespace shape_inference_internal {

absl::Status WithOp(Op op, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(OpName(op)), ": ", status.message()));
}

absl::Status CheckDims(Op op, absl::Span<const int64_t> dims, const std::string& what) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d < 0) return OpError(op, "negative dimension in ", what, " [", absl::StrJoin(dims, ","), "]");
    if (d != 0 && elements > (int64_t{1} << 62) / d) {
      return OpError(op, what, " [", absl::StrJoin(dims, ","), "] has too many elements");
    }
    elements *= d;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> NormalizeAxes(Op op, absl::Span<const int64_t> axes, int rank) {
  std::vector<int> result;
  for (int64_t axis : axes) {
    absl::StatusOr<int> a = NormalizeAxis(axis, rank);
    if (!a.ok()) return WithOp(op, a.status());
    if (std::find(result.begin(), result.end(), *a) != result.end()) {
      return OpError(op, "axis ", *a, " appears more than once");
    }
    result.push_back(*a);
  }
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace shape_inference_internal

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot broadcast ", a.ToString(), " with ", b.ToString()));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " out of range for rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int> ReducedAxes(Op op, const Attributes& attrs, int rank) {
  std::vector<int> axes;
  if (op == Op::kArgmax) {
    axes.push_back(NormalizeAxis(attrs.GetInt("axis").value_or(0), rank).value_or(0));
  } else {
    for (int64_t a : attrs.GetInts("axes").value_or(std::vector<int64_t>{})) {
      axes.push_back(NormalizeAxis(a, rank).value_or(0));
    }
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

absl::StatusOr<TensorType> InferType(Op op, absl::Span<const TensorType> operands,
                                     const Attributes& attrs) {
  if (op == Op::kInput) return OpError(op, "input nodes are typed by the signature");
  RK_RETURN_IF_ERROR(CheckArity(op, operands));
  for (size_t i = 0; i < operands.size(); ++i) {
    RK_RETURN_IF_ERROR(CheckDims(op, operands[i].shape.dims(), absl::StrCat("operand ", i)));
  }
  RK_RETURN_IF_ERROR(CheckAttributes(op, attrs));
  return InferChecked(op, operands, attrs);
}

}  // namespace rk::compiler
