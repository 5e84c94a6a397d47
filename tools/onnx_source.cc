#include "tools/onnx_source.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "repro/oracle/backend_runner.h"

namespace rk::tools {
namespace {

// External backends that ask for ONNX get the exporter's model, checked.
const bool kOnnxExporterRegistered = [] {
  repro::BackendRunner::SetOnnxExporter(
      [](const compiler::Graph& graph) -> absl::StatusOr<std::string> {
        RK_ASSIGN_OR_RETURN(auto model, compiler::onnx_io::ExportModel(graph));
        RK_RETURN_IF_ERROR(compiler::onnx_io::CheckModel(model));
        std::string bytes;
        if (!model.SerializeToString(&bytes)) {
          return absl::InternalError("cannot serialize the ONNX model");
        }
        return bytes;
      });
  return true;
}();

}  // namespace

absl::StatusOr<GraphSource> ImportOnnxSource(
    const std::string& path, const std::map<std::string, std::vector<int64_t>>& input_shapes) {
  compiler::onnx_io::ImportOptions options;
  options.input_shapes = input_shapes;
  RK_ASSIGN_OR_RETURN(compiler::onnx_io::ImportedModel model,
                      compiler::onnx_io::ImportModelFile(path, options));
  GraphSource source;
  source.graph = std::move(model.graph);
  source.opset = model.opset;
  source.producer = model.producer;
  source.weight_bytes = model.initializer_bytes;
  source.source = Json::MakeObject();
  source.source["onnx"] = path;
  source.source["opset"] = static_cast<long long>(model.opset);
  source.source["producer"] = model.producer;
  source.source["initializer_bytes"] = static_cast<long long>(model.initializer_bytes);
  Json nodes = Json::MakeObject();
  for (const compiler::onnx_io::NodeOrigin& o : model.origins) {
    nodes[o.node] = absl::StrCat(o.op_type, " ", o.onnx_name);
  }
  source.source["nodes"] = std::move(nodes);
  return source;
}

absl::Status ExportOnnx(const compiler::Graph& graph, const std::string& path,
                        const std::string& data_dir,
                        const std::vector<compiler::HostTensor>& inputs,
                        const std::vector<compiler::HostTensor>& outputs) {
  RK_ASSIGN_OR_RETURN(auto model, compiler::onnx_io::ExportModel(graph));
  if (!data_dir.empty()) {
    RK_RETURN_IF_ERROR(compiler::onnx_io::WriteTensorFiles(graph, inputs, false, data_dir));
    RK_RETURN_IF_ERROR(compiler::onnx_io::WriteTensorFiles(graph, outputs, true, data_dir));
  }
  return compiler::onnx_io::WriteModelFile(model, path);
}

}  // namespace rk::tools
