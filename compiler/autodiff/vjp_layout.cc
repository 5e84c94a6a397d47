// Gradient rules of the layout ops: each moves the gradient back to where
// the forward op took its elements from.
//   reshape, squeeze, unsqueeze   reshape back
//   transpose                     transpose by the inverse permutation
//   broadcast_to                  sum over the broadcast axes
//   slice                         the gradient spread back (Unslice: zeros
//                                 between strided elements, padding around)
//   concat                        a slice per operand
//   pad                           the slice of the unpadded region
#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::autodiff {
namespace {

absl::StatusOr<NodeId> TransposeGrad(GradBuilder& gb, const VjpArgs& a) {
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> perm, a.node.attrs.GetInts("perm"));
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i] < 0 ? perm[i] + static_cast<int64_t>(perm.size()) : perm[i];
    inverse[p] = static_cast<int64_t>(i);
    perm[i] = p;
  }
  // vjp:transpose:wrong_perm applies the forward permutation again instead of
  // its inverse (the same thing for a permutation that is its own inverse, as
  // every 2-D transpose is). A reshape keeps the gradient's shape either way.
  if (a.faults.HasVjp(Op::kTranspose, FaultKind::kWrongPerm)) {
    RK_ASSIGN_OR_RETURN(NodeId moved, gb.Transpose(a.g, perm));
    return gb.Reshape(moved, gb.shape(a.x[0]));
  }
  return gb.Transpose(a.g, std::move(inverse));
}

absl::StatusOr<Grads> ConcatGrads(GradBuilder& gb, const VjpArgs& a) {
  const Shape& out = gb.shape(a.y);
  RK_ASSIGN_OR_RETURN(int64_t raw_axis, a.node.attrs.GetInt("axis"));
  RK_ASSIGN_OR_RETURN(int axis, NormalizeAxis(raw_axis, out.rank()));
  Grads grads(a.x.size());
  int64_t offset = 0;
  for (size_t k = 0; k < a.x.size(); ++k) {
    const int64_t size = gb.shape(a.x[k]).dim(axis);
    if (a.wants[k]) {
      std::vector<int64_t> start(out.rank(), 0), limit = out.dims(), stride(out.rank(), 1);
      start[axis] = offset;
      limit[axis] = offset + size;
      RK_ASSIGN_OR_RETURN(grads[k], gb.Slice(a.g, start, limit, stride));
    }
    offset += size;
  }
  return grads;
}

}  // namespace

absl::StatusOr<Grads> LayoutVjp(GradBuilder& gb, const VjpArgs& a) {
  const Shape& in = gb.shape(a.x[0]);
  switch (a.node.op) {
    case Op::kReshape:
    case Op::kSqueeze:
    case Op::kUnsqueeze: {
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Reshape(a.g, in));
      return Grads{gx};
    }
    case Op::kTranspose: {
      RK_ASSIGN_OR_RETURN(NodeId gx, TransposeGrad(gb, a));
      return Grads{gx};
    }
    case Op::kBroadcastTo: {
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.ReduceToShape(a.g, in));
      return Grads{gx};
    }
    case Op::kSlice: {
      RK_ASSIGN_OR_RETURN(std::vector<int64_t> start, a.node.attrs.GetInts("start"));
      RK_ASSIGN_OR_RETURN(std::vector<int64_t> stride, a.node.attrs.GetInts("stride"));
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Unslice(a.g, in, start, stride));
      return Grads{gx};
    }
    case Op::kConcat: return ConcatGrads(gb, a);
    case Op::kPad: {
      RK_ASSIGN_OR_RETURN(std::vector<int64_t> pads, a.node.attrs.GetInts("pads"));
      const int rank = in.rank();
      std::vector<int64_t> start(rank), limit(rank), stride(rank, 1);
      for (int i = 0; i < rank; ++i) {
        start[i] = pads[i];
        limit[i] = pads[i] + in.dim(i);
      }
      RK_ASSIGN_OR_RETURN(NodeId gx, gb.Slice(a.g, start, limit, stride));
      return Grads{gx};
    }
    default:
      return absl::InternalError(
          absl::StrCat("no layout gradient rule for ", std::string(OpName(a.node.op))));
  }
}

}  // namespace rk::compiler::autodiff
