#include "compiler/autodiff/vjp.h"

#include "compiler/autodiff/vjp_rules.h"

namespace rk::compiler::autodiff {
namespace {

constexpr VjpKind kSource = VjpKind::kSource;
constexpr VjpKind kRule = VjpKind::kRule;
constexpr VjpKind kZero = VjpKind::kNonDifferentiable;

// One row per op of ops.def, in its order. An op added to ops.def without a
// row here fails gradient_check_test (EveryOpHasADecision) and, if a graph
// reaches it, BuildJointGraph (Unimplemented).
constexpr VjpEntry kTable[] = {
    {Op::kInput, kSource, nullptr},
    {Op::kConstant, kSource, nullptr},
    {Op::kFull, kSource, nullptr},
    {Op::kIota, kSource, nullptr},

    {Op::kNeg, kRule, UnaryVjp},
    {Op::kAbs, kRule, UnaryVjp},
    {Op::kExp, kRule, UnaryVjp},
    {Op::kLog, kRule, UnaryVjp},
    {Op::kSqrt, kRule, UnaryVjp},
    {Op::kRsqrt, kRule, UnaryVjp},
    {Op::kReciprocal, kRule, UnaryVjp},
    {Op::kTanh, kRule, UnaryVjp},
    {Op::kSigmoid, kRule, UnaryVjp},
    {Op::kRelu, kRule, UnaryVjp},
    {Op::kErf, kRule, UnaryVjp},
    {Op::kSin, kRule, UnaryVjp},
    {Op::kCos, kRule, UnaryVjp},
    {Op::kFloor, kZero, nullptr},
    {Op::kCeil, kZero, nullptr},
    {Op::kRound, kZero, nullptr},
    {Op::kClip, kRule, UnaryVjp},

    {Op::kAdd, kRule, BinaryVjp},
    {Op::kSub, kRule, BinaryVjp},
    {Op::kMul, kRule, BinaryVjp},
    {Op::kDiv, kRule, BinaryVjp},
    {Op::kPow, kRule, BinaryVjp},
    {Op::kMaximum, kRule, BinaryVjp},
    {Op::kMinimum, kRule, BinaryVjp},
    {Op::kMod, kRule, BinaryVjp},
    {Op::kFloorDiv, kZero, nullptr},

    {Op::kEq, kZero, nullptr},
    {Op::kNe, kZero, nullptr},
    {Op::kLt, kZero, nullptr},
    {Op::kLe, kZero, nullptr},
    {Op::kGt, kZero, nullptr},
    {Op::kGe, kZero, nullptr},

    {Op::kAnd, kZero, nullptr},
    {Op::kOr, kZero, nullptr},
    {Op::kNot, kZero, nullptr},

    {Op::kWhere, kRule, WhereVjp},
    {Op::kCast, kRule, CastVjp},

    {Op::kReduceSum, kRule, ReduceVjp},
    {Op::kReduceMean, kRule, ReduceVjp},
    {Op::kReduceMax, kRule, ReduceVjp},
    {Op::kReduceMin, kRule, ReduceVjp},
    {Op::kArgmax, kZero, nullptr},

    {Op::kCumsum, kRule, CumsumVjp},

    {Op::kReshape, kRule, LayoutVjp},
    {Op::kTranspose, kRule, LayoutVjp},
    {Op::kBroadcastTo, kRule, LayoutVjp},
    {Op::kSlice, kRule, LayoutVjp},
    {Op::kConcat, kRule, LayoutVjp},
    {Op::kSqueeze, kRule, LayoutVjp},
    {Op::kUnsqueeze, kRule, LayoutVjp},
    {Op::kPad, kRule, LayoutVjp},

    {Op::kMatmul, kRule, MatmulVjp},
    {Op::kGather, kRule, GatherVjp},

    {Op::kConv2d, kRule, Conv2dVjp},
    {Op::kMaxPool2d, kRule, PoolVjp},
    {Op::kAvgPool2d, kRule, PoolVjp},

    {Op::kGelu, kRule, CompositeVjp},
    {Op::kSoftmax, kRule, CompositeVjp},
    {Op::kLogSoftmax, kRule, CompositeVjp},
    {Op::kLayerNorm, kRule, CompositeVjp},
    {Op::kRmsNorm, kRule, CompositeVjp},
};

}  // namespace

absl::Span<const VjpEntry> VjpTable() { return kTable; }

const VjpEntry* VjpFor(Op op) {
  for (const VjpEntry& entry : kTable) {
    if (entry.op == op) return &entry;
  }
  return nullptr;
}

}  // namespace rk::compiler::autodiff
