#include "compiler/ir/graph_stats.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/canonical_hash.h"

namespace rk::compiler {

GraphStats ComputeGraphStats(const Graph& graph) {
  GraphStats stats;
  stats.graph_name = graph.name();
  stats.num_nodes = graph.num_nodes();
  stats.num_inputs = graph.num_inputs();
  for (const Node& n : graph.nodes()) {
    ++stats.nodes_per_op[std::string(OpName(n.op))];
    stats.total_elements += n.type.num_elements();
  }
  for (NodeId id : graph.inputs()) {
    stats.inputs.emplace_back(graph.DisplayName(id), graph.type(id).ToString());
  }
  for (NodeId id : graph.outputs()) {
    stats.outputs.emplace_back(graph.DisplayName(id), graph.type(id).ToString());
  }
  stats.canonical_hash = CanonicalHash(graph);
  return stats;
}

std::string GraphStats::ToText() const {
  std::string out = absl::StrCat("graph @", graph_name, "\n", "nodes: ", num_nodes, " (",
                                 num_inputs, " inputs, ", num_nodes - num_inputs, " ops)\n",
                                 "ops:\n");
  for (const auto& [op, count] : nodes_per_op) absl::StrAppend(&out, "  ", op, " ", count, "\n");
  absl::StrAppend(&out, "inputs:\n");
  for (const auto& [name, type] : inputs) absl::StrAppend(&out, "  %", name, ": ", type, "\n");
  absl::StrAppend(&out, "outputs:\n");
  for (const auto& [name, type] : outputs) absl::StrAppend(&out, "  %", name, ": ", type, "\n");
  absl::StrAppend(&out, "total elements: ", total_elements, "\n",
                  "canonical hash: ", canonical_hash, "\n");
  return out;
}

}  // namespace rk::compiler
