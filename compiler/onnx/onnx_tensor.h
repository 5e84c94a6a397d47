// ONNX tensors <-> host tensors, and ONNX element types <-> reprokit dtypes.
//
// Element types map one to one where reprokit has the type (FLOAT, FLOAT16,
// BFLOAT16, DOUBLE, INT32, INT64, BOOL); every other ONNX type is
// InvalidArgument naming it ("UINT8 is not a dtype reprokit represents").
// A TensorProto's values may be in raw_data (little-endian), in the typed
// fields (float_data, int32_data for 16-bit floats, bool and int32,
// int64_data, double_data) or in an external file next to the model; every
// form is checked against the declared shape before any byte is used.
//
// Tested by compiler/onnx/importer_test.cc (external data, bad tensors) and
// compiler/onnx/exporter_test.cc (round trips).
#ifndef REPROKIT_COMPILER_ONNX_ONNX_TENSOR_H_
#define REPROKIT_COMPILER_ONNX_ONNX_TENSOR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

// "FLOAT", "UINT8", ...; "type 42" for numbers ONNX does not define.
std::string OnnxTypeName(int32_t elem_type);
absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type);
int32_t OnnxElemType(DType dtype);

// The tensor's values. `model_dir` resolves external data (paths relative to
// it; a path that leaves it, absolute or through "..", is refused).
absl::StatusOr<HostTensor> TensorFromProto(const onnx::TensorProto& proto,
                                           const std::string& model_dir);
// A TensorProto holding `tensor` in raw_data.
onnx::TensorProto TensorToProto(const HostTensor& tensor, const std::string& name);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_ONNX_TENSOR_H_
