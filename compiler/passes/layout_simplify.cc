#include "compiler/passes/layout_simplify.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "layout_simplify";

bool IsReshapeLike(Op op) {
  return op == Op::kReshape || op == Op::kSqueeze || op == Op::kUnsqueeze;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// What a layout node becomes: an existing node, or one new node.
struct Simplified {
  const char* rule = "";
  NodeId existing;
  Op op = Op::kReshape;
  NodeId operand;
  Attributes attrs;
};

Simplified Existing(const char* rule, NodeId id) {
  Simplified s;
  s.rule = rule;
  s.existing = id;
  return s;
}

Simplified NewNode(const char* rule, Op op, NodeId operand, Attributes attrs) {
  Simplified s;
  s.rule = rule;
  s.op = op;
  s.operand = operand;
  s.attrs = std::move(attrs);
  return s;
}

std::optional<Simplified> SimplifyReshapeLike(const Graph& g, const Node& node, NodeId x) {
  if (g.type(x) == node.type) return Existing("reshape to the same shape -> x", x);
  const Node& producer = g.node(x);
  if (!IsReshapeLike(producer.op)) return std::nullopt;
  const NodeId source = producer.operands[0];
  if (g.type(source) == node.type) return Existing("reshape round trip -> x", source);
  Attributes attrs;
  attrs.Set("shape", node.type.shape.dims());
  return NewNode("reshape of reshape -> reshape", Op::kReshape, source, attrs);
}

std::optional<Simplified> SimplifyTranspose(const Graph& g, const Node& node, NodeId x) {
  const Node& producer = g.node(x);
  if (producer.op != Op::kTranspose) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> inner = producer.attrs.GetInts("perm");
  absl::StatusOr<std::vector<int64_t>> outer = node.attrs.GetInts("perm");
  if (!inner.ok() || !outer.ok() || inner->size() != outer->size()) return std::nullopt;
  // out[i] = mid[outer[i]] = in[inner[outer[i]]].
  std::vector<int64_t> composed(outer->size());
  for (size_t i = 0; i < outer->size(); ++i) composed[i] = (*inner)[(*outer)[i]];
  const NodeId source = producer.operands[0];
  if (IsIdentity(composed)) return Existing("transpose round trip -> x", source);
  Attributes attrs;
  attrs.Set("perm", composed);
  return NewNode("transpose of transpose -> transpose", Op::kTranspose, source, attrs);
}

std::optional<Simplified> SimplifyNode(const Graph& g, const Node& node, NodeId x) {
  if (IsReshapeLike(node.op)) return SimplifyReshapeLike(g, node, x);
  if (node.op == Op::kTranspose) return SimplifyTranspose(g, node, x);
  if (node.op == Op::kBroadcastTo && g.type(x) == node.type) {
    return Existing("broadcast_to the same shape -> x", x);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<bool> LayoutSimplify(Graph& graph, PassContext& context) {
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    const Node& node = r.old_graph().node(id);
    if (GetOpKind(node.op) != OpKind::kLayout || node.operands.size() != 1) return std::nullopt;
    std::optional<Simplified> s = SimplifyNode(r.new_graph(), node, r.Map(node.operands[0]));
    if (!s.has_value()) return std::nullopt;
    RK_ASSIGN_OR_RETURN(bool apply, context.ShouldApply(kPass, absl::StrCat(Describe(
                                                                   r.old_graph(), id),
                                                               ": ", s->rule)));
    if (!apply) return std::nullopt;
    if (s->existing.valid()) return s->existing;
    RK_ASSIGN_OR_RETURN(NodeId result, r.Add(s->op, {s->operand}, s->attrs));
    return result;
  });
}

}  // namespace rk::compiler
