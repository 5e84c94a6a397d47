#include "compiler/ir/verifier.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/names.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler {
namespace {

// "node %7 (add): " for messages about node `id`.
std::string NodePrefix(const Graph& graph, int id) {
  const Node& node = graph.node(NodeId(id));
  std::string shown = IsPlainName(node.name) || node.name.empty()
                          ? graph.DisplayName(NodeId(id))
                          : absl::StrCat("\"", absl::CHexEscape(node.name), "\"");
  return absl::StrCat("node %", shown, " (", std::string(OpName(node.op)), "): ");
}

absl::Status NodeError(const Graph& graph, int id, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(NodePrefix(graph, id), rule));
}

absl::Status CheckType(const Graph& graph, int id) {
  const TensorType& type = graph.node(NodeId(id)).type;
  for (int64_t d : type.shape.dims()) {
    if (d < 0) {
      return NodeError(graph, id, absl::StrCat("type ", type.ToString(), " has a negative dimension"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckInput(const Graph& graph, int id, bool seen_non_input) {
  const Node& node = graph.node(NodeId(id));
  if (seen_non_input) {
    return NodeError(graph, id, "inputs must come before all other nodes");
  }
  if (!node.operands.empty()) return NodeError(graph, id, "an input takes no operands");
  for (const auto& [name, value] : node.attrs.values()) {
    if (name != kGradAttr || !std::holds_alternative<bool>(value) || !std::get<bool>(value)) {
      return NodeError(graph, id, "an input carries no attributes but grad=true");
    }
    if (!IsFloat(node.type.dtype)) {
      return NodeError(graph, id, absl::StrCat("marked grad but has type ", node.type.ToString(),
                                               "; only float inputs have gradients"));
    }
  }
  return CheckType(graph, id);
}

absl::Status CheckOperation(const Graph& graph, int id) {
  const Node& node = graph.node(NodeId(id));
  std::vector<TensorType> operand_types;
  for (size_t k = 0; k < node.operands.size(); ++k) {
    NodeId operand = node.operands[k];
    if (operand.value < 0 || operand.value >= graph.num_nodes()) {
      return NodeError(graph, id, absl::StrCat("operand #", k, " refers to node id ", operand.value,
                                               ", which does not exist"));
    }
    if (operand.value >= id) {
      return NodeError(graph, id, absl::StrCat("operand %", graph.DisplayName(operand),
                                               " is defined after its use"));
    }
    operand_types.push_back(graph.type(operand));
  }
  if (absl::Status s = CheckType(graph, id); !s.ok()) return s;
  absl::StatusOr<TensorType> inferred = InferType(node.op, operand_types, node.attrs);
  if (!inferred.ok()) return NodeError(graph, id, inferred.status().message());
  if (*inferred != node.type) {
    return NodeError(graph, id, absl::StrCat("declared type ", node.type.ToString(),
                                             " but inference gives ", inferred->ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Verify(const Graph& graph) {
  std::set<std::string_view> names;
  bool seen_non_input = false;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(NodeId(id));
    if (!node.name.empty()) {
      if (absl::Status s = CheckNodeName(node.name); !s.ok()) {
        return NodeError(graph, id, s.message());
      }
      if (!names.insert(node.name).second) {
        return NodeError(graph, id, absl::StrCat("duplicate name '%", node.name, "'"));
      }
    }
    absl::Status s = node.op == Op::kInput ? CheckInput(graph, id, seen_non_input)
                                           : CheckOperation(graph, id);
    if (!s.ok()) return s;
    seen_non_input |= node.op != Op::kInput;
  }
  if (graph.outputs().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("graph has no outputs"));
  }
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    NodeId out = graph.outputs()[k];
    if (out.value < 0 || out.value >= graph.num_nodes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output #", k, " refers to node id ", out.value, ", which does not exist"));
    }
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler
