#include "compiler/passes/rewriter.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace rk::compiler {
namespace {

// live[i]: node i of `graph` reaches an output (inputs count as live).
std::vector<bool> ReachesOutputs(const Graph& graph, const std::vector<NodeId>& outputs) {
  std::vector<bool> live(graph.num_nodes(), false);
  for (NodeId out : outputs) live[out.value] = true;
  for (int i = graph.num_nodes() - 1; i >= 0; --i) {
    if (graph.nodes()[i].op == Op::kInput) live[i] = true;
    if (!live[i]) continue;
    for (NodeId operand : graph.nodes()[i].operands) live[operand.value] = true;
  }
  return live;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

Rewriter::Rewriter(const Graph& old_graph)
    : old_(old_graph), builder_(old_graph.name()), map_(old_graph.num_nodes()) {
  for (NodeId id : old_.inputs()) {
    const Node& node = old_.node(id);
    map_[id.value] = builder_.Input(node.name, node.type);
  }
}

std::vector<NodeId> Rewriter::MapOperands(NodeId old_id) const {
  std::vector<NodeId> operands;
  for (NodeId operand : old_.node(old_id).operands) operands.push_back(Map(operand));
  return operands;
}

absl::StatusOr<NodeId> Rewriter::Copy(NodeId old_id) {
  const Node& node = old_.node(old_id);
  return builder_.Add(node.op, MapOperands(old_id), node.attrs, node.name);
}

absl::StatusOr<NodeId> Rewriter::Keep(NodeId old_id) {
  RK_ASSIGN_OR_RETURN(NodeId copy, Copy(old_id));
  last_keep_ = std::make_pair(old_id.value, copy);
  return copy;
}

absl::StatusOr<NodeId> Rewriter::Add(Op op, std::vector<NodeId> operands, Attributes attrs) {
  return builder_.Add(op, operands, std::move(attrs));
}

absl::StatusOr<Graph> Rewriter::Finish() {
  std::vector<NodeId> outputs;
  for (NodeId out : old_.outputs()) outputs.push_back(Map(out));
  const std::vector<bool> old_live = ReachesOutputs(old_, old_.outputs());
  const Graph& built = builder_.graph();
  std::vector<NodeId> roots = outputs;
  for (int i = 0; i < old_.num_nodes(); ++i) {
    if (!old_live[i] && map_[i].valid()) roots.push_back(map_[i]);
  }
  const std::vector<bool> keep = ReachesOutputs(built, roots);

  GraphBuilder compact(old_.name());
  std::vector<NodeId> remap(built.num_nodes());
  for (int j = 0; j < built.num_nodes(); ++j) {
    if (!keep[j]) continue;
    const Node& node = built.nodes()[j];
    std::string name = node.name;
    if (auto it = inherited_names_.find(j); name.empty() && it != inherited_names_.end()) {
      name = it->second;
    }
    if (node.op == Op::kInput) {
      remap[j] = compact.Input(name, node.type);
      continue;
    }
    std::vector<NodeId> operands;
    for (NodeId operand : node.operands) operands.push_back(remap[operand.value]);
    RK_ASSIGN_OR_RETURN(remap[j], compact.Add(node.op, operands, node.attrs, name));
  }
  for (NodeId out : outputs) RK_RETURN_IF_ERROR(compact.Output(remap[out.value]));
  return compact.Build();
}

absl::StatusOr<bool> RewriteNodes(Graph& graph, const NodeRewrite& rewrite) {
  Rewriter rewriter(graph);
  bool changed = false;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const NodeId id(i);
    const Node& node = graph.node(id);
    if (node.op == Op::kInput) continue;
    const int size_before = rewriter.new_graph().num_nodes();
    rewriter.last_keep_.reset();
    RK_ASSIGN_OR_RETURN(std::optional<NodeId> replacement, rewrite(rewriter, id));
    const bool kept = replacement.has_value() && rewriter.last_keep_.has_value() &&
                      rewriter.last_keep_->first == i && rewriter.last_keep_->second == *replacement;
    if (kept) {
      rewriter.SetMap(id, *replacement);
      continue;
    }
    if (!replacement.has_value()) {
      RK_ASSIGN_OR_RETURN(NodeId copy, rewriter.Copy(id));
      rewriter.SetMap(id, copy);
      continue;
    }
    changed = true;
    rewriter.SetMap(id, *replacement);
    const std::string name = node.name;
    if (replacement->value >= size_before && !name.empty()) {
      rewriter.inherited_names_[replacement->value] = name;
    }
  }
  if (!changed) return false;
  RK_ASSIGN_OR_RETURN(graph, rewriter.Finish());
  return true;
}

std::string Describe(const Graph& graph, NodeId id) {
  return absl::StrCat("%", graph.DisplayName(id), " (", std::string(OpName(graph.node(id).op)), ")");
}

bool IsConstantLike(const Graph& graph, NodeId id) {
  const Op op = graph.node(id).op;
  return op == Op::kConstant || op == Op::kFull || op == Op::kIota;
}

std::optional<double> SplatValue(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  if (node.op == Op::kFull) {
    absl::StatusOr<double> value = node.attrs.GetFloat("value");
    if (!value.ok()) return std::nullopt;
    // The value as stored in the node's dtype (e.g. 0.5 in an integer full is 0).
    return HostTensor::Full(TensorType(node.type.dtype, Shape()), *value).GetDouble(0);
  }
  if (node.op != Op::kConstant) return std::nullopt;
  absl::StatusOr<HostTensor> tensor = node.attrs.GetTensor("value");
  if (!tensor.ok() || tensor->num_elements() == 0) return std::nullopt;
  const double first = tensor->GetDouble(0);
  for (int64_t i = 1; i < tensor->num_elements(); ++i) {
    if (!SameBits(tensor->GetDouble(i), first)) return std::nullopt;
  }
  return first;
}

}  // namespace rk::compiler
