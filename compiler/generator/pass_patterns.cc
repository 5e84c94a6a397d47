#include "compiler/generator/pass_patterns.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "base/status_macros.h"

namespace rk::compiler::generator {
namespace {

bool IsNumeric(const ValueFacts& f) { return f.type.dtype != DType::kBool; }
bool IsFloatValue(const ValueFacts& f) { return IsFloat(f.type.dtype); }
bool Any(const ValueFacts&) { return true; }

// An existing value satisfying `pred`, or a new float one.
absl::StatusOr<int> Operand(GenContext& ctx, const std::function<bool(const ValueFacts&)>& pred) {
  const int v = ctx.Pick(pred);
  if (v >= 0) return v;
  return ctx.Produce(TensorType(ctx.RandomFloatDType(), ctx.RandomShape()), false);
}

// op2(op1(x)) for the pairs the algebraic simplifier knows (and log(exp(x)),
// which it must leave alone).
absl::Status UnaryPair(GenContext& ctx) {
  constexpr Op kPairs[][2] = {{Op::kNeg, Op::kNeg},   {Op::kAbs, Op::kAbs}, {Op::kNeg, Op::kAbs},
                              {Op::kRelu, Op::kRelu}, {Op::kExp, Op::kLog}, {Op::kLog, Op::kExp}};
  const auto& pair = ctx.rng().Pick(kPairs);
  RK_ASSIGN_OR_RETURN(int v, Operand(ctx, IsFloatValue));
  for (Op op : pair) {
    RK_ASSIGN_OR_RETURN(v, ctx.Fit(op, 0, v, ctx.type(v)));
    RK_ASSIGN_OR_RETURN(v, ctx.EmitBounded(op, {v}));
  }
  return absl::OkStatus();
}

absl::Status CastRoundTrip(GenContext& ctx) {
  RK_ASSIGN_OR_RETURN(const int v, Operand(ctx, IsNumeric));
  const DType dtype = ctx.type(v).dtype;
  const DType wide = IsFloat(dtype) ? DType::kF64 : DType::kI64;
  if (dtype == wide) return Skip("already wide");
  RK_ASSIGN_OR_RETURN(const int up, ctx.Emit(Op::kCast, {v}, {{"dtype", wide}}));
  return ctx.Emit(Op::kCast, {up}, {{"dtype", dtype}}).status();
}

// x - x or x * x.
absl::Status SelfBinary(GenContext& ctx) {
  RK_ASSIGN_OR_RETURN(int v, Operand(ctx, IsNumeric));
  if (ctx.rng().Chance(0.5)) return ctx.Emit(Op::kSub, {v, v}).status();
  RK_ASSIGN_OR_RETURN(v, ctx.Squash(v, 0.9 * std::sqrt(kMaxMagnitude)));
  return ctx.Emit(Op::kMul, {v, v}).status();
}

// x op c (or c op x) with c a full of a value the simplifier looks for,
// sometimes combined with an iota into a constant subgraph.
absl::Status WithConstant(GenContext& ctx) {
  constexpr Op kBinary[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMaximum, Op::kMinimum};
  constexpr Op kCombine[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kMaximum, Op::kMinimum};
  constexpr double kFloatValues[] = {1.0, 0.0, -0.0, 2.0, 0.5, -1.0};
  constexpr double kIntValues[] = {1.0, 0.0, 2.0, -1.0};
  Rng& rng = ctx.rng();
  RK_ASSIGN_OR_RETURN(int x, Operand(ctx, IsNumeric));
  const TensorType type = ctx.type(x);
  const double value = IsFloat(type.dtype) ? rng.Pick(kFloatValues) : rng.Pick(kIntValues);
  const bool scalar = rng.Chance(0.5);
  const std::vector<int64_t> dims = scalar ? std::vector<int64_t>{} : type.shape.dims();
  RK_ASSIGN_OR_RETURN(int c, ctx.Emit(Op::kFull, {}, {{"value", value}, {"dtype", type.dtype},
                                                      {"shape", dims}}));
  if (rng.Chance(0.3) && type.shape.rank() > 0) {
    RK_ASSIGN_OR_RETURN(const int iota, ctx.EmitSource(Op::kIota, type));
    RK_ASSIGN_OR_RETURN(c, ctx.EmitBounded(rng.Pick(kCombine), {c, iota}));
  }
  const Op op = rng.Pick(kBinary);
  int a = x;
  int b = c;
  if (rng.Chance(0.5)) std::swap(a, b);
  RK_ASSIGN_OR_RETURN(a, ctx.Fit(op, 0, a, ctx.type(a)));
  RK_ASSIGN_OR_RETURN(b, ctx.Fit(op, 1, b, ctx.type(b)));
  return ctx.EmitBounded(op, {a, b}).status();
}

// A second node computing what an existing one computes.
absl::Status Repeat(GenContext& ctx) {
  const int v = ctx.Pick(Any);
  if (v < 0) return Skip("nothing to repeat");
  return ctx.EmitCopy(v).status();
}

absl::Status LayoutRoundTrip(GenContext& ctx) {
  Rng& rng = ctx.rng();
  RK_ASSIGN_OR_RETURN(const int v, Operand(ctx, Any));
  const compiler::Shape shape = ctx.type(v).shape;
  const int rank = shape.rank();
  switch (rng.Below(4)) {
    case 0: {
      const compiler::Attributes axes{{"axes", std::vector<int64_t>{0}}};
      RK_ASSIGN_OR_RETURN(const int u, ctx.Emit(Op::kUnsqueeze, {v}, axes));
      return ctx.Emit(Op::kSqueeze, {u}, axes).status();
    }
    case 1: {
      RK_ASSIGN_OR_RETURN(const int flat, ctx.Emit(Op::kReshape, {v},
                                                   {{"shape", std::vector<int64_t>{
                                                                  shape.num_elements()}}}));
      return ctx.Emit(Op::kReshape, {flat}, {{"shape", shape.dims()}}).status();
    }
    case 2: {
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      rng.Shuffle(perm);
      RK_ASSIGN_OR_RETURN(const int t, ctx.Emit(Op::kTranspose, {v}, {{"perm", perm}}));
      rng.Shuffle(perm);
      return ctx.Emit(Op::kTranspose, {t}, {{"perm", perm}}).status();
    }
    default: {
      std::vector<int64_t> dims = shape.dims();
      if (rng.Chance(0.5)) dims.insert(dims.begin(), 2);
      return ctx.Emit(Op::kBroadcastTo, {v}, {{"shape", dims}}).status();
    }
  }
}

}  // namespace

absl::Status AddPassPattern(GenContext& ctx) {
  switch (ctx.rng().Below(6)) {
    case 0: return UnaryPair(ctx);
    case 1: return CastRoundTrip(ctx);
    case 2: return SelfBinary(ctx);
    case 3: return WithConstant(ctx);
    case 4: return Repeat(ctx);
    default: return LayoutRoundTrip(ctx);
  }
}

}  // namespace rk::compiler::generator
