// checker.h over ONNX's checker in Debian's libonnx.so.
#include "compiler/onnx/checker.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "compiler/onnx/model_structure.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"

namespace rk::compiler::onnx_io {

bool HaveOnnxChecker() { return true; }

bool OnnxCheckerKnows(const onnx::ModelProto& model) {
  if (model.ir_version() > onnx::IR_VERSION) return false;
  // Local functions are checked by ONNX 1.12 against the same schemas; an
  // exporter's functions come with newer models anyway.
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    const std::string domain = o.domain() == "ai.onnx" ? "" : o.domain();
    auto it = ranges.find(domain);
    // Another domain (a local function's, a vendor's): ONNX's checker cannot
    // judge the nodes in it.
    if (it == ranges.end() || o.version() > it->second.second) return false;
  }
  return true;
}

absl::Status CheckModel(const onnx::ModelProto& model) {
  if (!OnnxCheckerKnows(model)) return CheckModelStructure(model);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX checker: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
