// ONNX models as a GraphSource (graph_source.h): the import itself, and the
// ONNX export of a graph, over compiler/onnx.
//
// Tested by tools/onnx_cli_test.sh.
#ifndef REPROKIT_TOOLS_ONNX_SOURCE_H_
#define REPROKIT_TOOLS_ONNX_SOURCE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "tools/graph_source.h"

namespace rk::tools {

struct GraphSource;

absl::StatusOr<GraphSource> ImportOnnxSource(
    const std::string& path, const std::map<std::string, std::vector<int64_t>>& input_shapes);

// Writes `graph` as an ONNX model to `path`; when `data_dir` is not empty,
// also the inputs and expected outputs as TensorProto files there.
absl::Status ExportOnnx(const compiler::Graph& graph, const std::string& path,
                        const std::string& data_dir,
                        const std::vector<compiler::HostTensor>& inputs,
                        const std::vector<compiler::HostTensor>& outputs);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_ONNX_SOURCE_H_
