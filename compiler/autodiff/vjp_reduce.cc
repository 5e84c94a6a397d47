// Gradient rules of the reductions and of cumsum.
//
// reduce_max / reduce_min: the gradient goes to the positions that hold the
// extreme value, split equally among ties (as PyTorch's amax/amin): with k
// elements equal to the maximum each gets g / k. This is also what central
// finite differences give for a two-way tie.
#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::autodiff {

absl::StatusOr<Grads> ReduceVjp(GradBuilder& gb, const VjpArgs& a) {
  const NodeId x = a.x[0];
  const Shape& full = gb.shape(x);
  const std::vector<int> axes = ReducedAxes(a.node.op, a.node.attrs, full.rank());
  RK_ASSIGN_OR_RETURN(bool keepdim, a.node.attrs.GetBool("keepdim"));
  const DType dt = gb.type(x).dtype;
  switch (a.node.op) {
    case Op::kReduceSum: {
      if (a.faults.HasVjp(Op::kReduceSum, FaultKind::kDropBroadcast)) {
        // The planted bug: g lands on the first element of each reduced row
        // only, as if it were never broadcast (zeros elsewhere).
        std::vector<int64_t> kept_dims = full.dims();
        for (int axis : axes) kept_dims[axis] = 1;
        RK_ASSIGN_OR_RETURN(NodeId kept, gb.Reshape(a.g, Shape(std::move(kept_dims))));
        std::vector<int64_t> before(full.rank(), 0), after(full.rank(), 0);
        for (int axis : axes) after[axis] = full.dim(axis) - 1;
        RK_ASSIGN_OR_RETURN(NodeId gx, gb.PadOrSlice(kept, before, after));
        return Grads{gx};
      }
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.BroadcastBack(a.g, full, axes, keepdim));
      return Grads{gx};
    }
    case Op::kReduceMean: {
      int64_t count = 1;
      for (int axis : axes) count *= full.dim(axis);
      RK_ASSIGN_OR_RETURN(NodeId scaled,
                          gb.BinScalar(Op::kDiv, a.g, static_cast<double>(count)));
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.BroadcastBack(scaled, full, axes, keepdim));
      return Grads{gx};
    }
    case Op::kReduceMax:
    case Op::kReduceMin: {
      RK_ASSIGN_OR_RETURN(NodeId y, gb.BroadcastBack(a.y, full, axes, keepdim));
      RK_ASSIGN_OR_RETURN(NodeId hit, gb.Bin(Op::kEq, x, y));
      RK_ASSIGN_OR_RETURN(NodeId mask, gb.Cast(hit, dt));
      std::vector<int64_t> axes64(axes.begin(), axes.end());
      RK_ASSIGN_OR_RETURN(NodeId ties, gb.Reduce(Op::kReduceSum, mask, axes64, keepdim));
      RK_ASSIGN_OR_RETURN(NodeId share, gb.Bin(Op::kDiv, a.g, ties));
      RK_ASSIGN_OR_RETURN(NodeId spread, gb.BroadcastBack(share, full, axes, keepdim));
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Bin(Op::kMul, spread, mask));
      return Grads{gx};
    }
    default:
      return absl::InternalError(
          absl::StrCat("no reduction gradient rule for ", std::string(OpName(a.node.op))));
  }
}

absl::StatusOr<Grads> CumsumVjp(GradBuilder& gb, const VjpArgs& a) {
  // y_i = sum of x_j over j <= i (j < i when exclusive): x_j's gradient is
  // the sum of g_i over i >= j (i > j), the same scan run the other way.
  Attributes attrs = a.node.attrs;
  RK_ASSIGN_OR_RETURN(bool reverse, attrs.GetBool("reverse"));
  attrs.Set("reverse", !reverse);
  RK_ASSIGN_OR_RETURN(NodeId gx, gb.builder().Add(Op::kCumsum, {a.g}, attrs));
  return Grads{gx};
}

}  // namespace rk::compiler::autodiff
