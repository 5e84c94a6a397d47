// Gradient rules of the elementwise ops: unary, binary (with broadcasting:
// each operand's gradient is summed back to its shape), where and cast.
#include <cmath>

#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"

namespace rk::compiler::autodiff {
namespace {

constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // 2 / sqrt(pi)

absl::StatusOr<NodeId> Masked(GradBuilder& gb, NodeId cond, NodeId g) {
  RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(gb.type(g).dtype, 0.0));
  return gb.Where(cond, g, zero);
}

// d/dx of the unary op at x (result y), times g.
absl::StatusOr<NodeId> UnaryGrad(GradBuilder& gb, const VjpArgs& a) {
  const NodeId x = a.x[0], y = a.y, g = a.g;
  const DType dt = gb.type(x).dtype;
  switch (a.node.op) {
    case Op::kNeg: return gb.Un(Op::kNeg, g);
    case Op::kAbs: {
      // sign(x) * g, with sign(0) = 0 as PyTorch's abs backward.
      RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(dt, 0.0));
      RK_ASSIGN_OR_RETURN(NodeId pos, gb.Bin(Op::kGt, x, zero));
      RK_ASSIGN_OR_RETURN(NodeId neg, gb.Bin(Op::kLt, x, zero));
      RK_ASSIGN_OR_RETURN(NodeId minus_g, gb.Un(Op::kNeg, g));
      RK_ASSIGN_OR_RETURN(NodeId low, Masked(gb, neg, minus_g));
      return gb.Where(pos, g, low);
    }
    case Op::kExp: return gb.Bin(Op::kMul, g, y);
    case Op::kLog: return gb.Bin(Op::kDiv, g, x);
    case Op::kSqrt: {  // g / (2 y)
      RK_ASSIGN_OR_RETURN(NodeId two_y, gb.BinScalar(Op::kMul, y, 2.0));
      return gb.Bin(Op::kDiv, g, two_y);
    }
    case Op::kRsqrt: {  // -0.5 g y^3
      RK_ASSIGN_OR_RETURN(NodeId y2, gb.Bin(Op::kMul, y, y));
      RK_ASSIGN_OR_RETURN(NodeId y3, gb.Bin(Op::kMul, y2, y));
      RK_ASSIGN_OR_RETURN(NodeId gy3, gb.Bin(Op::kMul, g, y3));
      return gb.BinScalar(Op::kMul, gy3, -0.5);
    }
    case Op::kReciprocal: {  // -g y^2
      RK_ASSIGN_OR_RETURN(NodeId y2, gb.Bin(Op::kMul, y, y));
      RK_ASSIGN_OR_RETURN(NodeId gy2, gb.Bin(Op::kMul, g, y2));
      return gb.Un(Op::kNeg, gy2);
    }
    case Op::kTanh: {  // g (1 - y^2)
      RK_ASSIGN_OR_RETURN(NodeId y2, gb.Bin(Op::kMul, y, y));
      RK_ASSIGN_OR_RETURN(NodeId one, gb.Scalar(dt, 1.0));
      RK_ASSIGN_OR_RETURN(NodeId d, gb.Bin(Op::kSub, one, y2));
      return gb.Bin(Op::kMul, g, d);
    }
    case Op::kSigmoid: {  // g y (1 - y)
      RK_ASSIGN_OR_RETURN(NodeId one, gb.Scalar(dt, 1.0));
      RK_ASSIGN_OR_RETURN(NodeId d, gb.Bin(Op::kSub, one, y));
      RK_ASSIGN_OR_RETURN(NodeId yd, gb.Bin(Op::kMul, y, d));
      return gb.Bin(Op::kMul, g, yd);
    }
    case Op::kRelu: {  // g where x > 0 (relu'(0) = 0, as PyTorch)
      RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(dt, 0.0));
      RK_ASSIGN_OR_RETURN(NodeId pos, gb.Bin(Op::kGt, x, zero));
      return Masked(gb, pos, g);
    }
    case Op::kErf: {  // g 2/sqrt(pi) exp(-x^2)
      RK_ASSIGN_OR_RETURN(NodeId x2, gb.Bin(Op::kMul, x, x));
      RK_ASSIGN_OR_RETURN(NodeId nx2, gb.Un(Op::kNeg, x2));
      RK_ASSIGN_OR_RETURN(NodeId e, gb.Un(Op::kExp, nx2));
      RK_ASSIGN_OR_RETURN(NodeId d, gb.BinScalar(Op::kMul, e, kTwoOverSqrtPi));
      return gb.Bin(Op::kMul, g, d);
    }
    case Op::kSin: {
      RK_ASSIGN_OR_RETURN(NodeId c, gb.Un(Op::kCos, x));
      return gb.Bin(Op::kMul, g, c);
    }
    case Op::kCos: {
      RK_ASSIGN_OR_RETURN(NodeId s, gb.Un(Op::kSin, x));
      RK_ASSIGN_OR_RETURN(NodeId gs, gb.Bin(Op::kMul, g, s));
      return gb.Un(Op::kNeg, gs);
    }
    case Op::kClip: {
      // g where min <= x <= max (both bounds pass the gradient, as PyTorch's clamp).
      NodeId inside = NodeId();
      for (const char* bound : {"min", "max"}) {
        if (!a.node.attrs.Has(bound)) continue;
        RK_ASSIGN_OR_RETURN(double v, a.node.attrs.GetFloat(bound));
        RK_ASSIGN_OR_RETURN(NodeId c, gb.Scalar(dt, v));
        RK_ASSIGN_OR_RETURN(NodeId ok,
                            gb.Bin(std::string(bound) == "min" ? Op::kGe : Op::kLe, x, c));
        if (inside.valid()) {
          RK_ASSIGN_OR_RETURN(inside, gb.Bin(Op::kAnd, inside, ok));
        } else {
          inside = ok;
        }
      }
      if (!inside.valid()) return g;
      return Masked(gb, inside, g);
    }
    default:
      return absl::InternalError(
          absl::StrCat("no unary gradient rule for ", std::string(OpName(a.node.op))));
  }
}

// The gradients of a binary op before summing them back to the operands'
// shapes (both of the result's shape).
absl::StatusOr<Grads> BinaryGrads(GradBuilder& gb, const VjpArgs& a) {
  NodeId x = a.x[0], w = a.x[1];
  const NodeId g = a.g, y = a.y;
  const DType dt = gb.type(g).dtype;
  switch (a.node.op) {
    case Op::kAdd: return Grads{g, g};
    case Op::kSub: {
      RK_ASSIGN_OR_RETURN(NodeId ng, gb.Un(Op::kNeg, g));
      return Grads{g, ng};
    }
    case Op::kMul: {
      // vjp:mul:swap_operands multiplies each gradient by its own operand.
      if (a.faults.HasVjp(Op::kMul, FaultKind::kSwapOperands)) std::swap(x, w);
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Bin(Op::kMul, g, w));
      RK_ASSIGN_OR_RETURN(NodeId gw, gb.Bin(Op::kMul, g, x));
      return Grads{gx, gw};
    }
    case Op::kDiv: {  // g / w, -g y / w
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Bin(Op::kDiv, g, w));
      RK_ASSIGN_OR_RETURN(NodeId gxy, gb.Bin(Op::kMul, gx, y));
      RK_ASSIGN_OR_RETURN(NodeId gw, gb.Un(Op::kNeg, gxy));
      return Grads{gx, gw};
    }
    case Op::kPow: {
      // g w x^(w-1); g y log(x), taken as 0 where x == 0 (PyTorch's rule).
      Grads grads(2);
      if (a.wants[0]) {
        RK_ASSIGN_OR_RETURN(NodeId wm1, gb.BinScalar(Op::kSub, w, 1.0));
        RK_ASSIGN_OR_RETURN(NodeId p, gb.Bin(Op::kPow, x, wm1));
        RK_ASSIGN_OR_RETURN(NodeId wp, gb.Bin(Op::kMul, w, p));
        RK_ASSIGN_OR_RETURN(grads[0], gb.Bin(Op::kMul, g, wp));
      }
      if (a.wants[1]) {
        RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(dt, 0.0));
        RK_ASSIGN_OR_RETURN(NodeId is_zero, gb.Bin(Op::kEq, x, zero));
        RK_ASSIGN_OR_RETURN(NodeId one, gb.Scalar(dt, 1.0));
        RK_ASSIGN_OR_RETURN(NodeId safe, gb.Where(is_zero, one, x));
        RK_ASSIGN_OR_RETURN(NodeId lg, gb.Un(Op::kLog, safe));
        RK_ASSIGN_OR_RETURN(NodeId lz, gb.Where(is_zero, zero, lg));
        RK_ASSIGN_OR_RETURN(NodeId ylg, gb.Bin(Op::kMul, y, lz));
        RK_ASSIGN_OR_RETURN(grads[1], gb.Bin(Op::kMul, g, ylg));
      }
      return grads;
    }
    case Op::kMaximum:
    case Op::kMinimum: {
      // The larger (smaller) operand takes g; a tie splits it equally, as
      // PyTorch's maximum/minimum do.
      RK_ASSIGN_OR_RETURN(NodeId wins, gb.Bin(a.node.op == Op::kMaximum ? Op::kGt : Op::kLt, x, w));
      RK_ASSIGN_OR_RETURN(NodeId tie, gb.Bin(Op::kEq, x, w));
      RK_ASSIGN_OR_RETURN(NodeId half, gb.BinScalar(Op::kMul, g, 0.5));
      RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(dt, 0.0));
      RK_ASSIGN_OR_RETURN(NodeId tie_or_zero, gb.Where(tie, half, zero));
      RK_ASSIGN_OR_RETURN(NodeId tie_or_g, gb.Where(tie, half, g));
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Where(wins, g, tie_or_zero));
      RK_ASSIGN_OR_RETURN(NodeId gw, gb.Where(wins, zero, tie_or_g));
      return Grads{gx, gw};
    }
    case Op::kMod: {
      // x mod w = x - floor(x / w) w: g and -g floor(x / w) (PyTorch's
      // remainder), exact away from the steps where the quotient jumps.
      Grads grads{g, NodeId()};
      if (a.wants[1]) {
        RK_ASSIGN_OR_RETURN(NodeId q, gb.Bin(Op::kDiv, x, w));
        RK_ASSIGN_OR_RETURN(NodeId fq, gb.Un(Op::kFloor, q));
        RK_ASSIGN_OR_RETURN(NodeId gfq, gb.Bin(Op::kMul, g, fq));
        RK_ASSIGN_OR_RETURN(grads[1], gb.Un(Op::kNeg, gfq));
      }
      return grads;
    }
    default:
      return absl::InternalError(
          absl::StrCat("no binary gradient rule for ", std::string(OpName(a.node.op))));
  }
}

}  // namespace

absl::StatusOr<Grads> UnaryVjp(GradBuilder& gb, const VjpArgs& a) {
  RK_ASSIGN_OR_RETURN(NodeId gx, UnaryGrad(gb, a));
  return Grads{gx};
}

absl::StatusOr<Grads> BinaryVjp(GradBuilder& gb, const VjpArgs& a) {
  RK_ASSIGN_OR_RETURN(Grads full, BinaryGrads(gb, a));
  Grads grads(2);
  for (int i = 0; i < 2; ++i) {
    if (!a.wants[i] || !full[i].valid()) continue;
    RK_ASSIGN_OR_RETURN(grads[i], gb.ReduceToShape(full[i], gb.shape(a.x[i])));
  }
  return grads;
}

absl::StatusOr<Grads> WhereVjp(GradBuilder& gb, const VjpArgs& a) {
  // The condition is not differentiable; each branch gets g where chosen.
  Grads grads(3);
  RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(gb.type(a.g).dtype, 0.0));
  if (a.wants[1]) {
    RK_ASSIGN_OR_RETURN(NodeId gx, gb.Where(a.x[0], a.g, zero));
    RK_ASSIGN_OR_RETURN(grads[1], gb.ReduceToShape(gx, gb.shape(a.x[1])));
  }
  if (a.wants[2]) {
    RK_ASSIGN_OR_RETURN(NodeId gw, gb.Where(a.x[0], zero, a.g));
    RK_ASSIGN_OR_RETURN(grads[2], gb.ReduceToShape(gw, gb.shape(a.x[2])));
  }
  return grads;
}

absl::StatusOr<Grads> CastVjp(GradBuilder& gb, const VjpArgs& a) {
  // Float to float: the gradient cast back. (A cast to an integer or bool has
  // no float result, so no gradient ever reaches it.)
  RK_ASSIGN_OR_RETURN(NodeId gx, gb.Cast(a.g, gb.type(a.x[0]).dtype));
  return Grads{gx};
}

}  // namespace rk::compiler::autodiff
