// Small ONNX models built in C++ for the importer and exporter tests.
#ifndef REPROKIT_COMPILER_ONNX_ONNX_TEST_UTIL_H_
#define REPROKIT_COMPILER_ONNX_ONNX_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

struct ValueSpec {
  std::string name;
  int32_t elem_type = onnx::TensorProto::FLOAT;
  std::vector<int64_t> dims;      // -1: symbolic ("N")
  bool has_shape = true;
};

onnx::ValueInfoProto MakeValueInfo(const ValueSpec& spec);

onnx::NodeProto MakeNode(const std::string& op_type, std::vector<std::string> inputs,
                         std::vector<std::string> outputs, const std::string& name = "");
void AddIntAttr(onnx::NodeProto& node, const std::string& name, int64_t value);
void AddFloatAttr(onnx::NodeProto& node, const std::string& name, float value);
void AddIntsAttr(onnx::NodeProto& node, const std::string& name, std::vector<int64_t> values);

onnx::TensorProto FloatTensor(const std::string& name, std::vector<int64_t> dims,
                              std::vector<float> values);
onnx::TensorProto Int64Tensor(const std::string& name, std::vector<int64_t> dims,
                              std::vector<int64_t> values);

onnx::ModelProto MakeModel(std::vector<onnx::NodeProto> nodes, std::vector<ValueSpec> inputs,
                           std::vector<ValueSpec> outputs,
                           std::vector<onnx::TensorProto> initializers = {}, int64_t opset = 17);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_ONNX_TEST_UTIL_H_
