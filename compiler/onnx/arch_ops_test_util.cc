#include "compiler/onnx/arch_ops_test_util.h"

#include <utility>

#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/model_file.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io::arch_test {

absl::StatusOr<ImportedModel> Import(const onnx::ModelProto& model) {
  std::string bytes;
  model.SerializeToString(&bytes);
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "model.onnx");
  if (!parsed.ok()) return parsed.status();
  return ImportModel(*parsed, {});
}

HostTensor Floats(std::vector<int64_t> dims, std::vector<double> values) {
  HostTensor t(TensorType(DType::kF32, Shape(std::move(dims))));
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

void AddStringAttr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

HostTensor Int64s(std::vector<int64_t> dims, std::vector<int64_t> values) {
  HostTensor t(TensorType(DType::kI64, Shape(std::move(dims))));
  for (size_t i = 0; i < values.size(); ++i) t.SetInt(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<double> Eval(const Graph& graph, std::vector<HostTensor> inputs) {
  absl::StatusOr<EvalResult> result = Evaluate(graph, inputs);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<double> out;
  for (int64_t i = 0; result.ok() && i < result->outputs[0].num_elements(); ++i) {
    out.push_back(result->outputs[0].GetDouble(i));
  }
  return out;
}

void ExpectRoundTrip(const Graph& graph) {
  absl::StatusOr<onnx::ModelProto> exported = ExportModel(graph);
  ASSERT_TRUE(exported.ok()) << exported.status();
  absl::StatusOr<ImportedModel> again = Import(*exported);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(CanonicalHash(again->graph), CanonicalHash(graph))
      << PrintInline(graph) << "\nagain:\n"
      << PrintInline(again->graph);
}

}  // namespace rk::compiler::onnx_io::arch_test
