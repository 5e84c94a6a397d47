#include "compiler/onnx/fuse_gelu.h"

#include <cmath>
#include <optional>
#include <vector>

#include "base/status_macros.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler::onnx_io {
namespace {

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), users_(g.ComputeUsers()) {
    // A returned value is used outside the formula too.
    for (NodeId o : g.outputs()) users_[o.value].push_back(o);
  }

  // The value of a scalar (one-element) constant or full.
  std::optional<double> ScalarValue(NodeId id) const {
    const Node& n = g_.node(id);
    if (n.type.num_elements() != 1) return std::nullopt;
    if (n.op == Op::kFull) {
      absl::StatusOr<double> v = n.attrs.GetFloat("value");
      return v.ok() ? std::optional<double>(*v) : std::nullopt;
    }
    if (n.op == Op::kConstant) {
      absl::StatusOr<HostTensor> t = n.attrs.GetTensor("value");
      return t.ok() ? std::optional<double>(t->GetDouble(0)) : std::nullopt;
    }
    return std::nullopt;
  }
  bool IsScalar(NodeId id, double want) const {
    std::optional<double> v = ScalarValue(id);
    return v.has_value() && std::abs(*v - want) <= 1e-6 * std::abs(want);
  }
  bool SingleUse(NodeId id) const { return users_[id.value].size() == 1; }
  // For a commutative binary node: the operand that is not `known`.
  std::optional<NodeId> Other(const Node& n, NodeId known) const {
    if (n.operands.size() != 2) return std::nullopt;
    if (n.operands[0] == known) return n.operands[1];
    if (n.operands[1] == known) return n.operands[0];
    return std::nullopt;
  }
  // For a binary `op` node with a scalar operand equal to `want`: the other.
  std::optional<NodeId> WithScalar(NodeId id, Op op, double want) const {
    const Node& n = g_.node(id);
    if (n.op != op || n.operands.size() != 2) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      if (IsScalar(n.operands[k], want)) return n.operands[1 - k];
    }
    return std::nullopt;
  }

  // If `root` ends the formula, its input x.
  std::optional<NodeId> Match(NodeId root) const {
    const Node& r = g_.node(root);
    if (r.op != Op::kMul || !IsFloat(r.type.dtype)) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      const NodeId a = r.operands[k], b = r.operands[1 - k];
      // (x * s) * 0.5 or (x * 0.5) * s or x * (s * 0.5), s = 1 + erf(...).
      if (IsScalar(b, 0.5) && SingleUse(a) && g_.node(a).op == Op::kMul) {
        for (int j = 0; j < 2; ++j) {
          const NodeId x = g_.node(a).operands[j], s = g_.node(a).operands[1 - j];
          if (IsSum(s, x)) return x;
        }
      }
      // (x * 0.5) * s, or x * (s * 0.5): `a` halves one of the two.
      if (SingleUse(a)) {
        std::optional<NodeId> halved = WithScalar(a, Op::kMul, 0.5);
        if (halved.has_value() && IsSum(b, *halved)) return halved;
        if (halved.has_value() && IsSum(*halved, b)) return b;
      }
    }
    return std::nullopt;
  }

  // `s` is 1 + erf(x / sqrt(2)) with single-use intermediates.
  bool IsSum(NodeId s, NodeId x) const {
    if (!SingleUse(s)) return false;
    std::optional<NodeId> e = WithScalar(s, Op::kAdd, 1.0);
    if (!e.has_value() || !SingleUse(*e) || g_.node(*e).op != Op::kErf) return false;
    const NodeId scaled = g_.node(*e).operands[0];
    if (!SingleUse(scaled)) return false;
    const Node& sn = g_.node(scaled);
    if (sn.op == Op::kDiv && sn.operands[0] == x && IsScalar(sn.operands[1], std::sqrt(2.0))) {
      return true;
    }
    std::optional<NodeId> m = WithScalar(scaled, Op::kMul, 1.0 / std::sqrt(2.0));
    return m.has_value() && *m == x;
  }

 private:
  const Graph& g_;
  std::vector<std::vector<NodeId>> users_;
};

}  // namespace

absl::StatusOr<int> FuseGelu(Graph& graph) {
  Matcher matcher(graph);
  std::vector<std::optional<NodeId>> gelu_of(graph.num_nodes());
  int fused = 0;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    gelu_of[i] = matcher.Match(NodeId(i));
    if (gelu_of[i].has_value() && graph.type(*gelu_of[i]) != graph.type(NodeId(i))) {
      gelu_of[i].reset();  // a broadcasting formula is not an elementwise gelu
    }
    fused += gelu_of[i].has_value();
  }
  if (fused == 0) return 0;
  // Rebuild: each root becomes gelu(x); what only the formulas used dies.
  std::vector<bool> live(graph.num_nodes(), false);
  for (NodeId o : graph.outputs()) live[o.value] = true;
  for (int i = graph.num_nodes() - 1; i >= 0; --i) {
    if (!live[i]) continue;
    if (gelu_of[i].has_value()) {
      live[gelu_of[i]->value] = true;
      continue;
    }
    for (NodeId operand : graph.node(NodeId(i)).operands) live[operand.value] = true;
  }
  Graph out(graph.name());
  std::vector<NodeId> map(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(NodeId(i));
    if (n.op != Op::kInput && !live[i]) continue;
    Node copy;
    if (gelu_of[i].has_value()) {
      copy.op = Op::kGelu;
      copy.operands = {map[gelu_of[i]->value]};
      copy.type = n.type;
      copy.name = n.name;
    } else {
      copy = n;
      for (NodeId& operand : copy.operands) operand = map[operand.value];
    }
    map[i] = out.AppendNode(std::move(copy));
  }
  std::vector<NodeId> outputs;
  for (NodeId o : graph.outputs()) outputs.push_back(map[o.value]);
  out.set_outputs(std::move(outputs));
  RK_RETURN_IF_ERROR(Verify(out));
  graph = std::move(out);
  return fused;
}

}  // namespace rk::compiler::onnx_io
