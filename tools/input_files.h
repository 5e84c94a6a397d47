// A graph's inputs read from files (`--inputs FILE...` of capture and
// import), one file per graph input in signature order, the format by the
// file's name:
//
// - NAME.npy: a NumPy array (format versions 1 to 3, C order; dtypes <f2,
//   <f4, <f8, <i4, <i8, |b1), whose dtype and shape must be the input's;
// - NAME.pb: an ONNX TensorProto (the test-data format of ONNX's model zoo
//   and node tests), likewise;
// - anything else: the input's raw little-endian, row-major bytes, exactly
//   its size.
//
// Each mismatch is InvalidArgument naming the file and the input.
//
// Tested by tools/onnx_cli_test.sh (import: each format) and
// tools/bundle_cli_test.sh (capture: raw files).
#ifndef REPROKIT_TOOLS_INPUT_FILES_H_
#define REPROKIT_TOOLS_INPUT_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::tools {

absl::StatusOr<std::vector<compiler::HostTensor>> ReadInputFiles(
    const compiler::Graph& graph, const std::vector<std::string>& files);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_INPUT_FILES_H_
