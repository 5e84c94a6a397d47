#include "compiler/generator/value_range.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/ir/window.h"

namespace rk::compiler::generator {

using compiler::Attributes;
using compiler::DType;
using compiler::Op;
using compiler::OpKind;
using compiler::TensorType;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

ValueRange Corners(double a0, double a1, double b0, double b1, double (*f)(double, double)) {
  const double c[4] = {f(a0, b0), f(a0, b1), f(a1, b0), f(a1, b1)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

double Mul(double a, double b) { return a * b; }
double Div(double a, double b) { return a / b; }
double Pow(double a, double b) { return std::pow(a, b); }

ValueRange Union(absl::Span<const ValueFacts> values) {
  ValueRange r{kInf, -kInf};
  for (const ValueFacts& v : values) {
    r.lo = std::min(r.lo, v.range.lo);
    r.hi = std::max(r.hi, v.range.hi);
  }
  return r;
}

// Rounding to a storage dtype moves a value by at most half an ulp (2^-9
// relative for bf16); 1/64 leaves room for a few roundings in a row.
ValueRange Widen(ValueRange r) {
  return {r.lo - std::fabs(r.lo) / 64, r.hi + std::fabs(r.hi) / 64};
}

ValueRange FitInteger(ValueRange r, DType dtype) {
  const double limit = dtype == DType::kI32 ? 2147483647.0 : 9.2e18;
  if (r.lo < -limit || r.hi > limit) return {-limit - 1, limit};
  return r;
}

double ReducedCount(const ValueFacts& x, const TensorType& result) {
  const double out = static_cast<double>(std::max<int64_t>(result.num_elements(), 1));
  return std::max(1.0, static_cast<double>(x.type.num_elements()) / out);
}

ValueRange UnaryRange(Op op, ValueRange x) {
  switch (op) {
    case Op::kNeg: return {-x.hi, -x.lo};
    case Op::kAbs:
      if (x.lo >= 0) return x;
      if (x.hi <= 0) return {-x.hi, -x.lo};
      return {0, std::max(-x.lo, x.hi)};
    case Op::kExp: return {std::exp(x.lo), std::exp(x.hi)};
    case Op::kLog:
      return {x.lo > 0 ? std::log(x.lo) : -kInf, x.hi > 0 ? std::log(x.hi) : -kInf};
    case Op::kSqrt: return {std::sqrt(std::max(x.lo, 0.0)), std::sqrt(std::max(x.hi, 0.0))};
    case Op::kRsqrt:
      if (x.lo <= 0) return {0, kInf};
      return {1 / std::sqrt(x.hi), 1 / std::sqrt(x.lo)};
    case Op::kReciprocal:
      if (x.lo <= 0 && x.hi >= 0) return {-kInf, kInf};
      return {1 / x.hi, 1 / x.lo};
    case Op::kTanh: return {std::tanh(x.lo), std::tanh(x.hi)};
    case Op::kSigmoid: return {1 / (1 + std::exp(-x.lo)), 1 / (1 + std::exp(-x.hi))};
    case Op::kRelu: return {std::max(x.lo, 0.0), std::max(x.hi, 0.0)};
    case Op::kErf: return {std::erf(x.lo), std::erf(x.hi)};
    case Op::kSin:
    case Op::kCos: return {-1, 1};
    case Op::kGelu: return {x.lo >= 0 ? 0.0 : -0.17, std::max(x.hi, 0.0)};
    case Op::kFloor: return {std::floor(x.lo), std::floor(x.hi)};
    case Op::kCeil: return {std::ceil(x.lo), std::ceil(x.hi)};
    case Op::kRound: return {std::floor(x.lo), std::ceil(x.hi)};  // halves go either way
    default: return x;
  }
}

ValueRange BinaryRange(Op op, const ValueFacts& a, const ValueFacts& b, DType dtype) {
  const ValueRange x = a.range;
  const ValueRange y = b.range;
  switch (op) {
    case Op::kAdd: return {x.lo + y.lo, x.hi + y.hi};
    case Op::kSub: return {x.lo - y.hi, x.hi - y.lo};
    case Op::kMul: return Corners(x.lo, x.hi, y.lo, y.hi, Mul);
    case Op::kDiv:
      if (compiler::IsInteger(dtype)) return {-x.MaxAbs(), x.MaxAbs()};
      if (y.lo <= 0 && y.hi >= 0) return {-kInf, kInf};
      return Corners(x.lo, x.hi, y.lo, y.hi, Div);
    case Op::kPow:
      if (x.lo <= 0) return {-kInf, kInf};
      return Corners(x.lo, x.hi, y.lo, y.hi, Pow);
    case Op::kMaximum: return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    case Op::kMinimum: return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    case Op::kMod:
      // Between 0 and the divisor (0 for an integer divisor of 0).
      return {std::min(0.0, y.lo), std::max(0.0, y.hi)};
    case Op::kFloorDiv: {
      if (compiler::IsInteger(dtype)) return {-x.MaxAbs(), x.MaxAbs()};
      if (y.lo <= 0 && y.hi >= 0) return {-kInf, kInf};
      const ValueRange q = Corners(x.lo, x.hi, y.lo, y.hi, Div);
      return {std::floor(q.lo), std::floor(q.hi)};
    }
    default: return {-kInf, kInf};
  }
}

// clip: the operand's range with both ends clamped to the present bounds
// (converted to an integer dtype as a cast would: truncated).
ValueRange ClipRange(ValueRange x, const Attributes& attrs, DType dtype) {
  const auto bound = [&](const char* name, double fallback) {
    if (!attrs.Has(name)) return fallback;
    const double b = attrs.GetFloat(name).value_or(fallback);
    return compiler::IsInteger(dtype) ? std::trunc(b) : b;
  };
  const double lo = bound("min", -kInf);
  const double hi = bound("max", kInf);
  const auto clamp = [&](double v) { return std::min(std::max(v, lo), hi); };
  return {clamp(x.lo), clamp(x.hi)};
}

ValueRange CompositeRange(Op op, absl::Span<const ValueFacts> in, const Attributes& attrs) {
  const ValueFacts& x = in[0];
  if (op == Op::kGelu) return UnaryRange(op, x.range);
  if (op == Op::kSoftmax) return {0, 1};
  const int rank = x.type.shape.rank();
  int axis = static_cast<int>(attrs.GetInt("axis").value_or(rank - 1));
  if (axis < 0) axis += rank;
  const double n = rank == 0 ? 1.0 : static_cast<double>(x.type.shape.dim(axis));
  if (op == Op::kLogSoftmax) return {(x.range.lo - x.range.hi) - std::log(n) - 0.01, 0};
  // layer_norm / rms_norm: a normalized row has no element beyond sqrt(n).
  const double gamma = in.size() > 1 ? in[1].range.MaxAbs() : 1.0;
  const double beta = in.size() > 2 ? in[2].range.MaxAbs() : 0.0;
  const double bound = std::sqrt(n) * gamma + beta;
  return {-bound, bound};
}

// gather: the data's values, and 0 where an index may be out of range.
ValueRange GatherRange(absl::Span<const ValueFacts> in, const Attributes& attrs) {
  const ValueFacts& data = in[0];
  const int rank = data.type.shape.rank();
  int axis = static_cast<int>(attrs.GetInt("axis").value_or(0));
  if (axis < 0) axis += rank;
  const double size = axis >= 0 && axis < rank ? static_cast<double>(data.type.shape.dim(axis)) : 0;
  const bool in_range = in[1].type.num_elements() == 0 ||
                        (in[1].range.lo >= -size && in[1].range.hi <= size - 1);
  if (in_range && size > 0) return data.range;
  return {std::min(0.0, data.range.lo), std::max(0.0, data.range.hi)};
}

// conv2d as matmul over its taps; max_pool2d keeps the input's range and
// avg_pool2d averages within it (with zeros when padding counts). A window
// of padding only has no finite value (-inf, or 0 / 0): unbounded.
ValueRange WindowRange(Op op, absl::Span<const ValueFacts> in, const Attributes& attrs) {
  const ValueFacts& x = in[0];
  const compiler::Shape weights = op == Op::kConv2d ? in[1].type.shape : compiler::Shape();
  if (x.type.shape.rank() != 4) return {-kInf, kInf};
  if (op == Op::kConv2d) {
    double taps = 1;
    for (int d = 1; d < weights.rank(); ++d) taps *= static_cast<double>(weights.dim(d));
    const ValueRange p = Corners(x.range.lo, x.range.hi, in[1].range.lo, in[1].range.hi, Mul);
    return {std::min(0.0, taps * p.lo), std::max(0.0, taps * p.hi)};
  }
  const compiler::Window2d window = compiler::ReadWindow(op, attrs, weights);
  const bool real = window.EveryWindowReal(0, x.type.shape.dim(2)) &&
                    window.EveryWindowReal(1, x.type.shape.dim(3));
  if (!real && !(op == Op::kAvgPool2d && window.count_include_pad)) return {-kInf, kInf};
  if (op == Op::kAvgPool2d && window.count_include_pad) {
    return {std::min(0.0, x.range.lo), std::max(0.0, x.range.hi)};
  }
  return x.range;
}

ValueRange RawRange(Op op, absl::Span<const ValueFacts> in, const Attributes& attrs,
                    const TensorType& result) {
  switch (compiler::GetOpKind(op)) {
    case OpKind::kSource: {
      if (op == Op::kFull) {
        double v = attrs.GetFloat("value").value_or(0);
        if (compiler::IsInteger(result.dtype)) v = std::trunc(v);
        return {v, v};
      }
      if (op == Op::kIota) {
        const int rank = result.shape.rank();
        int axis = static_cast<int>(attrs.GetInt("axis").value_or(0));
        if (axis < 0) axis += rank;
        return {0, static_cast<double>(result.shape.dim(axis) - 1)};
      }
      if (op == Op::kConstant) {
        const compiler::HostTensor t = attrs.GetTensor("value").value();
        ValueRange r{kInf, -kInf};
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          r.lo = std::min(r.lo, t.GetDouble(i));
          r.hi = std::max(r.hi, t.GetDouble(i));
        }
        return t.num_elements() == 0 ? ValueRange{0, 0} : r;
      }
      return {-kInf, kInf};
    }
    case OpKind::kUnary:
      if (op == Op::kClip) return ClipRange(in[0].range, attrs, result.dtype);
      return UnaryRange(op, in[0].range);
    case OpKind::kBinary: return BinaryRange(op, in[0], in[1], result.dtype);
    case OpKind::kSelect: return Union(in.subspan(1));
    case OpKind::kCast:
      if (in[0].type.dtype == DType::kBool) return {0, 1};
      if (compiler::IsInteger(result.dtype)) {
        return {std::trunc(in[0].range.lo), std::trunc(in[0].range.hi)};
      }
      return in[0].range;
    case OpKind::kReduce: {
      const double n = ReducedCount(in[0], result);
      if (op == Op::kArgmax) return {0, n - 1};
      if (op == Op::kReduceSum) return {std::min(0.0, n * in[0].range.lo),
                                        std::max(0.0, n * in[0].range.hi)};
      return in[0].range;
    }
    case OpKind::kScan: {
      // A prefix of up to n elements (or none: an exclusive scan's 0).
      int axis = static_cast<int>(attrs.GetInt("axis").value_or(0));
      if (axis < 0) axis += in[0].type.shape.rank();
      const double n = static_cast<double>(in[0].type.shape.dim(axis));
      return {std::min(0.0, n * in[0].range.lo), std::max(0.0, n * in[0].range.hi)};
    }
    case OpKind::kLayout: {
      ValueRange r = Union(in);
      if (op == Op::kPad) {
        double v = attrs.GetFloat("value").value_or(0);
        if (compiler::IsInteger(result.dtype)) v = std::isfinite(v) ? std::trunc(v) : 0.0;
        r = {std::min(r.lo, v), std::max(r.hi, v)};
      }
      return r;
    }
    case OpKind::kMatmul: {
      const ValueRange x = in[0].range;
      const ValueRange y = in[1].range;
      const double k = static_cast<double>(in[0].type.shape.dim(in[0].type.shape.rank() - 1));
      const ValueRange p = Corners(x.lo, x.hi, y.lo, y.hi, Mul);
      return {std::min(0.0, k * p.lo), std::max(0.0, k * p.hi)};
    }
    case OpKind::kGather: return GatherRange(in, attrs);
    case OpKind::kWindow: return WindowRange(op, in, attrs);
    case OpKind::kComposite: return CompositeRange(op, in, attrs);
    default: return {0, 1};
  }
}

bool AllExact(absl::Span<const ValueFacts> in) {
  return std::all_of(in.begin(), in.end(), [](const ValueFacts& v) { return v.exact; });
}

}  // namespace

double ValueRange::MaxAbs() const { return std::max(std::fabs(lo), std::fabs(hi)); }

double MinDivisor(Op op) { return op == Op::kFloorDiv ? 1.0 : kMinPositive; }

ValueRange InferRange(Op op, absl::Span<const ValueFacts> operands, const Attributes& attrs,
                      const TensorType& result) {
  if (result.dtype == DType::kBool) return {0, 1};
  const ValueRange r = RawRange(op, operands, attrs, result);
  if (compiler::IsInteger(result.dtype)) return FitInteger(r, result.dtype);
  return Widen(r);
}

ValueRange InferRawRange(Op op, absl::Span<const ValueFacts> operands, const Attributes& attrs,
                         const TensorType& result) {
  if (result.dtype == DType::kBool) return {0, 1};
  return RawRange(op, operands, attrs, result);
}

bool InferExact(Op op, absl::Span<const ValueFacts> operands, const TensorType& result) {
  if (!AllExact(operands)) return false;
  if (compiler::IsInteger(result.dtype) || result.dtype == DType::kBool) return true;
  switch (compiler::GetOpKind(op)) {
    case OpKind::kSource:
    case OpKind::kSelect:
    case OpKind::kCast:
    case OpKind::kLayout:
    case OpKind::kGather: return true;
    case OpKind::kUnary:
      return op == Op::kNeg || op == Op::kAbs || op == Op::kRelu || op == Op::kFloor ||
             op == Op::kCeil || op == Op::kRound || op == Op::kClip;
    case OpKind::kBinary: return op == Op::kMaximum || op == Op::kMinimum;
    case OpKind::kReduce: return op == Op::kReduceMax || op == Op::kReduceMin;
    case OpKind::kWindow: return op == Op::kMaxPool2d;
    default: return false;
  }
}

bool OperandDomainOk(Op op, int index, const ValueFacts& x, const TensorType& result) {
  const ValueRange r = x.range;
  const bool is_float = compiler::IsFloat(x.type.dtype);
  if (is_float && r.MaxAbs() > kMaxMagnitude) return false;
  switch (op) {
    case Op::kLog:
    case Op::kSqrt:
    case Op::kRsqrt: return r.lo >= kMinPositive;
    case Op::kReciprocal: return r.lo >= kMinPositive || r.hi <= -kMinPositive;
    case Op::kDiv:
      if (!is_float) return index == 0 || r.lo >= 1 || r.hi <= -2;
      return index == 0 || r.lo >= kMinPositive || r.hi <= -kMinPositive;
    case Op::kPow:
      return index == 0 ? (r.lo >= kMinPositive && r.hi <= 8) : r.MaxAbs() <= 3;
    case Op::kExp: return r.hi <= kMaxExpArgument;
    // Discontinuous: a last-bit difference in a float operand could move the
    // result by a whole step.
    case Op::kFloor:
    case Op::kCeil:
    case Op::kRound: return x.exact;
    case Op::kMod:
    case Op::kFloorDiv: {
      if (!is_float) return index == 0 || r.lo >= 1 || r.hi <= -2;
      if (!x.exact) return false;
      const double away = MinDivisor(op);
      return index == 0 || r.lo >= away || r.hi <= -away;
    }
    case Op::kSin:
    case Op::kCos: return r.MaxAbs() <= 100;
    case Op::kLayerNorm:
    case Op::kRmsNorm: return index != 0 || r.MaxAbs() <= 10;
    case Op::kEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot:
    case Op::kArgmax: return x.exact;
    case Op::kWhere: return index != 0 || x.exact;
    case Op::kCast:
      if (is_float && !compiler::IsFloat(result.dtype)) return x.exact;
      if (!is_float && compiler::IsFloat(result.dtype)) return r.MaxAbs() <= kMaxMagnitude;
      return true;
    default: return true;
  }
}

}  // namespace rk::compiler::generator
