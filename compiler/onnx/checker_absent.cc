// checker.h for --config=static builds: ONNX's checker lives only in Debian's
// shared libonnx, so there is none to run.
#include "compiler/onnx/checker.h"

namespace rk::compiler::onnx_io {

bool HaveOnnxChecker() { return false; }

absl::Status CheckModel(const onnx::ModelProto&) { return absl::OkStatus(); }

}  // namespace rk::compiler::onnx_io
