// Recognizes the erf formula of GELU that exporters write for torch's exact
// gelu, x * 0.5 * (1 + erf(x / sqrt(2))) (also with x * (1 / sqrt(2)), and
// the 0.5 applied to x or to the sum), and replaces it with one `gelu` node,
// which carries the name of the formula's last node. A formula whose
// intermediate values have other users stays as it is.
//
// Tested by compiler/onnx/fuse_gelu_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_FUSE_GELU_H_
#define REPROKIT_COMPILER_ONNX_FUSE_GELU_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace rk::compiler::onnx_io {

// The number of formulas replaced; `graph` is rewritten in place.
absl::StatusOr<int> FuseGelu(Graph& graph);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_FUSE_GELU_H_
