// The Graphviz form of a graph, as `reprokit show --dot/--svg` prints it: one
// box per node ("n<id>", labelled with its name, op, attributes and type),
// ellipses for inputs, an edge per operand and a plaintext "return #k" node
// per output; and an SVG rendering through Graphviz's `dot` program.
//
// PrintDot(graph, style) adds fill colours, clusters and element ids.
//
// Needs a verified graph. Guarantees DOT text that Graphviz reads whatever the
// names hold: graph names, node names and string attributes are escaped
// inside double-quoted strings, and label lines are joined with "\n".
//
// Tested by compiler/ir/dot_printer_test.cc.
#ifndef REPROKIT_COMPILER_IR_DOT_PRINTER_H_
#define REPROKIT_COMPILER_IR_DOT_PRINTER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

std::string PrintDot(const Graph& graph);

// Decorations for drawings in reports: fill colours per node, clusters (boxes
// around groups of nodes, e.g. fusion groups) and stable element ids ("n<id>"
// for nodes, "out<k>" for outputs), which Graphviz copies into its SVG.
struct DotCluster {
  std::string label;
  std::vector<NodeId> nodes;  // a node listed in several clusters stays in the first
};
struct DotStyle {
  std::map<int, std::string> fill;  // node id -> Graphviz colour ("#ffb3b3")
  std::vector<DotCluster> clusters;
  bool element_ids = false;
};
std::string PrintDot(const Graph& graph, const DotStyle& style);

// Renders `dot_text` to an SVG file at `svg_path` with `dot -Tsvg` (found on
// PATH). Unavailable when Graphviz is not installed; Internal when dot fails
// (its stderr in the message).
absl::Status RenderDotToSvg(const std::string& dot_text, const std::string& svg_path);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_DOT_PRINTER_H_
