#include "compiler/passes/decompose.h"

#include <optional>

#include "base/status_macros.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;

// Emits primitive ops in one compute dtype.
class Lowering {
 public:
  Lowering(GraphBuilder& builder, DType compute) : b_(builder), compute_(compute) {}

  absl::StatusOr<NodeId> Scalar(double value) {
    return b_.Full(TensorType(compute_, Shape()), value);
  }
  absl::StatusOr<NodeId> Un(Op op, NodeId x) { return b_.Unary(op, x); }
  absl::StatusOr<NodeId> Bin(Op op, NodeId x, NodeId y) { return b_.Binary(op, x, y); }
  absl::StatusOr<NodeId> BinScalar(Op op, NodeId x, double value) {
    RK_ASSIGN_OR_RETURN(NodeId c, Scalar(value));
    return b_.Binary(op, x, c);
  }
  absl::StatusOr<NodeId> Reduce(Op op, NodeId x, int axis) {
    return b_.Reduce(op, x, {axis}, /*keepdim=*/true);
  }
  // x - reduce_max(x): the shifted logits both softmax forms start from.
  absl::StatusOr<NodeId> Shifted(NodeId x, int axis) {
    RK_ASSIGN_OR_RETURN(NodeId m, Reduce(Op::kReduceMax, x, axis));
    return Bin(Op::kSub, x, m);
  }
  // rsqrt(mean(sq) + eps)
  absl::StatusOr<NodeId> InvRms(NodeId sq, int axis, double eps) {
    RK_ASSIGN_OR_RETURN(NodeId mean, Reduce(Op::kReduceMean, sq, axis));
    RK_ASSIGN_OR_RETURN(NodeId shifted, BinScalar(Op::kAdd, mean, eps));
    return Un(Op::kRsqrt, shifted);
  }

 private:
  GraphBuilder& b_;
  DType compute_;
};

absl::StatusOr<NodeId> LowerSoftmax(Lowering& l, NodeId x, int axis, bool log) {
  RK_ASSIGN_OR_RETURN(NodeId d, l.Shifted(x, axis));
  RK_ASSIGN_OR_RETURN(NodeId e, l.Un(Op::kExp, d));
  RK_ASSIGN_OR_RETURN(NodeId s, l.Reduce(Op::kReduceSum, e, axis));
  if (!log) return l.Bin(Op::kDiv, e, s);
  RK_ASSIGN_OR_RETURN(NodeId log_s, l.Un(Op::kLog, s));
  return l.Bin(Op::kSub, d, log_s);
}

absl::StatusOr<NodeId> LowerNorm(Lowering& l, Op op, const std::vector<NodeId>& in, int axis,
                                 double eps) {
  NodeId x = in[0];
  if (op == Op::kLayerNorm) {
    RK_ASSIGN_OR_RETURN(NodeId mean, l.Reduce(Op::kReduceMean, x, axis));
    RK_ASSIGN_OR_RETURN(x, l.Bin(Op::kSub, x, mean));
  }
  RK_ASSIGN_OR_RETURN(NodeId sq, l.Bin(Op::kMul, x, x));
  RK_ASSIGN_OR_RETURN(NodeId inv, l.InvRms(sq, axis, eps));
  RK_ASSIGN_OR_RETURN(NodeId normed, l.Bin(Op::kMul, x, inv));
  RK_ASSIGN_OR_RETURN(NodeId scaled, l.Bin(Op::kMul, normed, in[1]));
  if (op == Op::kRmsNorm) return scaled;
  return l.Bin(Op::kAdd, scaled, in[2]);
}

// 0.5 * (x + |x| * erf(|x| / sqrt(2))), which equals the usual
// 0.5 * x * (1 + erf(x / sqrt(2))) as erf is odd, and gives erf a
// non-negative argument (code generation drops erf's sign copy).
absl::StatusOr<NodeId> LowerGelu(Lowering& l, NodeId x) {
  RK_ASSIGN_OR_RETURN(NodeId abs, l.Un(Op::kAbs, x));
  RK_ASSIGN_OR_RETURN(NodeId scaled, l.BinScalar(Op::kMul, abs, kInvSqrt2));
  RK_ASSIGN_OR_RETURN(NodeId erf, l.Un(Op::kErf, scaled));
  RK_ASSIGN_OR_RETURN(NodeId odd, l.Bin(Op::kMul, abs, erf));
  RK_ASSIGN_OR_RETURN(NodeId sum, l.Bin(Op::kAdd, x, odd));
  return l.BinScalar(Op::kMul, sum, 0.5);
}

absl::StatusOr<NodeId> LowerComposite(Rewriter& r, NodeId id, const Node& node,
                                      DType compute) {
  Lowering lowering(r.builder(), compute);
  std::vector<NodeId> in = r.MapOperands(id);
  for (NodeId& operand : in) {
    if (r.new_graph().type(operand).dtype != compute) {
      RK_ASSIGN_OR_RETURN(operand, r.builder().Cast(operand, compute));
    }
  }
  if (node.op == Op::kGelu) return LowerGelu(lowering, in[0]);
  RK_ASSIGN_OR_RETURN(int64_t raw_axis, node.attrs.GetInt("axis"));
  RK_ASSIGN_OR_RETURN(int axis, NormalizeAxis(raw_axis, node.type.shape.rank()));
  if (node.op == Op::kSoftmax || node.op == Op::kLogSoftmax) {
    return LowerSoftmax(lowering, in[0], axis, node.op == Op::kLogSoftmax);
  }
  RK_ASSIGN_OR_RETURN(double eps, node.attrs.GetFloat("eps"));
  return LowerNorm(lowering, node.op, in, axis, eps);
}

}  // namespace

absl::StatusOr<bool> Decompose(Graph& graph, PassContext& context) {
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    const Node& node = r.old_graph().node(id);
    if (GetOpKind(node.op) != OpKind::kComposite) return std::nullopt;
    const DType dtype = node.type.dtype;
    // A composite is one op: its f16/bf16 result is rounded once, its parts
    // computed in f32, also under low_precision (which rounds after every
    // graph op, not after every step inside one). Decomposing in f16 would
    // round gelu's five steps and softmax's sums each to 11 bits.
    const DType compute = IsLowPrecision(dtype) ? DType::kF32 : dtype;
    RK_ASSIGN_OR_RETURN(NodeId result, LowerComposite(r, id, node, compute));
    if (compute == dtype) return result;
    return r.builder().Cast(result, dtype);
  });
}

}  // namespace rk::compiler
