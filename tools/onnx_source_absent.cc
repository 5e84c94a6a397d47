// onnx_source.h for builds without libonnx (--config=static).
#include "absl/strings/str_cat.h"
#include "tools/onnx_source.h"

namespace rk::tools {
namespace {
constexpr char kWhy[] =
    "this reprokit was built without ONNX support (--config=static: Debian ships libonnx "
    "only as a shared library); use a default build";
}  // namespace

absl::StatusOr<GraphSource> ImportOnnxSource(
    const std::string& path, const std::map<std::string, std::vector<int64_t>>&) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", kWhy));
}

absl::Status ExportOnnx(const compiler::Graph&, const std::string& path, const std::string&,
                        const std::vector<compiler::HostTensor>&,
                        const std::vector<compiler::HostTensor>&) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", kWhy));
}

}  // namespace rk::tools
