// Reading and writing ONNX model files, with the checks that come before any
// conversion: the file parses as a ModelProto (protobuf, through Debian's
// libonnx, or classes generated from its schema in --config=static builds),
// its IR version is one reprokit reads (3 to kNewestIrVersion: Debian's ONNX
// 1.12 classes know IR 8; the fields IR 9 and 10 added are unknown fields to
// them, kept but not read, and none of them changes what a graph of tensor
// ops means), it imports the default operator set, and it is well formed
// (checker.h: ONNX's own checker where it can judge the model, reprokit's
// structural checks where it cannot). Each failure is a specific
// InvalidArgument. How new an opset the importer reads is per op
// (import_context.h).
//
// Tested by compiler/onnx/importer_test.cc (bad files) and
// compiler/onnx/exporter_test.cc (written models pass the checker).
#ifndef REPROKIT_COMPILER_ONNX_MODEL_FILE_H_
#define REPROKIT_COMPILER_ONNX_MODEL_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

// Models up to this size are read (protobuf's own limit is 2 GiB; larger
// weights belong in external data files).
inline constexpr int64_t kMaxModelFileBytes = int64_t{2} << 30;

// The newest ONNX IR version read (ONNX 1.16's; what PyTorch 2.11's default
// exporter writes).
inline constexpr int64_t kNewestIrVersion = 10;

absl::StatusOr<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& what);
absl::StatusOr<onnx::ModelProto> ReadModelFile(const std::string& path);

// The default-domain opset the model imports.
absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model);

absl::Status WriteModelFile(const onnx::ModelProto& model, const std::string& path);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_MODEL_FILE_H_
