// Reference kernels for sources (constant, full, iota) and elementwise ops:
// unary (clip with its bounds), binary (mod and floordiv floor like Python's
// % and //), comparisons, logic, where and cast.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

absl::Status IntegerUnsupported(const Node& node, DType dtype) {
  return absl::UnimplementedError(
      absl::StrCat(OpLabel(node.op), ": not defined on ", std::string(DTypeName(dtype))));
}

// NaN-propagating maximum; +0 is larger than -0.
double Maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double Minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Round half to even (numpy.round, ONNX Round); the sign of zero follows x.
double RoundHalfEven(double x) {
  const double below = std::floor(x);
  const double frac = x - below;
  double r = below + 1;
  if (frac < 0.5 || (frac == 0.5 && std::fmod(below, 2.0) == 0)) r = below;
  if (!std::isfinite(x)) r = x;
  return std::copysign(r, x);
}

// Floor modulo and floor division of floats, as numpy computes them: the
// remainder is fmod's (exact) moved into the divisor's sign; the quotient is
// (x - remainder) / y, which is an integer up to rounding, snapped to the
// nearest one. A zero remainder takes the divisor's sign, a zero quotient the
// sign of x / y; y == 0 gives fmod's NaN and x / y.
struct FloorDivMod {
  double quotient;
  double remainder;
};

FloorDivMod FloatFloorDivMod(double x, double y) {
  const double m = std::fmod(x, y);
  if (y == 0) return {x / y, m};
  double d = (x - m) / y;
  double r = m;
  // `m != 0` is true for NaN, like a C truth test.
  if (m != 0) {
    if ((y < 0) != (m < 0)) {
      r = m + y;
      d -= 1;
    }
  } else {
    r = std::copysign(0.0, y);
  }
  double q = std::copysign(0.0, x / y);
  if (d != 0) {
    q = std::floor(d);
    if (d - q > 0.5) q += 1;
  }
  return {q, r};
}

double Sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

absl::StatusOr<double (*)(double)> FloatUnary(Op op) {
  switch (op) {
    case Op::kNeg: return +[](double x) { return -x; };
    case Op::kAbs: return +[](double x) { return std::fabs(x); };
    case Op::kExp: return +[](double x) { return std::exp(x); };
    case Op::kLog: return +[](double x) { return std::log(x); };
    case Op::kSqrt: return +[](double x) { return std::sqrt(x); };
    case Op::kRsqrt: return +[](double x) { return 1.0 / std::sqrt(x); };
    case Op::kReciprocal: return +[](double x) { return 1.0 / x; };
    case Op::kTanh: return +[](double x) { return std::tanh(x); };
    case Op::kSigmoid: return &Sigmoid;
    case Op::kRelu: return +[](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); };
    case Op::kErf: return +[](double x) { return std::erf(x); };
    case Op::kSin: return +[](double x) { return std::sin(x); };
    case Op::kCos: return +[](double x) { return std::cos(x); };
    case Op::kFloor: return +[](double x) { return std::floor(x); };
    case Op::kCeil: return +[](double x) { return std::ceil(x); };
    case Op::kRound: return &RoundHalfEven;
    default: return absl::InternalError(absl::StrCat("not a unary op: ", OpLabel(op)));
  }
}

absl::StatusOr<double (*)(double, double)> FloatBinary(Op op) {
  switch (op) {
    case Op::kAdd: return +[](double a, double b) { return a + b; };
    case Op::kSub: return +[](double a, double b) { return a - b; };
    case Op::kMul: return +[](double a, double b) { return a * b; };
    case Op::kDiv: return +[](double a, double b) { return a / b; };
    case Op::kPow: return +[](double a, double b) { return std::pow(a, b); };
    case Op::kMaximum: return &Maximum;
    case Op::kMinimum: return &Minimum;
    case Op::kMod: return +[](double a, double b) { return FloatFloorDivMod(a, b).remainder; };
    case Op::kFloorDiv:
      return +[](double a, double b) { return FloatFloorDivMod(a, b).quotient; };
    default: return absl::InternalError(absl::StrCat("not a binary op: ", OpLabel(op)));
  }
}

// Integer arithmetic in uint64 so that overflow wraps instead of being UB;
// the final WriteInts wraps to 32 bits where needed (modular arithmetic
// commutes with the narrowing).
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t TruncDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return WrapSub(0, a);  // INT64_MIN / -1 wraps
  return a / b;
}
// Whether floor division rounds the truncated quotient of a / b down by one:
// a nonzero remainder whose sign differs from b's. Never for b == 0 or -1
// (remainder 0 by convention, and INT64_MIN % -1 would trap).
bool FloorAdjusts(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return false;
  const int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0));
}
int64_t FloorDiv(int64_t a, int64_t b) { return WrapSub(TruncDiv(a, b), FloorAdjusts(a, b)); }
int64_t FloorMod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  const int64_t r = a % b;
  return FloorAdjusts(a, b) ? r + b : r;
}
absl::StatusOr<int64_t (*)(int64_t, int64_t)> IntBinary(Op op) {
  switch (op) {
    case Op::kAdd: return &WrapAdd;
    case Op::kSub: return &WrapSub;
    case Op::kMul: return &WrapMul;
    case Op::kDiv: return &TruncDiv;
    case Op::kMod: return &FloorMod;
    case Op::kFloorDiv: return &FloorDiv;
    case Op::kMaximum: return +[](int64_t a, int64_t b) { return a > b ? a : b; };
    case Op::kMinimum: return +[](int64_t a, int64_t b) { return a < b ? a : b; };
    default: return absl::InternalError(absl::StrCat("not a binary op: ", OpLabel(op)));
  }
}

template <typename T>
bool Compare(Op op, T a, T b) {
  switch (op) {
    case Op::kEq: return a == b;
    case Op::kNe: return a != b;  // true when either is NaN
    case Op::kLt: return a < b;
    case Op::kLe: return a <= b;
    case Op::kGt: return a > b;
    case Op::kGe: return a >= b;
    default: return false;
  }
}

absl::Status CheckArity(const Node& node, absl::Span<const HostTensor> operands, size_t n) {
  if (operands.size() == n) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(OpLabel(node.op), ": expected ", n, " operands, got ",
                                          operands.size()));
}

// Where each element of a broadcasting binary op's result reads its operands.
// Where each result element reads its operands; an operand of the result's
// shape reads element i itself (no index vector).
struct BinaryIndices {
  int64_t n = 0;
  std::vector<int64_t> a, b;
  bool a_same = false, b_same = false;

  // f(x[a[i]], y[b[i]]) for every result element i.
  template <typename R, typename T, typename F>
  std::vector<R> Map(const std::vector<T>& x, const std::vector<T>& y, F f) const {
    std::vector<R> r(n);
    if (a_same && b_same) {
      for (int64_t i = 0; i < n; ++i) r[i] = f(x[i], y[i]);
    } else if (a_same) {
      for (int64_t i = 0; i < n; ++i) r[i] = f(x[i], y[b[i]]);
    } else if (b_same) {
      for (int64_t i = 0; i < n; ++i) r[i] = f(x[a[i]], y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) r[i] = f(x[a[i]], y[b[i]]);
    }
    return r;
  }
};

absl::StatusOr<BinaryIndices> BroadcastBinary(const Node& node,
                                              absl::Span<const HostTensor> operands) {
  if (absl::Status s = CheckArity(node, operands, 2); !s.ok()) return s;
  BinaryIndices at;
  at.n = node.type.shape.num_elements();
  at.a_same = operands[0].shape() == node.type.shape;
  at.b_same = operands[1].shape() == node.type.shape;
  if (!at.a_same) {
    absl::StatusOr<std::vector<int64_t>> ia =
        BroadcastIndices(operands[0].shape(), node.type.shape);
    if (!ia.ok()) return ia.status();
    at.a = *std::move(ia);
  }
  if (!at.b_same) {
    absl::StatusOr<std::vector<int64_t>> ib =
        BroadcastIndices(operands[1].shape(), node.type.shape);
    if (!ib.ok()) return ib.status();
    at.b = *std::move(ib);
  }
  return at;
}

absl::StatusOr<int> NormalizedAxis(const Node& node, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(OpLabel(node.op), ": axis ", axis,
                                                   " out of range for rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace

absl::StatusOr<HostTensor> EvalSource(const Node& node) {
  switch (node.op) {
    case Op::kConstant: {
      absl::StatusOr<HostTensor> value = node.attrs.GetTensor("value");
      if (!value.ok()) return value.status();
      if (value->type() != node.type || !value->valid()) {
        return absl::InvalidArgumentError(absl::StrCat("constant: literal of type ",
                                                       value->type().ToString(),
                                                       " for a node of type ",
                                                       node.type.ToString()));
      }
      return *value;
    }
    case Op::kFull: {
      absl::StatusOr<double> value = node.attrs.GetFloat("value");
      if (!value.ok()) return value.status();
      HostTensor out(node.type);
      std::vector<double> values(out.num_elements(), *value);
      WriteDoubles(out, values);
      return out;
    }
    case Op::kIota: {
      absl::StatusOr<int64_t> axis_attr = node.attrs.GetInt("axis");
      if (!axis_attr.ok()) return axis_attr.status();
      const Shape& shape = node.type.shape;
      absl::StatusOr<int> axis = NormalizedAxis(node, *axis_attr, shape.rank());
      if (!axis.ok()) return axis.status();
      HostTensor out(node.type);
      std::vector<int64_t> values(out.num_elements());
      const int64_t stride = shape.Strides()[*axis];
      const int64_t dim = shape.dim(*axis);
      for (int64_t i = 0; i < out.num_elements(); ++i) values[i] = (i / stride) % dim;
      WriteInts(out, values);
      return out;
    }
    default:
      return absl::InternalError(absl::StrCat(OpLabel(node.op), ": not a value-producing source"));
  }
}

namespace {

// A clip bound converted to the node's dtype (a scalar), or nullopt when the
// attribute is absent.
absl::StatusOr<std::optional<HostTensor>> ClipBound(const Node& node, const char* name) {
  if (!node.attrs.Has(name)) return std::optional<HostTensor>();
  absl::StatusOr<double> bound = node.attrs.GetFloat(name);
  if (!bound.ok()) return bound.status();
  return std::optional<HostTensor>(HostTensor::Full(TensorType(node.type.dtype, Shape()), *bound));
}

// clip: min(max(x, min), max), each bound (when present) first converted to
// the node's dtype as a cast would; NaN stays NaN.
absl::StatusOr<HostTensor> Clip(const Node& node, const HostTensor& x) {
  absl::StatusOr<std::optional<HostTensor>> lo = ClipBound(node, "min");
  if (!lo.ok()) return lo.status();
  absl::StatusOr<std::optional<HostTensor>> hi = ClipBound(node, "max");
  if (!hi.ok()) return hi.status();
  HostTensor out(node.type);
  if (IsFloat(x.dtype())) {
    std::vector<double> v = ReadDoubles(x);
    for (double& e : v) {
      if (lo->has_value()) e = Maximum(e, (*lo)->GetDouble(0));
      if (hi->has_value()) e = Minimum(e, (*hi)->GetDouble(0));
    }
    WriteDoubles(out, v);
    return out;
  }
  std::vector<int64_t> v = ReadInts(x);
  for (int64_t& e : v) {
    if (lo->has_value()) e = std::max(e, (*lo)->GetInt(0));
    if (hi->has_value()) e = std::min(e, (*hi)->GetInt(0));
  }
  WriteInts(out, v);
  return out;
}

}  // namespace

absl::StatusOr<HostTensor> EvalUnary(const Node& node, absl::Span<const HostTensor> operands) {
  if (absl::Status s = CheckArity(node, operands, 1); !s.ok()) return s;
  const HostTensor& x = operands[0];
  if (x.shape() != node.type.shape) return ExpectType(x, node.type, OpLabel(node.op).c_str());
  if (node.op == Op::kClip) return Clip(node, x);
  HostTensor out(node.type);
  if (IsFloat(x.dtype())) {
    absl::StatusOr<double (*)(double)> f = FloatUnary(node.op);
    if (!f.ok()) return f.status();
    std::vector<double> v = ReadDoubles(x);
    for (double& e : v) e = (*f)(e);
    WriteDoubles(out, v);
    return out;
  }
  std::vector<int64_t> v = ReadInts(x);
  for (int64_t& e : v) {
    switch (node.op) {
      case Op::kNeg: e = WrapSub(0, e); break;
      case Op::kAbs: e = e < 0 ? WrapSub(0, e) : e; break;
        default: return IntegerUnsupported(node, x.dtype());
    }
  }
  WriteInts(out, v);
  return out;
}

absl::StatusOr<HostTensor> EvalBinary(const Node& node, absl::Span<const HostTensor> operands) {
  absl::StatusOr<BinaryIndices> at = BroadcastBinary(node, operands);
  if (!at.ok()) return at.status();
  const HostTensor& a = operands[0];
  const HostTensor& b = operands[1];
  HostTensor out(node.type);
  if (IsFloat(a.dtype())) {
    absl::StatusOr<double (*)(double, double)> f = FloatBinary(node.op);
    if (!f.ok()) return f.status();
    WriteDoubles(out, at->Map<double>(ReadDoubles(a), ReadDoubles(b), *f));
    return out;
  }
  absl::StatusOr<int64_t (*)(int64_t, int64_t)> f = IntBinary(node.op);
  if (!f.ok()) return f.status();
  WriteInts(out, at->Map<int64_t>(ReadInts(a), ReadInts(b), *f));
  return out;
}

absl::StatusOr<HostTensor> EvalCompare(const Node& node, absl::Span<const HostTensor> operands) {
  absl::StatusOr<BinaryIndices> at = BroadcastBinary(node, operands);
  if (!at.ok()) return at.status();
  const HostTensor& a = operands[0];
  const HostTensor& b = operands[1];
  HostTensor out(node.type);
  if (IsFloat(a.dtype()) || IsFloat(b.dtype())) {
    WriteInts(out, at->Map<int64_t>(ReadDoubles(a), ReadDoubles(b), [&](double x, double y) {
      return Compare(node.op, x, y);
    }));
  } else {
    WriteInts(out, at->Map<int64_t>(ReadInts(a), ReadInts(b), [&](int64_t x, int64_t y) {
      return Compare(node.op, x, y);
    }));
  }
  return out;
}

absl::StatusOr<HostTensor> EvalLogic(const Node& node, absl::Span<const HostTensor> operands) {
  HostTensor out(node.type);
  if (node.op == Op::kNot) {
    if (absl::Status s = CheckArity(node, operands, 1); !s.ok()) return s;
    if (absl::Status s = ExpectType(operands[0], node.type, "not"); !s.ok()) return s;
    std::vector<int64_t> v = ReadInts(operands[0]);
    for (int64_t& e : v) e = e == 0;
    WriteInts(out, v);
    return out;
  }
  absl::StatusOr<BinaryIndices> at = BroadcastBinary(node, operands);
  if (!at.ok()) return at.status();
  const bool is_and = node.op == Op::kAnd;
  WriteInts(out, at->Map<int64_t>(ReadInts(operands[0]), ReadInts(operands[1]),
                                  [is_and](int64_t x, int64_t y) {
                                    return is_and ? (x != 0 && y != 0) : (x != 0 || y != 0);
                                  }));
  return out;
}

absl::StatusOr<HostTensor> EvalSelect(const Node& node, absl::Span<const HostTensor> operands) {
  if (absl::Status s = CheckArity(node, operands, 3); !s.ok()) return s;
  const HostTensor& cond = operands[0];
  const HostTensor& a = operands[1];
  const HostTensor& b = operands[2];
  if (a.dtype() != node.type.dtype || b.dtype() != node.type.dtype) {
    return absl::InternalError("where: branch dtypes differ from the result's");
  }
  absl::StatusOr<std::vector<int64_t>> ic = BroadcastIndices(cond.shape(), node.type.shape);
  if (!ic.ok()) return ic.status();
  absl::StatusOr<std::vector<int64_t>> ia = BroadcastIndices(a.shape(), node.type.shape);
  if (!ia.ok()) return ia.status();
  absl::StatusOr<std::vector<int64_t>> ib = BroadcastIndices(b.shape(), node.type.shape);
  if (!ib.ok()) return ib.status();
  std::vector<int64_t> vc = ReadInts(cond);
  HostTensor out(node.type);
  const int64_t n = out.num_elements();
  const size_t size = DTypeSize(node.type.dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  const auto* pb = static_cast<const uint8_t*>(b.raw_data());
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* src = vc[(*ic)[i]] != 0 ? pa + (*ia)[i] * size : pb + (*ib)[i] * size;
    std::memcpy(dst + i * size, src, size);
  }
  return out;
}

absl::StatusOr<HostTensor> EvalCast(const Node& node, absl::Span<const HostTensor> operands) {
  if (absl::Status s = CheckArity(node, operands, 1); !s.ok()) return s;
  const HostTensor& x = operands[0];
  if (x.shape() != node.type.shape) {
    return absl::InternalError(absl::StrCat("cast: operand shape ", x.shape().ToString(),
                                            " differs from the result's"));
  }
  HostTensor out(node.type);
  if (IsFloat(x.dtype())) {
    WriteDoubles(out, ReadDoubles(x));
  } else {
    WriteInts(out, ReadInts(x));
  }
  return out;
}

}  // namespace rk::compiler::reference_internal
