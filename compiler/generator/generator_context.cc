#include "compiler/generator/generator_context.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/generator/corner_values.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler::generator {

using compiler::Attributes;
using compiler::DType;
using compiler::HostTensor;
using compiler::IsFloat;
using compiler::Op;
using compiler::RandomSpec;
using compiler::Shape;
using compiler::TensorType;

namespace {

constexpr char kSkipPrefix[] = "fuzz-skip: ";
constexpr int64_t kDimMenu[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32, 64};

bool CanCast(const ValueFacts& f, DType to) {
  return !(IsFloat(f.type.dtype) && !IsFloat(to) && !f.exact);
}

bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) return false;
  for (int i = 1; i <= from.rank(); ++i) {
    const int64_t d = from.dim(from.rank() - i);
    if (d != 1 && d != to.dim(to.rank() - i)) return false;
  }
  return true;
}

std::vector<int64_t> NonUnitDims(const Shape& s) {
  std::vector<int64_t> dims;
  for (int64_t d : s.dims()) {
    if (d != 1) dims.push_back(d);
  }
  return dims;
}

}  // namespace

absl::Status Skip(const char* why) {
  return absl::FailedPreconditionError(absl::StrCat(kSkipPrefix, why));
}

bool IsSkip(const absl::Status& status) {
  return status.code() == absl::StatusCode::kFailedPrecondition &&
         absl::StartsWith(status.message(), kSkipPrefix);
}

GenContext::GenContext(const GeneratorOptions& options, uint64_t seed)
    : options_(options), rng_(seed) {
  constexpr DType kMain[] = {DType::kF32, DType::kF32, DType::kF32, DType::kF32, DType::kF32,
                             DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
  main_float_ = options_.mixed_dtypes ? rng_.Pick(kMain) : DType::kF32;
}

absl::StatusOr<int> GenContext::Emit(Op op, std::vector<int> operands, Attributes attrs) {
  std::vector<TensorType> types;
  std::vector<ValueFacts> in;
  for (int v : operands) {
    types.push_back(type(v));
    in.push_back(facts(v));
  }
  absl::StatusOr<TensorType> inferred = compiler::InferType(op, types, attrs);
  if (!inferred.ok()) {
    return absl::InternalError(absl::StrCat("generator built an invalid node: ",
                                            std::string(inferred.status().message())));
  }
  if (inferred->num_elements() > options_.max_elements) return Skip("too many elements");
  Value value;
  value.facts.type = *inferred;
  value.facts.range = InferRange(op, in, attrs, *inferred);
  value.facts.exact = InferExact(op, in, *inferred);
  if (op == Op::kMul && operands[0] == operands[1] && IsFloat(inferred->dtype)) {
    // A square: interval arithmetic alone would allow negative values.
    const ValueRange x = in[0].range;
    const double low = x.lo <= 0 && x.hi >= 0 ? 0.0 : std::min(x.lo * x.lo, x.hi * x.hi);
    value.facts.range = {low * (1 - 1.0 / 64), x.MaxAbs() * x.MaxAbs() * (1 + 1.0 / 64)};
  }
  if (!std::isfinite(value.facts.range.lo) || !std::isfinite(value.facts.range.hi)) {
    return absl::InternalError(absl::StrCat("generator left ", std::string(compiler::OpName(op)),
                                            " without a finite range"));
  }
  value.op = op;
  value.operands = std::move(operands);
  value.attrs = std::move(attrs);
  for (int v : value.operands) ++values_[v].users;
  values_.push_back(std::move(value));
  ++compute_nodes_;
  return num_values() - 1;
}

absl::StatusOr<int> GenContext::EmitBounded(Op op, std::vector<int> operands, Attributes attrs) {
  for (int round = 0; round < 4; ++round) {
    std::vector<TensorType> types;
    std::vector<ValueFacts> in;
    for (int v : operands) {
      types.push_back(type(v));
      in.push_back(facts(v));
    }
    absl::StatusOr<TensorType> inferred = compiler::InferType(op, types, attrs);
    if (!inferred.ok()) break;
    const bool integer = compiler::IsInteger(inferred->dtype);
    if (!IsFloat(inferred->dtype) && !integer) break;
    // Integers: the range before it wraps, so no overflow goes unseen.
    const double limit = integer ? kMaxIntMagnitude : kMaxMagnitude;
    const double bound = integer ? InferRawRange(op, in, attrs, *inferred).MaxAbs()
                                 : InferRange(op, in, attrs, *inferred).MaxAbs();
    if (bound <= limit) break;
    const double factor = 0.8 * limit / bound;
    const bool bilinear = op == Op::kMul || op == Op::kMatmul || op == Op::kConv2d;
    const bool norm = op == Op::kLayerNorm || op == Op::kRmsNorm;
    for (size_t i = 0; i < operands.size(); ++i) {
      const DType dtype = type(operands[i]).dtype;
      if (integer ? !compiler::IsInteger(dtype) : (!IsFloat(dtype) || op == Op::kPow)) continue;
      if ((op == Op::kDiv && i != 0) || (norm && i == 0)) continue;
      const double target = facts(operands[i]).range.MaxAbs() * (bilinear ? std::sqrt(factor) : factor);
      absl::StatusOr<int> squashed = Squash(operands[i], target);
      if (!squashed.ok()) return squashed.status();
      operands[i] = *squashed;
    }
  }
  return Emit(op, std::move(operands), std::move(attrs));
}

int GenContext::NewInput(const TensorType& type) {
  Value value;
  value.is_input = true;
  value.facts.type = type;
  value.facts.exact = true;
  RandomSpec& spec = value.spec;
  if (type.dtype == DType::kBool) {
    value.facts.range = {0, 1};
  } else if (compiler::IsInteger(type.dtype)) {
    const uint64_t r = rng_.Below(10);
    spec.low = r < 6 ? -8 : r < 8 ? 1 : -100;
    spec.high = r < 8 ? 8 : 100;
    value.facts.range = {spec.low, spec.high};
  } else {
    const uint64_t r = rng_.Below(20);
    if (r < 12) {
      spec.low = -1;
      spec.high = 1;
    } else if (r < 14) {
      spec.low = -4;
      spec.high = 4;
    } else if (r < 17) {
      spec.low = 0.5;
      spec.high = 2;
    } else {
      spec.distribution = RandomSpec::Distribution::kNormal;
      spec.low = 0;
      spec.high = 1;
    }
    // Box-Muller draws stay within ~8.6 standard deviations.
    value.facts.range = spec.distribution == RandomSpec::Distribution::kNormal
                            ? ValueRange{spec.low - 9 * spec.high, spec.low + 9 * spec.high}
                            : ValueRange{spec.low, spec.high};
  }
  values_.push_back(std::move(value));
  ++num_inputs_;
  return num_values() - 1;
}

DType GenContext::RandomFloatDType() {
  if (!options_.mixed_dtypes || rng_.Chance(0.8)) return main_float_;
  constexpr DType kFloats[] = {DType::kF16, DType::kBF16, DType::kF32, DType::kF64};
  return rng_.Pick(kFloats);
}

DType GenContext::RandomDType() {
  if (!options_.mixed_dtypes) return main_float_;
  const uint64_t r = rng_.Below(20);
  if (r < 14) return RandomFloatDType();
  if (r < 18) return r % 2 ? DType::kI32 : DType::kI64;
  return DType::kBool;
}

Shape GenContext::RandomShape(int min_rank) {
  constexpr int kRankWeights[] = {1, 5, 7, 5, 2};
  const int max_rank = std::max(min_rank, std::min(options_.max_rank, 4));
  int total = 0;
  for (int r = min_rank; r <= max_rank; ++r) total += kRankWeights[r];
  int pick = static_cast<int>(rng_.Below(total));
  int rank = min_rank;
  while (pick >= kRankWeights[rank]) pick -= kRankWeights[rank++];
  const int64_t budgets[] = {std::max<int64_t>(1, options_.max_elements / 16),
                             std::max<int64_t>(1, options_.max_elements / 4),
                             options_.max_elements};
  int64_t budget = rng_.Pick(budgets);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    std::vector<int64_t> fitting;
    for (int64_t d : kDimMenu) {
      if (d <= budget) fitting.push_back(d);
    }
    const int64_t d = fitting.empty() ? 1 : rng_.Pick(fitting);
    dims.push_back(d);
    budget /= d;
  }
  return Shape(std::move(dims));
}

Shape GenContext::BroadcastPartner(const Shape& s) {
  const int rank = static_cast<int>(rng_.Range(0, s.rank()));
  std::vector<int64_t> dims;
  for (int i = s.rank() - rank; i < s.rank(); ++i) {
    dims.push_back(rng_.Chance(0.35) ? 1 : s.dim(i));
  }
  return Shape(std::move(dims));
}

std::vector<int64_t> GenContext::Factorize(int64_t n, int rank) {
  std::vector<int64_t> dims(rank, 1);
  if (rank == 0) return dims;
  for (int64_t p = 2; n > 1; ++p) {
    if (p * p > n) p = n;
    while (n % p == 0) {
      dims[rng_.Below(rank)] *= p;
      n /= p;
    }
  }
  return dims;
}

std::vector<int64_t> GenContext::RandomAxes(int rank, bool allow_empty) {
  std::vector<int64_t> axes;
  for (int i = 0; i < rank; ++i) {
    if (rng_.Chance(0.4)) axes.push_back(rng_.Chance(0.2) ? i - rank : i);
  }
  if (axes.empty() && rank > 0 && !(allow_empty && rng_.Chance(0.05))) {
    axes.push_back(static_cast<int64_t>(rng_.Below(rank)));
  }
  if (rng_.Chance(0.2)) rng_.Shuffle(axes);
  return axes;
}

int GenContext::Pick(const std::function<bool(const ValueFacts&)>& pred) {
  std::vector<int> all;
  std::vector<int> unused;
  for (int v = 0; v < num_values(); ++v) {
    if (!pred(values_[v].facts)) continue;
    all.push_back(v);
    if (values_[v].users == 0) unused.push_back(v);
  }
  if (all.empty()) return -1;
  return !unused.empty() && rng_.Chance(0.75) ? rng_.Pick(unused) : rng_.Pick(all);
}

absl::StatusOr<int> GenContext::ScalarFull(DType dtype, double value) {
  return Emit(Op::kFull, {}, {{"value", value}, {"dtype", dtype}, {"shape", std::vector<int64_t>{}}});
}

absl::StatusOr<int> GenContext::Produce(const TensorType& type, bool need_exact) {
  if (type.dtype == DType::kBool && rng_.Chance(0.7)) return ProduceBool(type.shape);
  const uint64_t r = rng_.Below(10);
  if (r < 3 && num_inputs_ < options_.max_inputs) return NewInput(type);
  if (r < 7) {
    const bool same_dtype = rng_.Chance(0.7);
    const int v = Pick([&](const ValueFacts& f) {
      return (!need_exact || f.exact) && (same_dtype ? f.type.dtype == type.dtype
                                                     : CanCast(f, type.dtype));
    });
    if (v >= 0) {
      absl::StatusOr<int> converted = Convert(v, type.dtype);
      if (!converted.ok()) return converted.status();
      return Derive(*converted, type.shape);
    }
  }
  return ProduceSource(type);
}

absl::StatusOr<int> GenContext::ProduceIndices(const TensorType& type, int64_t size) {
  const int existing = Pick([&](const ValueFacts& f) {
    return f.type == type && f.range.lo >= -size && f.range.hi <= size - 1;
  });
  if (existing >= 0 && rng_.Chance(0.5)) return existing;
  const uint64_t r = rng_.Below(10);
  if (r < 5 && num_inputs_ < options_.max_inputs) {
    Value value;
    value.is_input = true;
    value.facts.type = type;
    value.spec.low = static_cast<double>(-size);
    value.spec.high = static_cast<double>(size - 1);
    value.facts.range = {value.spec.low, value.spec.high};
    values_.push_back(std::move(value));
    ++num_inputs_;
    return num_values() - 1;
  }
  if (r < 8 && type.num_elements() <= 16) {
    HostTensor value(type);
    for (int64_t i = 0; i < value.num_elements(); ++i) value.SetInt(i, rng_.Range(-size, size - 1));
    return Emit(Op::kConstant, {}, {{"value", value}});
  }
  const double splat = static_cast<double>(rng_.Range(-size, size - 1));
  return Emit(Op::kFull, {}, {{"value", splat}, {"dtype", type.dtype}, {"shape", type.shape.dims()}});
}

absl::StatusOr<int> GenContext::ProduceSource(const TensorType& type) {
  const uint64_t r = rng_.Below(10);
  if (r < 2 && type.dtype != DType::kBool && type.shape.rank() > 0) {
    return EmitSource(Op::kIota, type);
  }
  if (r < 6 && type.num_elements() <= 16) return EmitSource(Op::kConstant, type);
  return EmitSource(Op::kFull, type);
}

absl::StatusOr<int> GenContext::EmitSource(Op op, const TensorType& type) {
  const std::vector<int64_t>& dims = type.shape.dims();
  if (op == Op::kIota) {
    const int rank = type.shape.rank();
    const int64_t axis = static_cast<int64_t>(rng_.Below(rank)) - (rng_.Chance(0.3) ? rank : 0);
    return Emit(Op::kIota, {}, {{"axis", axis}, {"dtype", type.dtype}, {"shape", dims}});
  }
  if (op == Op::kConstant) {
    HostTensor value(type);
    for (int64_t i = 0; i < value.num_elements(); ++i) {
      if (IsFloat(type.dtype)) {
        value.SetDouble(i, static_cast<double>(rng_.Range(-16, 16)) / 8);
      } else {
        value.SetInt(i, type.dtype == DType::kBool ? rng_.Range(0, 1) : rng_.Range(-8, 8));
      }
    }
    return Emit(Op::kConstant, {}, {{"value", value}});
  }
  constexpr double kFloatValues[] = {0.5, 1, 2, -1, 0.25, -0.5, 3, 0.1, 0};
  constexpr double kIntValues[] = {0, 1, 2, -3, 5};
  const double value = IsFloat(type.dtype)               ? rng_.Pick(kFloatValues)
                       : compiler::IsInteger(type.dtype) ? rng_.Pick(kIntValues)
                                                         : static_cast<double>(rng_.Below(2));
  return Emit(Op::kFull, {}, {{"value", value}, {"dtype", type.dtype}, {"shape", dims}});
}

absl::StatusOr<int> GenContext::ProduceBool(const Shape& shape) {
  DType dtype = RandomDType();
  if (dtype == DType::kBool) dtype = main_float_;
  absl::StatusOr<int> a = Produce(TensorType(dtype, shape), /*need_exact=*/true);
  if (!a.ok()) return a.status();
  absl::StatusOr<int> b = rng_.Chance(0.5)
                              ? ScalarFull(dtype, rng_.Chance(0.5) ? 0.0 : 0.5)
                              : Produce(TensorType(dtype, BroadcastPartner(shape)), true);
  if (!b.ok()) return b.status();
  constexpr Op kCompares[] = {Op::kEq, Op::kNe, Op::kLt, Op::kLe, Op::kGt, Op::kGe};
  return Emit(rng_.Pick(kCompares), {*a, *b});
}

absl::StatusOr<int> GenContext::SliceTo(int v, const Shape& shape) {
  const Shape& s = type(v).shape;
  std::vector<int64_t> start, limit, stride;
  for (int i = 0; i < s.rank(); ++i) {
    const int64_t d = s.dim(i);
    const int64_t t = shape.dim(i);
    const int64_t max_stride = t == 1 ? 3 : std::max<int64_t>(1, (d - 1) / (t - 1));
    const int64_t k = rng_.Chance(0.6) ? 1 : rng_.Range(1, std::min<int64_t>(max_stride, 3));
    const int64_t span = (t - 1) * k + 1;
    const int64_t begin = rng_.Range(0, d - span);
    start.push_back(begin);
    limit.push_back(std::min(d, begin + span + static_cast<int64_t>(rng_.Below(k))));
    stride.push_back(k);
  }
  return Emit(Op::kSlice, {v}, {{"start", start}, {"limit", limit}, {"stride", stride}});
}

absl::StatusOr<int> GenContext::Derive(int v, const Shape& shape) {
  const Shape s = type(v).shape;
  if (s == shape) return v;
  const int64_t n = s.num_elements();
  const int64_t m = shape.num_elements();
  if (n == m) {
    if (NonUnitDims(s) == NonUnitDims(shape) && rng_.Chance(0.6)) {
      std::vector<int64_t> squeeze, unsqueeze;
      for (int i = 0; i < s.rank(); ++i) {
        if (s.dim(i) == 1) squeeze.push_back(i);
      }
      for (int i = 0; i < shape.rank(); ++i) {
        if (shape.dim(i) == 1) unsqueeze.push_back(i);
      }
      absl::StatusOr<int> x = v;
      if (!squeeze.empty()) x = Emit(Op::kSqueeze, {v}, {{"axes", squeeze}});
      if (x.ok() && !unsqueeze.empty()) x = Emit(Op::kUnsqueeze, {*x}, {{"axes", unsqueeze}});
      return x;
    }
    return Emit(Op::kReshape, {v}, {{"shape", shape.dims()}});
  }
  if (BroadcastsTo(s, shape)) return Emit(Op::kBroadcastTo, {v}, {{"shape", shape.dims()}});
  if (s.rank() == shape.rank()) {
    bool fits = true;
    for (int i = 0; i < s.rank(); ++i) fits = fits && s.dim(i) >= shape.dim(i);
    if (fits) return SliceTo(v, shape);
  }
  absl::StatusOr<int> x = v;
  if (s.rank() != 1) x = Emit(Op::kReshape, {v}, {{"shape", std::vector<int64_t>{n}}});
  if (!x.ok()) return x;
  const int64_t take = std::min(n, m);
  const int64_t begin = rng_.Range(0, n - take);
  if (take != n) {
    x = Emit(Op::kSlice, {*x}, {{"start", std::vector<int64_t>{begin}},
                                {"limit", std::vector<int64_t>{begin + take}},
                                {"stride", std::vector<int64_t>{1}}});
    if (!x.ok()) return x;
  }
  if (take == m) return Emit(Op::kReshape, {*x}, {{"shape", shape.dims()}});
  // Fewer elements than needed: one element, broadcast.
  x = SliceTo(*x, Shape{1});
  if (!x.ok()) return x;
  x = Emit(Op::kReshape, {*x}, {{"shape", std::vector<int64_t>(shape.rank(), 1)}});
  if (!x.ok()) return x;
  return Emit(Op::kBroadcastTo, {*x}, {{"shape", shape.dims()}});
}

absl::StatusOr<int> GenContext::Convert(int v, DType dtype) {
  const ValueFacts& f = facts(v);
  if (f.type.dtype == dtype) return v;
  if (!CanCast(f, dtype)) return Produce(TensorType(dtype, f.type.shape), /*need_exact=*/true);
  absl::StatusOr<int> x = v;
  if (!IsFloat(f.type.dtype) && IsFloat(dtype) && f.range.MaxAbs() > kMaxMagnitude) {
    x = Squash(v, kMaxMagnitude);
    if (!x.ok()) return x;
  }
  return Emit(Op::kCast, {*x}, {{"dtype", dtype}});
}

absl::StatusOr<int> GenContext::Squash(int v, double bound, bool keep_exact) {
  const ValueFacts f = facts(v);
  if (f.range.MaxAbs() <= bound || f.type.dtype == DType::kBool) return v;
  const DType dtype = f.type.dtype;
  absl::StatusOr<int> x = v;
  const uint64_t how = rng_.Below(3);
  // Clipping to exact bounds keeps an exact value exact; scaling and tanh do not.
  if (!IsFloat(dtype) || how == 0 || (keep_exact && f.exact)) {
    const double b = IsFloat(dtype) ? 0.95 * bound : std::max(1.0, std::floor(bound));
    absl::StatusOr<int> hi = ScalarFull(dtype, b);
    absl::StatusOr<int> lo = ScalarFull(dtype, -b);
    if (!hi.ok() || !lo.ok()) return !hi.ok() ? hi : lo;
    x = Emit(Op::kMinimum, {v, *hi});
    if (x.ok()) x = Emit(Op::kMaximum, {*x, *lo});
  } else if (how == 1) {
    absl::StatusOr<int> scale = ScalarFull(dtype, 0.95 * bound / f.range.MaxAbs());
    if (!scale.ok()) return scale;
    x = Emit(Op::kMul, {v, *scale});
  } else {
    x = Emit(Op::kTanh, {v});
    absl::StatusOr<int> scale = ScalarFull(dtype, 0.95 * bound);
    if (x.ok() && scale.ok()) x = Emit(Op::kMul, {*x, *scale});
  }
  if (x.ok() && facts(*x).range.MaxAbs() > bound) {
    return absl::InternalError(absl::StrCat("squash to ", bound, " failed"));
  }
  return x;
}

absl::StatusOr<int> GenContext::MakePositive(int v) {
  const DType dtype = type(v).dtype;
  constexpr double kOffsets[] = {0.25, 0.5, 1};
  absl::StatusOr<int> x = Squash(v, 10);
  if (!x.ok()) return x;
  switch (rng_.Below(4)) {
    case 0: x = Emit(Op::kAbs, {*x}); break;
    case 1:
      x = Squash(*x, 1.5);
      if (x.ok()) return Emit(Op::kExp, {*x});
      return x;
    case 2: x = Emit(Op::kMul, {*x, *x}); break;
    default: x = Emit(Op::kSigmoid, {*x}); break;
  }
  if (!x.ok()) return x;
  absl::StatusOr<int> offset = ScalarFull(dtype, rng_.Pick(kOffsets));
  if (!offset.ok()) return offset;
  return Emit(Op::kAdd, {*x, *offset});
}

absl::StatusOr<int> GenContext::AwayFromZero(int v, double bound) {
  // abs, maximum and neg are exact, so an exact v stays exact; the constant
  // is at least twice `bound`, which the ranges' widening cannot undo.
  constexpr double kFloors[] = {1, 2, 3};
  const DType dtype = type(v).dtype;
  absl::StatusOr<int> x = Emit(Op::kAbs, {v});
  absl::StatusOr<int> floor = ScalarFull(dtype, std::max(2 * bound, 0.5) * rng_.Pick(kFloors));
  if (!x.ok() || !floor.ok()) return !x.ok() ? x : floor;
  x = Emit(Op::kMaximum, {*x, *floor});
  if (x.ok() && rng_.Chance(0.3)) x = Emit(Op::kNeg, {*x});
  return x;
}

absl::StatusOr<int> GenContext::Fit(Op op, int index, int v, const TensorType& result) {
  for (int round = 0; round < 4; ++round) {
    const ValueFacts f = facts(v);
    if (OperandDomainOk(op, index, f, result)) return v;
    absl::StatusOr<int> x = v;
    const bool is_float = IsFloat(f.type.dtype);
    if (is_float && f.range.MaxAbs() > kMaxMagnitude) {
      x = Squash(v, kMaxMagnitude / 2, /*keep_exact=*/true);  // floor etc. need exactness
    } else if (!is_float && index == 1 &&
               (op == Op::kDiv || op == Op::kMod || op == Op::kFloorDiv)) {
      // An integer divisor: |v| >= 2 (never 0, never -1), clamped first so
      // that abs cannot overflow.
      x = Squash(v, kMaxMagnitude);
      if (x.ok()) x = AwayFromZero(*x, 1);
    } else if (op == Op::kLog || op == Op::kSqrt || op == Op::kRsqrt) {
      x = MakePositive(v);
    } else if (op == Op::kReciprocal || op == Op::kDiv) {
      x = MakePositive(v);
      if (x.ok() && rng_.Chance(0.3)) x = Emit(Op::kNeg, {*x});
    } else if ((op == Op::kMod || op == Op::kFloorDiv) && index == 1 && is_float && f.exact) {
      x = AwayFromZero(v, MinDivisor(op));
    } else if (op == Op::kPow && index == 0) {
      x = Squash(v, 2);
      if (x.ok()) x = Emit(Op::kExp, {*x});
    } else if (op == Op::kPow) {
      x = Squash(v, 2.5);
    } else if (op == Op::kExp) {
      x = Squash(v, kMaxExpArgument);
    } else if (op == Op::kSin || op == Op::kCos) {
      x = Squash(v, 100);
    } else if (op == Op::kLayerNorm || op == Op::kRmsNorm) {
      x = Squash(v, 10);
    } else if (!f.exact) {
      x = Produce(f.type, /*need_exact=*/true);
    } else if (!is_float) {
      x = Squash(v, kMaxMagnitude);
    }
    if (!x.ok()) return x;
    v = *x;
  }
  if (OperandDomainOk(op, index, facts(v), result)) return v;
  return absl::InternalError(absl::StrCat(
      "no guard brings operand ", index, " of ", std::string(compiler::OpName(op)),
      " into its domain: ", facts(v).type.ToString(), " in [", facts(v).range.lo, ", ",
      facts(v).range.hi, "]", facts(v).exact ? " exact" : ""));
}

absl::StatusOr<GeneratedGraph> GenContext::Finish() {
  // Corner cases and dead code draw from the stream only when asked for, and
  // only here, after the structure: the default options give the graphs they
  // always gave.
  const bool corner = options_.ir_corner_cases;
  CornerNames names(rng_);
  compiler::GraphBuilder builder(corner ? names.GraphName() : "fuzz");
  GeneratedGraph result;
  std::vector<compiler::NodeId> ids(values_.size());
  int inputs = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (!values_[i].is_input) continue;
    const std::string name = corner ? names.NodeName(1.0) : absl::StrCat("x", inputs++);
    ids[i] = builder.Input(name, values_[i].facts.type);
    result.input_specs.push_back(values_[i].spec);
  }
  std::vector<compiler::NodeId> signature_inputs(builder.graph().inputs());
  if (corner && rng_.Chance(0.5)) {
    // An input nobody uses.
    builder.Input(names.NodeName(1.0), TensorType(RandomDType(), RandomShape()));
    result.input_specs.push_back({});
  }
  int last = -1;
  for (size_t i = 0; i < values_.size(); ++i) {
    const Value& value = values_[i];
    if (value.is_input) continue;
    std::vector<compiler::NodeId> operands;
    for (int o : value.operands) operands.push_back(ids[o]);
    Attributes attrs = value.attrs;
    if (corner) AddCornerValues(value.op, value.facts.type, attrs, rng_);
    absl::StatusOr<compiler::NodeId> id =
        builder.Add(value.op, operands, attrs, corner ? names.NodeName(0.5) : "");
    if (!id.ok()) return absl::InternalError(std::string(id.status().message()));
    ids[i] = *id;
    last = static_cast<int>(i);
  }
  if (last < 0) return absl::InternalError("generated graph has no compute node");
  std::vector<compiler::NodeId> outputs;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].is_input || values_[i].users > 0) continue;
    // Dead code for the passes: some unused values are not outputs (the last
    // node always is).
    if (options_.pass_patterns && static_cast<int>(i) != last && rng_.Chance(0.5)) continue;
    outputs.push_back(ids[i]);
  }
  if (corner && rng_.Chance(0.5) && !signature_inputs.empty()) {
    outputs.push_back(signature_inputs[rng_.Below(signature_inputs.size())]);
  }
  if (corner && rng_.Chance(0.5)) outputs.push_back(outputs[rng_.Below(outputs.size())]);
  for (compiler::NodeId id : outputs) {
    if (absl::Status s = builder.Output(id); !s.ok()) return s;
  }
  absl::StatusOr<compiler::Graph> graph = builder.Build();
  if (!graph.ok()) return absl::InternalError(std::string(graph.status().message()));
  if (absl::Status s = compiler::Verify(*graph); !s.ok()) {
    return absl::InternalError(absl::StrCat("generated graph does not verify: ",
                                            std::string(s.message())));
  }
  result.graph = *std::move(graph);
  return result;
}

absl::StatusOr<int> GenContext::EmitCopy(int v) {
  if (values_[v].is_input) return Skip("inputs have no copies");
  const Value& value = values_[v];
  return Emit(value.op, value.operands, value.attrs);
}

}  // namespace rk::compiler::generator
