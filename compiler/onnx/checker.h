// ONNX's own model checker (onnx::checker::check_model) as a Status, behind a
// seam: checker.cc calls it; checker_absent.cc, linked by --config=static
// builds (Debian ships the checker only in the shared libonnx), accepts every
// model and HaveOnnxChecker() says so. Either way the importer's own
// validation (model_file.h, importer.h) still applies.
//
// Tested by compiler/onnx/checker_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_CHECKER_H_
#define REPROKIT_COMPILER_ONNX_CHECKER_H_

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

// Whether CheckModel runs ONNX's checker in this build.
bool HaveOnnxChecker();

// InvalidArgument "ONNX checker: <why>" when ONNX's checker rejects `model`;
// OK when it accepts it or this build has no checker.
absl::Status CheckModel(const onnx::ModelProto& model);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_CHECKER_H_
