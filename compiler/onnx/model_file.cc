#include "compiler/onnx/model_file.h"

#include <fcntl.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "compiler/onnx/checker.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"

namespace rk::compiler::onnx_io {

namespace {

absl::StatusOr<onnx::ModelProto> CheckParsed(onnx::ModelProto model, const std::string& what) {
  if (!model.has_ir_version() || !model.has_graph()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not an ONNX model (no ir_version or no graph in the protobuf)"));
  }
  if (model.ir_version() < 3 || model.ir_version() > kNewestIrVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ONNX IR version ", model.ir_version(), " is not supported (this build reads 3 to ",
        kNewestIrVersion, ")"));
  }
  if (absl::StatusOr<int64_t> opset = DefaultOpset(model); !opset.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", opset.status().message()));
  }
  if (absl::Status s = CheckModel(model); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  }
  return model;
}

}  // namespace

absl::StatusOr<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  if (bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty file"));
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not an ONNX model (the protobuf does not parse: malformed or truncated)"));
  }
  return CheckParsed(std::move(model), what);
}

absl::StatusOr<onnx::ModelProto> ReadModelFile(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat("reading ", path, ": ", ec.message()));
  }
  if (std::filesystem::is_directory(path)) {
    return absl::InvalidArgumentError(absl::StrCat("reading ", path, ": is a directory"));
  }
  if (size > static_cast<uintmax_t>(kMaxModelFileBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ", size, " bytes, over the 2 GiB limit of ONNX files (keep weights in external data)"));
  }
  // Parsed straight from the file: a model's weights are copied once, into
  // the protobuf, not first into a buffer of the whole file.
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, "reading", path);
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": empty file"));
  onnx::ModelProto model;
  google::protobuf::io::FileInputStream stream(fd.get());
  if (!model.ParseFromZeroCopyStream(&stream) || stream.GetErrno() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not an ONNX model (the protobuf does not parse: malformed or truncated)"));
  }
  return CheckParsed(std::move(model), path);
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
