#include "compiler/ir/graph.h"

namespace rk::compiler {

bool IsMarkedForGrad(const Node& node) {
  if (node.op != Op::kInput) return false;
  auto it = node.attrs.values().find(kGradAttr);
  return it != node.attrs.values().end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

std::vector<NodeId> Graph::inputs() const {
  std::vector<NodeId> ids;
  for (int i = 0; i < num_nodes(); ++i) {
    if (nodes_[i].op == Op::kInput) ids.push_back(NodeId(i));
  }
  return ids;
}

int Graph::num_inputs() const {
  int n = 0;
  for (const Node& node : nodes_) n += node.op == Op::kInput;
  return n;
}

NodeId Graph::AppendNode(Node node) {
  nodes_.push_back(std::move(node));
  return NodeId(static_cast<int32_t>(nodes_.size() - 1));
}

std::string Graph::DisplayName(NodeId id) const {
  const Node& n = nodes_[id.value];
  return n.name.empty() ? std::to_string(id.value) : n.name;
}

std::vector<std::vector<NodeId>> Graph::ComputeUsers() const {
  std::vector<std::vector<NodeId>> users(nodes_.size());
  for (int i = 0; i < num_nodes(); ++i) {
    for (NodeId operand : nodes_[i].operands) users[operand.value].push_back(NodeId(i));
  }
  return users;
}

bool Graph::operator==(const Graph& other) const {
  return name_ == other.name_ && nodes_ == other.nodes_ && outputs_ == other.outputs_;
}

}  // namespace rk::compiler
