#include "compiler/onnx/model_file.h"

#include <exception>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "onnx/checker.h"


namespace rk::compiler::onnx_io {

absl::StatusOr<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  if (bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty file"));
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not an ONNX model (the protobuf does not parse: malformed or truncated)"));
  }
  if (!model.has_ir_version() || !model.has_graph()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not an ONNX model (no ir_version or no graph in the protobuf)"));
  }
  if (model.ir_version() < 3 || model.ir_version() > onnx::IR_VERSION) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ONNX IR version ", model.ir_version(), " is not supported (this build reads 3 to ",
        static_cast<int>(onnx::IR_VERSION), ")"));
  }
  if (absl::StatusOr<int64_t> opset = DefaultOpset(model); !opset.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", opset.status().message()));
  }
  if (absl::Status s = CheckModel(model); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  }
  return model;
}

absl::StatusOr<onnx::ModelProto> ReadModelFile(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<uintmax_t>(kMaxModelFileBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", size, " bytes, over the 2 GiB limit of ONNX files (keep weights in external data)"));
  }
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return absl::InvalidArgumentError(bytes.status().message());
  return ParseModel(*bytes, path);
}

absl::Status CheckModel(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX checker: ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
  }
  return absl::InvalidArgumentError("the model imports no default-domain (ai.onnx) opset");
}

absl::Status WriteModelFile(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return absl::InternalError("serializing the ONNX model failed (over 2 GiB?)");
  }
  return WriteFileAtomically(path, bytes);
}

}  // namespace rk::compiler::onnx_io
