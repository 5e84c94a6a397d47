// Helpers of the tests of the converters real architectures need
// (import_arch_ops_test.cc, import_arch_shape_ops_test.cc): a model through
// the file checks and the importer, small tensors, the reference's first
// output, and the export round trip.
#ifndef REPROKIT_COMPILER_ONNX_ARCH_OPS_TEST_UTIL_H_
#define REPROKIT_COMPILER_ONNX_ARCH_OPS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/onnx/importer.h"

namespace rk::compiler::onnx_io::arch_test {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

// `model` serialized, read back with the file checks, imported.
absl::StatusOr<ImportedModel> Import(const onnx::ModelProto& model);
HostTensor Floats(std::vector<int64_t> dims, std::vector<double> values);
HostTensor Int64s(std::vector<int64_t> dims, std::vector<int64_t> values);
void AddStringAttr(onnx::NodeProto& node, const std::string& name, const std::string& value);
// The first output of `graph` on `inputs` (a failed evaluation is a test failure).
std::vector<double> Eval(const Graph& graph, std::vector<HostTensor> inputs);
// Export, import again: the same canonical graph.
void ExpectRoundTrip(const Graph& graph);

}  // namespace rk::compiler::onnx_io::arch_test

#endif  // REPROKIT_COMPILER_ONNX_ARCH_OPS_TEST_UTIL_H_
