// Graphs drawn for reports: the Graphviz form (compiler/ir/dot_printer.h)
// with highlighted nodes and clusters, rendered by `dot -Tsvg` and returned
// as inline SVG (no XML prolog or doctype). Node elements keep the ids
// "n<id>" (outputs "out<k>", clusters "cluster<k>") so tests and readers can
// find them. Also: the node names of a fusion group's one-line description
// ("group 3 [elementwise] %a (add) <- %b (mul)", as fusion.txt and
// CompileReport print them), to draw fusion groups as clusters.
//
// Needs Graphviz's `dot` on PATH (Unavailable otherwise); graphs over
// `max_nodes` are not drawn (FailedPrecondition: dot takes minutes on them).
//
// Tested by testing/report/graph_drawing_test.cc.
#ifndef REPROKIT_TESTING_REPORT_GRAPH_DRAWING_H_
#define REPROKIT_TESTING_REPORT_GRAPH_DRAWING_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/dot_printer.h"
#include "compiler/ir/graph.h"

namespace rk::report {

inline constexpr char kCulpritColor[] = "#ff8a80";
inline constexpr char kFailingOutputColor[] = "#ffd180";

absl::StatusOr<std::string> DrawGraph(const compiler::Graph& graph,
                                      const compiler::DotStyle& style, int max_nodes = 400);

// "%name" tokens of a fusion group's description, without '%', in order.
std::vector<std::string> FusionGroupNodeNames(std::string_view description);

// Clusters for `graph` from fusion group descriptions, matched by node name;
// names not in the graph (nodes the passes created) are left out.
std::vector<compiler::DotCluster> FusionClusters(const compiler::Graph& graph,
                                                 const std::vector<std::string>& descriptions);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_GRAPH_DRAWING_H_
