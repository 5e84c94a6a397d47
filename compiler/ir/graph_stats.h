// Statistics of a graph, as `reprokit show --stats` prints them: how many
// nodes of each op, the inputs and outputs with their types, the total number
// of elements over every node, and the canonical hash.
//
// Needs a verified graph (every node typed). Guarantees a deterministic text:
// ops are listed in name order, inputs and outputs in signature order.
//
// Tested by compiler/ir/graph_stats_test.cc.
#ifndef REPROKIT_COMPILER_IR_GRAPH_STATS_H_
#define REPROKIT_COMPILER_IR_GRAPH_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace rk::compiler {

struct GraphStats {
  std::string graph_name;
  int num_nodes = 0;
  int num_inputs = 0;
  // Op name -> how many nodes apply it (inputs count as "input").
  std::map<std::string, int> nodes_per_op;
  // (display name without '%', type text such as "f32[2,3]"), in order.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;
  // Sum of the element counts of every node's result.
  int64_t total_elements = 0;
  std::string canonical_hash;

  // The report `reprokit show --stats` prints, one item per line.
  std::string ToText() const;
};

GraphStats ComputeGraphStats(const Graph& graph);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_GRAPH_STATS_H_
