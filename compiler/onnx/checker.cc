// checker.h over ONNX's checker in Debian's libonnx.so.
#include "compiler/onnx/checker.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "onnx/checker.h"

namespace rk::compiler::onnx_io {

bool HaveOnnxChecker() { return true; }

absl::Status CheckModel(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX checker: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
