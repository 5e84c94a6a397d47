// checker.h for --config=static builds: ONNX's checker lives only in Debian's
// shared libonnx, so only reprokit's structural checks run.
#include "compiler/onnx/checker.h"

#include "compiler/onnx/model_structure.h"

namespace rk::compiler::onnx_io {

bool HaveOnnxChecker() { return false; }

bool OnnxCheckerKnows(const onnx::ModelProto&) { return false; }

absl::Status CheckModel(const onnx::ModelProto& model) { return CheckModelStructure(model); }

}  // namespace rk::compiler::onnx_io
