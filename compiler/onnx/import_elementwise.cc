// ONNX elementwise ops: one reprokit op each, or a short decomposition for
// the activations reprokit has no op for (docs/ONNX.md gives each formula).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"
#include "compiler/onnx/onnx_tensor.h"

namespace rk::compiler::onnx_io {
namespace {

const char* ReprokitName(const std::string& op_type) {
  static const auto* names = new std::map<std::string, const char*>{
      {"Abs", "abs"},         {"Ceil", "ceil"},       {"Cos", "cos"},
      {"Erf", "erf"},         {"Exp", "exp"},         {"Floor", "floor"},
      {"Log", "log"},         {"Neg", "neg"},         {"Not", "not"},
      {"Reciprocal", "reciprocal"}, {"Relu", "relu"}, {"Round", "round"},
      {"Sigmoid", "sigmoid"}, {"Sin", "sin"},         {"Sqrt", "sqrt"},
      {"Tanh", "tanh"},       {"Add", "add"},         {"Sub", "sub"},
      {"Mul", "mul"},         {"Div", "div"},         {"Equal", "eq"},
      {"Less", "lt"},         {"LessOrEqual", "le"},  {"Greater", "gt"},
      {"GreaterOrEqual", "ge"}, {"And", "and"},       {"Or", "or"},
      {"Max", "maximum"},     {"Min", "minimum"},     {"Sum", "add"},
      {"Mean", "add"},
  };
  auto it = names->find(op_type);
  return it == names->end() ? "" : it->second;
}

absl::Status CheckNoLegacyBroadcast(NodeContext& ctx) {
  if (ctx.FindAttr("broadcast") != nullptr) {
    return ctx.Unsupported("the pre-opset-7 'broadcast' attribute");
  }
  return absl::OkStatus();
}

// x * alpha, with alpha a scalar of x's dtype.
absl::StatusOr<NodeId> Scale(NodeContext& ctx, NodeId x, double alpha) {
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Scalar(ctx.type(x).dtype, alpha));
  return ctx.Emit(Op::kMul, {x, a});
}

absl::StatusOr<NodeId> AddScalar(NodeContext& ctx, NodeId x, double value) {
  RK_ASSIGN_OR_RETURN(NodeId v, ctx.Scalar(ctx.type(x).dtype, value));
  return ctx.Emit(Op::kAdd, {x, v});
}

absl::StatusOr<NodeId> ClipTo(NodeContext& ctx, NodeId x, std::optional<double> lo,
                              std::optional<double> hi) {
  RK_ASSIGN_OR_RETURN(Op clip, OpNamed(ctx, "clip"));
  Attributes attrs;
  if (lo.has_value()) attrs.Set("min", *lo);
  if (hi.has_value()) attrs.Set("max", *hi);
  return ctx.Emit(clip, {x}, std::move(attrs));
}

// where(x < 0, negative, x)
absl::StatusOr<NodeId> WhereNegative(NodeContext& ctx, NodeId x, NodeId negative) {
  RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(ctx.type(x).dtype, 0.0));
  RK_ASSIGN_OR_RETURN(NodeId is_negative, ctx.Emit(Op::kLt, {x, zero}));
  return ctx.Emit(Op::kWhere, {is_negative, negative, x});
}

}  // namespace

absl::Status ConvertUnary(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, ReprokitName(ctx.node().op_type())));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId y, ctx.Emit(op, {x}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertBinary(NodeContext& ctx) {
  RK_RETURN_IF_ERROR(CheckNoLegacyBroadcast(ctx));
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, ReprokitName(ctx.node().op_type())));
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(NodeId y, ctx.Emit(op, {a, b}));
  ctx.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertVariadic(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, ReprokitName(ctx.node().op_type())));
  RK_ASSIGN_OR_RETURN(NodeId acc, ctx.Input(0));
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    RK_ASSIGN_OR_RETURN(NodeId next, ctx.Input(i));
    RK_ASSIGN_OR_RETURN(acc, ctx.Emit(op, {acc, next}));
  }
  if (ctx.node().op_type() == "Mean" && ctx.num_inputs() > 1) {
    RK_ASSIGN_OR_RETURN(NodeId n, ctx.Scalar(ctx.type(acc).dtype, ctx.num_inputs()));
    RK_ASSIGN_OR_RETURN(acc, ctx.Emit(Op::kDiv, {acc, n}));
  }
  ctx.SetOutput(0, acc);
  return absl::OkStatus();
}

absl::Status ConvertPow(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId y, ctx.Input(1));
  if (ctx.type(y).dtype != ctx.type(x).dtype) {
    Attributes attrs;
    attrs.Set("dtype", ctx.type(x).dtype);
    RK_ASSIGN_OR_RETURN(y, ctx.Emit(Op::kCast, {y}, std::move(attrs)));
  }
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kPow, {x, y}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertMod(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(int64_t fmod, ctx.AttrInt("fmod", 0));
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(1));
  const DType dtype = ctx.type(a).dtype;
  if (fmod == 0) {
    if (IsFloat(dtype)) return ctx.Error("fmod=0 is not defined for floats (ONNX requires fmod=1)");
    RK_ASSIGN_OR_RETURN(Op mod, OpNamed(ctx, "mod"));
    RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(mod, {a, b}));
    ctx.SetOutput(0, r);
    return absl::OkStatus();
  }
  if (IsInteger(dtype)) {
    // C remainder: a - trunc(a / b) * b (integer div truncates).
    RK_ASSIGN_OR_RETURN(NodeId q, ctx.Emit(Op::kDiv, {a, b}));
    RK_ASSIGN_OR_RETURN(NodeId qb, ctx.Emit(Op::kMul, {q, b}));
    RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kSub, {a, qb}));
    ctx.SetOutput(0, r);
    return absl::OkStatus();
  }
  // Float fmod (sign of the dividend) from the floor modulo (sign of the
  // divisor): they differ by b where the remainder is non-zero and the signs
  // of a and the floor remainder differ.
  RK_ASSIGN_OR_RETURN(Op mod, OpNamed(ctx, "mod"));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(mod, {a, b}));
  RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(dtype, 0.0));
  RK_ASSIGN_OR_RETURN(NodeId nonzero, ctx.Emit(Op::kNe, {r, zero}));
  RK_ASSIGN_OR_RETURN(NodeId r_negative, ctx.Emit(Op::kLt, {r, zero}));
  RK_ASSIGN_OR_RETURN(NodeId a_negative, ctx.Emit(Op::kLt, {a, zero}));
  RK_ASSIGN_OR_RETURN(NodeId signs_differ, ctx.Emit(Op::kNe, {r_negative, a_negative}));
  RK_ASSIGN_OR_RETURN(NodeId adjust, ctx.Emit(Op::kAnd, {nonzero, signs_differ}));
  RK_ASSIGN_OR_RETURN(NodeId shifted, ctx.Emit(Op::kSub, {r, b}));
  RK_ASSIGN_OR_RETURN(NodeId result, ctx.Emit(Op::kWhere, {adjust, shifted, r}));
  ctx.SetOutput(0, result);
  return absl::OkStatus();
}

absl::Status ConvertXor(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kNe, {a, b}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertWhere(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId c, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId a, ctx.Input(1));
  RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(2));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kWhere, {c, a, b}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

namespace {
absl::Status CastTo(NodeContext& ctx, DType dtype) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  if (ctx.type(x).dtype == dtype) {
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
  Attributes attrs;
  attrs.Set("dtype", dtype);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kCast, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}
}  // namespace

// Opset 19's `saturate` says how a float8 target holds values out of its
// range; reprokit has no float8 dtype (DTypeFromOnnx refuses the targets), so
// for every target it has the attribute changes nothing. Before opset 19 it
// is no attribute of the op.
absl::Status CheckSaturate(NodeContext& ctx) {
  if (ctx.FindAttr("saturate") == nullptr) return absl::OkStatus();
  if (ctx.opset() < 19) return ctx.Error("attribute 'saturate' is from opset 19");
  RK_ASSIGN_OR_RETURN(int64_t saturate, ctx.AttrInt("saturate", 1));
  if (saturate != 0 && saturate != 1) return ctx.Error("saturate must be 0 or 1");
  return absl::OkStatus();
}

absl::Status ConvertCast(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(int64_t to, ctx.AttrInt("to", -1));
  RK_RETURN_IF_ERROR(CheckSaturate(ctx));
  absl::StatusOr<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(to));
  if (!dtype.ok()) return ctx.Error(std::string(dtype.status().message()));
  return CastTo(ctx, *dtype);
}

absl::Status ConvertCastLike(NodeContext& ctx) {
  RK_RETURN_IF_ERROR(CheckSaturate(ctx));
  RK_ASSIGN_OR_RETURN(NodeId like, ctx.Input(1));
  return CastTo(ctx, ctx.type(like).dtype);
}

absl::Status ConvertClip(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  std::optional<double> lo, hi;
  if (ctx.opset() < 11) {
    if (ctx.FindAttr("min") != nullptr) {
      RK_ASSIGN_OR_RETURN(lo, ctx.AttrFloat("min", 0));
    }
    if (ctx.FindAttr("max") != nullptr) {
      RK_ASSIGN_OR_RETURN(hi, ctx.AttrFloat("max", 0));
    }
  } else {
    for (int i : {1, 2}) {
      if (!ctx.HasInput(i)) continue;
      RK_ASSIGN_OR_RETURN(HostTensor bound, ctx.ConstantInput(i));
      if (bound.num_elements() != 1) return ctx.Error("min and max must be scalars");
      (i == 1 ? lo : hi) = bound.GetDouble(0);
    }
  }
  RK_ASSIGN_OR_RETURN(NodeId r, ClipTo(ctx, x, lo, hi));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertIsNaN(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kNe, {x, x}));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertActivation(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const DType dtype = ctx.type(x).dtype;
  NodeId result;
  if (type == "LeakyRelu") {
    RK_ASSIGN_OR_RETURN(double alpha, ctx.AttrFloat("alpha", 0.01));
    RK_ASSIGN_OR_RETURN(NodeId scaled, Scale(ctx, x, alpha));
    RK_ASSIGN_OR_RETURN(result, WhereNegative(ctx, x, scaled));
  } else if (type == "PRelu") {
    RK_ASSIGN_OR_RETURN(NodeId slope, ctx.Input(1));
    RK_ASSIGN_OR_RETURN(NodeId scaled, ctx.Emit(Op::kMul, {x, slope}));
    RK_ASSIGN_OR_RETURN(result, WhereNegative(ctx, x, scaled));
  } else if (type == "HardSigmoid" || type == "HardSwish") {
    double alpha = 1.0 / 6, beta = 0.5;
    if (type == "HardSigmoid") {
      RK_ASSIGN_OR_RETURN(alpha, ctx.AttrFloat("alpha", 0.2));
      RK_ASSIGN_OR_RETURN(beta, ctx.AttrFloat("beta", 0.5));
    }
    RK_ASSIGN_OR_RETURN(NodeId scaled, Scale(ctx, x, alpha));
    RK_ASSIGN_OR_RETURN(NodeId shifted, AddScalar(ctx, scaled, beta));
    RK_ASSIGN_OR_RETURN(result, ClipTo(ctx, shifted, 0.0, 1.0));
    if (type == "HardSwish") {
      RK_ASSIGN_OR_RETURN(result, ctx.Emit(Op::kMul, {x, result}));
    }
  } else if (type == "Elu" || type == "Selu") {
    double alpha = 1.0, gamma = 1.0;
    if (type == "Elu") {
      RK_ASSIGN_OR_RETURN(alpha, ctx.AttrFloat("alpha", 1.0));
    } else {
      RK_ASSIGN_OR_RETURN(alpha, ctx.AttrFloat("alpha", 1.67326319217681884765625));
      RK_ASSIGN_OR_RETURN(gamma, ctx.AttrFloat("gamma", 1.05070102214813232421875));
    }
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {x}));
    RK_ASSIGN_OR_RETURN(NodeId em1, AddScalar(ctx, e, -1.0));
    RK_ASSIGN_OR_RETURN(NodeId negative, Scale(ctx, em1, alpha));
    if (type == "Elu") {
      RK_ASSIGN_OR_RETURN(result, WhereNegative(ctx, x, negative));
    } else {
      // Selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
      RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(dtype, 0.0));
      RK_ASSIGN_OR_RETURN(NodeId positive, ctx.Emit(Op::kGt, {x, zero}));
      RK_ASSIGN_OR_RETURN(NodeId both, ctx.Emit(Op::kWhere, {positive, x, negative}));
      RK_ASSIGN_OR_RETURN(result, Scale(ctx, both, gamma));
    }
  } else if (type == "Softplus") {
    RK_ASSIGN_OR_RETURN(NodeId e, ctx.Emit(Op::kExp, {x}));
    RK_ASSIGN_OR_RETURN(NodeId e1, AddScalar(ctx, e, 1.0));
    RK_ASSIGN_OR_RETURN(result, ctx.Emit(Op::kLog, {e1}));
  } else if (type == "Softsign") {
    RK_ASSIGN_OR_RETURN(NodeId a, ctx.Emit(Op::kAbs, {x}));
    RK_ASSIGN_OR_RETURN(NodeId a1, AddScalar(ctx, a, 1.0));
    RK_ASSIGN_OR_RETURN(result, ctx.Emit(Op::kDiv, {x, a1}));
  } else if (type == "ThresholdedRelu") {
    RK_ASSIGN_OR_RETURN(double alpha, ctx.AttrFloat("alpha", 1.0));
    RK_ASSIGN_OR_RETURN(NodeId threshold, ctx.Scalar(dtype, alpha));
    RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(dtype, 0.0));
    RK_ASSIGN_OR_RETURN(NodeId above, ctx.Emit(Op::kGt, {x, threshold}));
    RK_ASSIGN_OR_RETURN(result, ctx.Emit(Op::kWhere, {above, x, zero}));
  } else {
    return ctx.Unsupported("this activation");
  }
  ctx.SetOutput(0, result);
  return absl::OkStatus();
}

absl::Status ConvertGelu(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(std::string approximate, ctx.AttrString("approximate", "none"));
  NodeId r;
  if (approximate == "none") {
    // reprokit's gelu is the exact (erf) form.
    RK_ASSIGN_OR_RETURN(Op gelu, OpNamed(ctx, "gelu"));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(gelu, {x}));
  } else if (approximate == "tanh") {
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
    RK_ASSIGN_OR_RETURN(NodeId x2, ctx.Emit(Op::kMul, {x, x}));
    RK_ASSIGN_OR_RETURN(NodeId x3, ctx.Emit(Op::kMul, {x2, x}));
    RK_ASSIGN_OR_RETURN(NodeId cubic, Scale(ctx, x3, 0.044715));
    RK_ASSIGN_OR_RETURN(NodeId inner, ctx.Emit(Op::kAdd, {x, cubic}));
    RK_ASSIGN_OR_RETURN(NodeId scaled, Scale(ctx, inner, std::sqrt(2.0 / M_PI)));
    RK_ASSIGN_OR_RETURN(NodeId t, ctx.Emit(Op::kTanh, {scaled}));
    RK_ASSIGN_OR_RETURN(NodeId one_plus, AddScalar(ctx, t, 1.0));
    RK_ASSIGN_OR_RETURN(NodeId half_x, Scale(ctx, x, 0.5));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kMul, {half_x, one_plus}));
  } else {
    return ctx.Error(absl::StrCat("approximate must be 'none' or 'tanh', not '", approximate, "'"));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertIdentity(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  if (ctx.node().op_type() == "Dropout") {
    if (ctx.HasInput(2)) {
      RK_ASSIGN_OR_RETURN(HostTensor training, ctx.ConstantInput(2));
      if (training.num_elements() != 1 || training.GetInt(0) != 0) {
        return ctx.Unsupported("training mode");
      }
    }
    if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
      Attributes attrs;
      attrs.Set("value", 1.0);
      attrs.Set("dtype", DType::kBool);
      attrs.Set("shape", ctx.type(x).shape.dims());
      RK_ASSIGN_OR_RETURN(NodeId mask, ctx.Emit(Op::kFull, {}, std::move(attrs)));
      ctx.SetOutput(1, mask);
    }
  }
  ctx.SetOutput(0, x);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
