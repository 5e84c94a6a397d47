#include "compiler/reference/undefined_behavior.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

int64_t MinOf(DType dtype) {
  return dtype == DType::kI32 ? std::numeric_limits<int32_t>::min()
                              : std::numeric_limits<int64_t>::min();
}

// The element of `operand` each element of `result` reads (broadcasting).
std::vector<int64_t> ReadIndices(const HostTensor& operand, const Shape& result) {
  absl::StatusOr<std::vector<int64_t>> at = BroadcastIndices(operand.shape(), result);
  if (at.ok()) return *std::move(at);
  return {};
}

std::optional<std::string> Division(const Node& node, absl::Span<const HostTensor> operands,
                                    const HostTensor& result) {
  const DType dtype = result.dtype();
  const std::vector<int64_t> a = ReadInts(operands[0]);
  const std::vector<int64_t> b = ReadInts(operands[1]);
  const std::vector<int64_t> ia = ReadIndices(operands[0], result.shape());
  const std::vector<int64_t> ib = ReadIndices(operands[1], result.shape());
  const char* what = node.op == Op::kDiv ? "division" : node.op == Op::kMod ? "modulo" : "floor division";
  const char* sign = node.op == Op::kDiv ? "/" : node.op == Op::kMod ? "mod" : "floordiv";
  for (int64_t i = 0; i < result.num_elements() && i < static_cast<int64_t>(ia.size()) &&
                      i < static_cast<int64_t>(ib.size());
       ++i) {
    const int64_t x = a[ia[i]], y = b[ib[i]];
    if (y == 0) {
      return absl::StrCat("integer ", what, " by zero (element ", i, ": ", x, " ", sign, " 0)");
    }
    if (y == -1 && x == MinOf(dtype)) {
      return absl::StrCat("integer ", what, " overflow (element ", i, ": ", x, " ", sign,
                          " -1)");
    }
  }
  return std::nullopt;
}

std::optional<std::string> FloatToInt(const HostTensor& x, DType to) {
  // The truncated value must lie in [min, max] of `to`: bounds exact in double.
  const double lo = to == DType::kI32 ? -2147483648.0 : -9223372036854775808.0;
  const double hi_exclusive = to == DType::kI32 ? 2147483648.0 : 9223372036854775808.0;
  const std::vector<double> v = ReadDoubles(x);
  for (size_t i = 0; i < v.size(); ++i) {
    const double t = std::trunc(v[i]);
    if (std::isnan(v[i]) || t < lo || t >= hi_exclusive) {
      return absl::StrCat("cast of ", v[i], " to ", std::string(DTypeName(to)), " (element ", i,
                          "): not a value the integer type holds");
    }
  }
  return std::nullopt;
}

std::optional<std::string> GatherIndices(const Node& node, absl::Span<const HostTensor> operands) {
  const int rank = operands[0].shape().rank();
  int64_t axis = node.attrs.GetInt("axis").value_or(0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  const int64_t size = operands[0].shape().dim(static_cast<int>(axis));
  const std::vector<int64_t> picks = ReadInts(operands[1]);
  for (size_t i = 0; i < picks.size(); ++i) {
    if (picks[i] < -size || picks[i] >= size) {
      return absl::StrCat("gather index ", picks[i], " out of range [", -size, ", ", size,
                          ") (index element ", i, ")");
    }
  }
  return std::nullopt;
}

bool CanOverflow(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kNeg:
    case Op::kAbs:
    case Op::kReduceSum:
    case Op::kCumsum:
    case Op::kMatmul: return true;
    default: return false;
  }
}

absl::StatusOr<HostTensor> EvalWide(const Node& node, absl::Span<const HostTensor> operands) {
  switch (GetOpKind(node.op)) {
    case OpKind::kUnary: return EvalUnary(node, operands);
    case OpKind::kBinary: return EvalBinary(node, operands);
    case OpKind::kReduce: return EvalReduce(node, operands);
    case OpKind::kScan: return EvalScan(node, operands);
    case OpKind::kMatmul: return EvalMatmul(node, operands);
    default: return absl::InternalError("no wide evaluation");
  }
}

// The op evaluated again in a wider type (i32 in i64, i64 in f64): an
// element the result's dtype cannot hold overflowed.
std::optional<std::string> Overflow(const Node& node, absl::Span<const HostTensor> operands,
                                    const HostTensor& result) {
  const DType dtype = result.dtype();
  const DType wide = dtype == DType::kI32 ? DType::kI64 : DType::kF64;
  Node copy = node;
  copy.type.dtype = wide;
  std::vector<HostTensor> widened;
  for (const HostTensor& t : operands) widened.push_back(t.ConvertTo(wide));
  absl::StatusOr<HostTensor> exact = EvalWide(copy, widened);
  if (!exact.ok()) return std::nullopt;
  const double lo = static_cast<double>(MinOf(dtype));
  const double hi = dtype == DType::kI32 ? 2147483647.0 : 9223372036854775808.0;
  for (int64_t i = 0; i < exact->num_elements(); ++i) {
    const bool out = wide == DType::kI64
                         ? exact->GetInt(i) != result.GetInt(i)
                         : !(exact->GetDouble(i) >= lo && exact->GetDouble(i) < hi);
    if (out) {
      return absl::StrCat("signed integer overflow in ", std::string(DTypeName(dtype)), " (element ", i,
                          ": the exact result is ",
                          wide == DType::kI64 ? absl::StrCat(exact->GetInt(i))
                                              : absl::StrCat(exact->GetDouble(i)),
                          ")");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> FindUndefinedBehavior(const Node& node,
                                                 absl::Span<const HostTensor> operands,
                                                 const HostTensor& result) {
  const DType dtype = result.dtype();
  if ((node.op == Op::kDiv || node.op == Op::kMod || node.op == Op::kFloorDiv) &&
      IsInteger(dtype) && operands.size() == 2) {
    return Division(node, operands, result);
  }
  if (node.op == Op::kCast && operands.size() == 1 && IsFloat(operands[0].dtype()) &&
      IsInteger(dtype)) {
    return FloatToInt(operands[0], dtype);
  }
  if (node.op == Op::kGather && operands.size() == 2) return GatherIndices(node, operands);
  if (CanOverflow(node.op) && IsInteger(dtype)) return Overflow(node, operands, result);
  return std::nullopt;
}

}  // namespace rk::compiler::reference_internal
