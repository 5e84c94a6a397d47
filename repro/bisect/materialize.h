// MaterializeEveryNode: a graph transform for divergence analysis. Returns
// the graph with every non-input node made a graph output, so a compiled run
// yields each node's value.
//
// The result keeps the nodes (ids, names, attributes) as they are; only the
// output list changes: the original outputs first, in order, then every
// other non-input node in topological order. MaterializedOutputs maps output
// positions back to node ids. Making a node an output forces it into a
// buffer, so fusion of the transformed graph is different from (usually
// coarser than) the original's: a bug that needs a particular fusion may
// vanish here, which is why divergence analysis says so in its report.
//
// Tested by repro/bisect/divergence_test.cc.
#ifndef REPROKIT_REPRO_BISECT_MATERIALIZE_H_
#define REPROKIT_REPRO_BISECT_MATERIALIZE_H_

#include <vector>

#include "compiler/ir/graph.h"

namespace rk::repro {

compiler::Graph MaterializeEveryNode(const compiler::Graph& graph);

// The node id behind each output of MaterializeEveryNode(graph).
std::vector<compiler::NodeId> MaterializedOutputs(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_MATERIALIZE_H_
