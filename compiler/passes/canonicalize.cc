#include "compiler/passes/canonicalize.h"

#include <optional>

#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "canonicalize";

// The op that computes the same thing with its two operands swapped.
std::optional<Op> SwappedOp(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kMul:
    case Op::kMaximum:
    case Op::kMinimum:
    case Op::kEq:
    case Op::kNe:
    case Op::kAnd:
    case Op::kOr:
      return op;
    case Op::kLt: return Op::kGt;
    case Op::kLe: return Op::kGe;
    case Op::kGt: return Op::kLt;
    case Op::kGe: return Op::kLe;
    default: return std::nullopt;
  }
}

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// The operand this node passes through unchanged, if it is a no-op.
std::optional<NodeId> NoOpOperand(const Graph& g, const Node& node, NodeId operand) {
  const TensorType& in = g.type(operand);
  switch (node.op) {
    case Op::kCast:
    case Op::kReshape:
      if (in == node.type) return operand;
      return std::nullopt;
    case Op::kTranspose: {
      absl::StatusOr<std::vector<int64_t>> perm = node.attrs.GetInts("perm");
      if (perm.ok() && IsIdentityPermutation(*perm)) return operand;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

absl::StatusOr<std::optional<NodeId>> CanonicalizeNode(Rewriter& r, NodeId id,
                                                       PassContext& context) {
  const Node& node = r.old_graph().node(id);
  const std::vector<NodeId> in = r.MapOperands(id);
  const Graph& g = r.new_graph();
  if (in.size() == 1) {
    std::optional<NodeId> same = NoOpOperand(g, node, in[0]);
    if (!same.has_value()) return std::nullopt;
    RK_ASSIGN_OR_RETURN(bool apply, context.ShouldApply(kPass, Describe(r.old_graph(), id)));
    if (!apply) return std::nullopt;
    return same;
  }
  std::optional<Op> swapped = SwappedOp(node.op);
  if (in.size() != 2 || !swapped.has_value() || !IsConstantLike(g, in[0]) ||
      IsConstantLike(g, in[1])) {
    return std::nullopt;
  }
  RK_ASSIGN_OR_RETURN(bool apply, context.ShouldApply(kPass, Describe(r.old_graph(), id)));
  if (!apply) return std::nullopt;
  RK_ASSIGN_OR_RETURN(NodeId result, r.Add(*swapped, {in[1], in[0]}, node.attrs));
  return result;
}

}  // namespace

absl::StatusOr<bool> Canonicalize(Graph& graph, PassContext& context) {
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) {
    return CanonicalizeNode(r, id, context);
  });
}

}  // namespace rk::compiler
