// Whether a model is well formed, as a Status. ONNX's own checker
// (onnx::checker::check_model, Debian's ONNX 1.12) judges the models it
// knows: IR version up to onnx::IR_VERSION (8) and every opset it imports
// within the range that ONNX build has schemas for (ai.onnx up to 17). A
// newer model, which that checker would refuse for its version alone, gets
// reprokit's own structural checks (model_structure.h) instead: IR 9 and 10,
// opsets 18 to 21, local functions.
//
// checker.cc calls ONNX's checker; checker_absent.cc, linked by
// --config=static builds (Debian ships the checker only in the shared
// libonnx), runs only the structural checks and HaveOnnxChecker() says so.
//
// Tested by compiler/onnx/checker_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_CHECKER_H_
#define REPROKIT_COMPILER_ONNX_CHECKER_H_

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

// Whether this build links ONNX's checker.
bool HaveOnnxChecker();

// Whether ONNX's checker (when linked) can judge `model`: its IR version and
// every opset it imports are ones that checker knows.
bool OnnxCheckerKnows(const onnx::ModelProto& model);

// InvalidArgument "ONNX checker: <why>" when ONNX's checker judges `model`
// and rejects it, "malformed model: <why>" when the structural checks do.
absl::Status CheckModel(const onnx::ModelProto& model);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_CHECKER_H_
