// Repro runners judge bundles of backends that ask for ONNX (onnxruntime):
// this registers the exporter with BackendRunner, as the reprokit binary does
// (tools/onnx_source.cc), so an emitted known failure of ONNX Runtime runs
// (shown by //repro/emit:known_failure_test).
#include <string>

#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "compiler/onnx/checker.h"
#include "compiler/onnx/exporter.h"
#include "repro/oracle/backend_runner.h"

namespace rk::repro {
namespace {

const bool kRegistered = [] {
  if (BackendRunner::GetOnnxExporter()) return false;  // someone linked one already
  BackendRunner::SetOnnxExporter(
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
}  // namespace rk::repro
