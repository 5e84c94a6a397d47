// Gradient rules of the composites, as their own formulas rather than by
// differentiating the decompose pass's lowering: the joint graph's forward
// half stays the graph the user wrote (the composite node itself, compiled
// the way the forward graph is), and the backward reuses the composite's
// result as training compilers do (softmax's y, log_softmax's exp(y)).
//   softmax      dx = y (g - sum(g y))
//   log_softmax  dx = g - exp(y) sum(g)
//   gelu         dx = g (Phi(x) + x phi(x)), Phi the normal CDF, phi its density
//   layer_norm   xhat = (x - mean) rstd, rstd = 1 / sqrt(var + eps):
//                dx = rstd (gh - mean(gh) - xhat mean(gh xhat)), gh = g gamma;
//                dgamma = sum(g xhat), dbeta = sum(g) over the leading axes
//   rms_norm     xhat = x rstd, rstd = 1 / sqrt(mean(x^2) + eps):
//                dx = rstd (gh - xhat mean(gh xhat)); dgamma = sum(g xhat)
// Sums and means run over the op's axis (keepdim).
#include <cmath>

#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::autodiff {
namespace {

constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kInvSqrt2Pi = 0.3989422804014327;

absl::StatusOr<Grads> SoftmaxGrad(GradBuilder& gb, const VjpArgs& a, int axis) {
  const NodeId g = a.g, y = a.y;
  if (a.node.op == Op::kSoftmax) {
    if (a.faults.HasVjp(Op::kSoftmax, FaultKind::kDropSum)) {
      // The planted bug: the fused gradient forgets the subtracted term.
      RK_ASSIGN_OR_RETURN(NodeId dx, gb.Bin(Op::kMul, y, g));
      return Grads{dx};
    }
    RK_ASSIGN_OR_RETURN(NodeId gy, gb.Bin(Op::kMul, g, y));
    RK_ASSIGN_OR_RETURN(NodeId s, gb.Reduce(Op::kReduceSum, gy, {axis}, true));
    RK_ASSIGN_OR_RETURN(NodeId d, gb.Bin(Op::kSub, g, s));
    RK_ASSIGN_OR_RETURN(NodeId dx, gb.Bin(Op::kMul, y, d));
    return Grads{dx};
  }
  RK_ASSIGN_OR_RETURN(NodeId p, gb.Un(Op::kExp, y));
  RK_ASSIGN_OR_RETURN(NodeId s, gb.Reduce(Op::kReduceSum, g, {axis}, true));
  RK_ASSIGN_OR_RETURN(NodeId ps, gb.Bin(Op::kMul, p, s));
  RK_ASSIGN_OR_RETURN(NodeId dx, gb.Bin(Op::kSub, g, ps));
  return Grads{dx};
}

absl::StatusOr<Grads> GeluGrad(GradBuilder& gb, const VjpArgs& a) {
  const NodeId x = a.x[0];
  RK_ASSIGN_OR_RETURN(NodeId scaled, gb.BinScalar(Op::kMul, x, kInvSqrt2));
  RK_ASSIGN_OR_RETURN(NodeId e, gb.Un(Op::kErf, scaled));
  RK_ASSIGN_OR_RETURN(NodeId e1, gb.BinScalar(Op::kAdd, e, 1.0));
  RK_ASSIGN_OR_RETURN(NodeId cdf, gb.BinScalar(Op::kMul, e1, 0.5));
  RK_ASSIGN_OR_RETURN(NodeId x2, gb.Bin(Op::kMul, x, x));
  RK_ASSIGN_OR_RETURN(NodeId h, gb.BinScalar(Op::kMul, x2, -0.5));
  RK_ASSIGN_OR_RETURN(NodeId ex, gb.Un(Op::kExp, h));
  RK_ASSIGN_OR_RETURN(NodeId pdf, gb.BinScalar(Op::kMul, ex, kInvSqrt2Pi));
  RK_ASSIGN_OR_RETURN(NodeId xpdf, gb.Bin(Op::kMul, x, pdf));
  RK_ASSIGN_OR_RETURN(NodeId d, gb.Bin(Op::kAdd, cdf, xpdf));
  RK_ASSIGN_OR_RETURN(NodeId dx, gb.Bin(Op::kMul, a.g, d));
  return Grads{dx};
}

absl::StatusOr<Grads> NormGrad(GradBuilder& gb, const VjpArgs& a, int axis) {
  const bool layer = a.node.op == Op::kLayerNorm;
  RK_ASSIGN_OR_RETURN(double eps, a.node.attrs.GetFloat("eps"));
  const std::vector<int64_t> axes = {axis};
  NodeId xc = a.x[0];
  if (layer) {
    RK_ASSIGN_OR_RETURN(NodeId mean, gb.Reduce(Op::kReduceMean, xc, axes, true));
    RK_ASSIGN_OR_RETURN(xc, gb.Bin(Op::kSub, xc, mean));
  }
  RK_ASSIGN_OR_RETURN(NodeId sq, gb.Bin(Op::kMul, xc, xc));
  RK_ASSIGN_OR_RETURN(NodeId ms, gb.Reduce(Op::kReduceMean, sq, axes, true));
  RK_ASSIGN_OR_RETURN(NodeId shifted, gb.BinScalar(Op::kAdd, ms, eps));
  RK_ASSIGN_OR_RETURN(NodeId rstd, gb.Un(Op::kRsqrt, shifted));
  RK_ASSIGN_OR_RETURN(NodeId xhat, gb.Bin(Op::kMul, xc, rstd));
  Grads grads(a.x.size());
  if (a.wants[0]) {
    RK_ASSIGN_OR_RETURN(NodeId gh, gb.Bin(Op::kMul, a.g, a.x[1]));
    RK_ASSIGN_OR_RETURN(NodeId ghx, gb.Bin(Op::kMul, gh, xhat));
    RK_ASSIGN_OR_RETURN(NodeId m2, gb.Reduce(Op::kReduceMean, ghx, axes, true));
    RK_ASSIGN_OR_RETURN(NodeId xm2, gb.Bin(Op::kMul, xhat, m2));
    RK_ASSIGN_OR_RETURN(NodeId d, gb.Bin(Op::kSub, gh, xm2));
    if (layer) {
      RK_ASSIGN_OR_RETURN(NodeId m1, gb.Reduce(Op::kReduceMean, gh, axes, true));
      RK_ASSIGN_OR_RETURN(d, gb.Bin(Op::kSub, d, m1));
    }
    RK_ASSIGN_OR_RETURN(grads[0], gb.Bin(Op::kMul, rstd, d));
  }
  const Shape param = gb.shape(a.x[1]);
  if (a.wants[1]) {
    RK_ASSIGN_OR_RETURN(NodeId gx, gb.Bin(Op::kMul, a.g, xhat));
    RK_ASSIGN_OR_RETURN(grads[1], gb.ReduceToShape(gx, param));
  }
  if (layer && a.wants[2]) {
    RK_ASSIGN_OR_RETURN(grads[2], gb.ReduceToShape(a.g, param));
  }
  return grads;
}

}  // namespace

absl::StatusOr<Grads> CompositeVjp(GradBuilder& gb, const VjpArgs& a) {
  if (a.node.op == Op::kGelu) return GeluGrad(gb, a);
  RK_ASSIGN_OR_RETURN(int64_t raw_axis, a.node.attrs.GetInt("axis"));
  RK_ASSIGN_OR_RETURN(int axis, NormalizeAxis(raw_axis, gb.shape(a.x[0]).rank()));
  switch (a.node.op) {
    case Op::kSoftmax:
    case Op::kLogSoftmax: return SoftmaxGrad(gb, a, axis);
    case Op::kLayerNorm:
    case Op::kRmsNorm: return NormGrad(gb, a, axis);
    default:
      return absl::InternalError(
          absl::StrCat("no composite gradient rule for ", std::string(OpName(a.node.op))));
  }
}

}  // namespace rk::compiler::autodiff
