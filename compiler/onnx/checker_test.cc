#include "compiler/onnx/checker.h"

#include <string>

#include "compiler/onnx/onnx_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;

onnx::ModelProto ReluModel(const std::string& input, int64_t opset = 17) {
  return MakeModel({MakeNode("Relu", {input}, {"y"}, "relu")}, {{"x", onnx::TensorProto::FLOAT, {4}}},
                   {{"y", onnx::TensorProto::FLOAT, {4}}}, {}, opset);
}

// What PyTorch 2.11's default exporter writes: IR 10, opset 20.
onnx::ModelProto Newer(onnx::ModelProto model) {
  model.set_ir_version(10);
  model.mutable_opset_import(0)->set_version(20);
  return model;
}

TEST(CheckerTest, AcceptsAWellFormedModel) {
  EXPECT_TRUE(CheckModel(ReluModel("x")).ok());
  EXPECT_EQ(OnnxCheckerKnows(ReluModel("x")), HaveOnnxChecker());
}

TEST(CheckerTest, RejectsAnUndefinedValue) {
  // 'ghost' is no input, initializer or node output.
  const absl::Status s = CheckModel(ReluModel("ghost"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("ghost"));
  // ONNX's checker where it is linked, the structural checks otherwise.
  EXPECT_THAT(s.message(), HasSubstr(HaveOnnxChecker() ? "ONNX checker: " : "malformed model: "));
}

TEST(CheckerTest, NewerIrAndOpsetsGetTheStructuralChecks) {
  const onnx::ModelProto good = Newer(ReluModel("x"));
  EXPECT_FALSE(OnnxCheckerKnows(good));
  EXPECT_TRUE(CheckModel(good).ok()) << CheckModel(good);
  // IR 8 but opset 18: ONNX 1.12 has no opset-18 schemas to judge by.
  EXPECT_FALSE(OnnxCheckerKnows(ReluModel("x", 18)));

  const absl::Status ghost = CheckModel(Newer(ReluModel("ghost")));
  EXPECT_EQ(ghost.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ghost.message(),
              HasSubstr("malformed model: Relu node 'relu': input 'ghost' is no graph input"));
}

TEST(CheckerTest, StructuralChecksFindWhatRuntimesRefuse) {
  onnx::ModelProto twice = Newer(MakeModel(
      {MakeNode("Relu", {"x"}, {"y"}, "a"), MakeNode("Neg", {"x"}, {"y"}, "b")},
      {{"x", onnx::TensorProto::FLOAT, {4}}}, {{"y", onnx::TensorProto::FLOAT, {4}}}));
  EXPECT_THAT(CheckModel(twice).message(),
              HasSubstr("value 'y' is defined twice (Neg node 'b')"));

  onnx::ModelProto domain = Newer(ReluModel("x"));
  domain.mutable_graph()->mutable_node(0)->set_domain("com.example");
  EXPECT_THAT(CheckModel(domain).message(),
              HasSubstr("Relu node 'relu': its domain 'com.example' has no opset_import"));

  onnx::ModelProto no_output = Newer(ReluModel("x"));
  no_output.mutable_graph()->mutable_output(0)->set_name("z");
  EXPECT_THAT(CheckModel(no_output).message(), HasSubstr("graph output 'z' is never defined"));

  onnx::ModelProto ref = Newer(ReluModel("x"));
  onnx::AttributeProto* a = ref.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_ref_attr_name("alpha");
  EXPECT_THAT(CheckModel(ref).message(),
              HasSubstr("refers to a function attribute outside a function"));

  // Nodes out of order are fine (ONNX Runtime sorts them; so does the importer).
  onnx::ModelProto unsorted = Newer(MakeModel(
      {MakeNode("Neg", {"r"}, {"y"}, "b"), MakeNode("Relu", {"x"}, {"r"}, "a")},
      {{"x", onnx::TensorProto::FLOAT, {4}}}, {{"y", onnx::TensorProto::FLOAT, {4}}}));
  EXPECT_TRUE(CheckModel(unsorted).ok()) << CheckModel(unsorted);
}

}  // namespace
}  // namespace rk::compiler::onnx_io
