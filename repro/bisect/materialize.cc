#include "repro/bisect/materialize.h"

namespace rk::repro {

std::vector<compiler::NodeId> MaterializedOutputs(const compiler::Graph& graph) {
  std::vector<compiler::NodeId> outputs = graph.outputs();
  std::vector<bool> listed(graph.num_nodes(), false);
  for (compiler::NodeId id : outputs) listed[id.value] = true;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const compiler::NodeId id(i);
    if (graph.node(id).op == compiler::Op::kInput || listed[i]) continue;
    outputs.push_back(id);
  }
  return outputs;
}

compiler::Graph MaterializeEveryNode(const compiler::Graph& graph) {
  compiler::Graph out = graph;
  out.set_outputs(MaterializedOutputs(graph));
  return out;
}

}  // namespace rk::repro
