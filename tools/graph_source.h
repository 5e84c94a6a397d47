// The GRAPH argument of a command: a graph in the text format (.rk) or an
// ONNX model (a path ending in .onnx), imported on the fly with
// compiler/onnx. `--input-shape NAME=[d0,d1,...]` binds an ONNX input's
// symbolic dims; it is refused for .rk graphs, whose shapes are static.
//
// A build without ONNX support (--config=static: Debian ships libonnx as a
// shared library only) says so for .onnx paths.
//
// Tested by tools/onnx_cli_test.sh.
#ifndef REPROKIT_TOOLS_GRAPH_SOURCE_H_
#define REPROKIT_TOOLS_GRAPH_SOURCE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "tools/flags.h"

namespace rk::tools {

struct GraphSource {
  compiler::Graph graph;
  // Null for a .rk file; for a model: {"onnx": path, "opset", "producer",
  // "nodes": {graph node: "OpType onnx_name"}}, recorded in bundles.
  Json source;
  // For a model: what the import read.
  int64_t opset = 0;
  std::string producer;
  int64_t weight_bytes = 0;
};

struct GraphSourceFlags {
  std::vector<std::string> input_shapes;  // "NAME=[d0,d1,...]"
  void Register(FlagSet& flags);
};

bool IsOnnxPath(const std::string& path);

// Parses "NAME=[d0,d1,...]" items (also "NAME=d0,d1" and "NAME=[]").
absl::StatusOr<std::map<std::string, std::vector<int64_t>>> ParseInputShapes(
    const std::vector<std::string>& specs);

absl::StatusOr<GraphSource> LoadGraphSource(const std::string& path,
                                            const GraphSourceFlags& flags = {});

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_GRAPH_SOURCE_H_
