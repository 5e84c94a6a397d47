#include "compiler/onnx/model_nodes.h"

#include <string>

#include "compiler/ir/printer.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;

onnx::AttributeProto FloatAttr(const std::string& name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
  return a;
}

// pkg.example::LeakyScale(a) -> b: b = LeakyRelu(a, alpha=<caller's alpha>) * 2
onnx::FunctionProto LeakyScale() {
  onnx::FunctionProto f;
  f.set_name("LeakyScale");
  f.set_domain("pkg.example");
  f.add_input("a");
  f.add_output("b");
  f.add_attribute("alpha");
  onnx::NodeProto leaky = MakeNode("LeakyRelu", {"a"}, {"t"}, "leaky");
  onnx::AttributeProto* ref = leaky.add_attribute();
  ref->set_name("alpha");
  ref->set_type(onnx::AttributeProto::FLOAT);
  ref->set_ref_attr_name("alpha");
  *f.add_node() = leaky;
  onnx::NodeProto two = MakeNode("Constant", {}, {"two"}, "two");
  *two.add_attribute() = FloatAttr("value_float", 2.0f);
  *f.add_node() = two;
  *f.add_node() = MakeNode("Mul", {"t", "two"}, {"b"}, "mul");
  onnx::OperatorSetIdProto* id = f.add_opset_import();
  id->set_domain("");
  id->set_version(20);
  return f;
}

onnx::ModelProto CallingModel(const onnx::FunctionProto& f, bool give_alpha) {
  onnx::NodeProto call = MakeNode("LeakyScale", {"x"}, {"y"}, "/block/LeakyScale");
  call.set_domain("pkg.example");
  if (give_alpha) *call.add_attribute() = FloatAttr("alpha", 0.5f);
  onnx::ModelProto model = MakeModel({call}, {{"x", onnx::TensorProto::FLOAT, {3}}},
                                     {{"y", onnx::TensorProto::FLOAT, {3}}}, {}, 20);
  model.set_ir_version(10);
  onnx::OperatorSetIdProto* id = model.add_opset_import();
  id->set_domain("pkg.example");
  id->set_version(1);
  *model.add_functions() = f;
  return model;
}

absl::StatusOr<ImportedModel> ImportBytes(const onnx::ModelProto& model) {
  std::string bytes;
  model.SerializeToString(&bytes);
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "model.onnx");
  if (!parsed.ok()) return parsed.status();
  return ImportModel(*parsed);
}

TEST(ModelNodesTest, InlinesALocalFunctionWithTheCallersAttribute) {
  absl::StatusOr<ImportedModel> imported = ImportBytes(CallingModel(LeakyScale(), true));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->functions_inlined, 1);
  const std::string text = PrintInline(imported->graph);
  // The caller's alpha reached the body; body nodes are named under the caller.
  EXPECT_THAT(text, HasSubstr("value=0.5"));
  EXPECT_THAT(text, HasSubstr("%block_LeakyScale_1_mul = mul("));
}

TEST(ModelNodesTest, AFunctionsDefaultAttributeAppliesWhenTheCallerGivesNone) {
  // IR 9's FunctionProto.attribute_proto (field 11), which ONNX 1.12's
  // classes keep as an unknown field: appended to the wire form by hand.
  std::string bytes = LeakyScale().SerializeAsString();
  const std::string attr = FloatAttr("alpha", 0.25f).SerializeAsString();
  ASSERT_LT(attr.size(), 128u);  // a one-byte length
  bytes += static_cast<char>((11 << 3) | 2);
  bytes += static_cast<char>(attr.size());
  bytes += attr;
  onnx::FunctionProto f;
  ASSERT_TRUE(f.ParseFromString(bytes));
  absl::StatusOr<ImportedModel> imported = ImportBytes(CallingModel(f, false));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("value=0.25"));

  // Neither given nor defaulted: LeakyRelu's own default, 0.01.
  absl::StatusOr<ImportedModel> plain = ImportBytes(CallingModel(LeakyScale(), false));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(PrintInline(plain->graph), HasSubstr("value=0.009999999776482582"));  // 0.01f
}

TEST(ModelNodesTest, RefusesAFunctionAtAnotherOpsetAndEndlessRecursion) {
  onnx::FunctionProto old = LeakyScale();
  old.mutable_opset_import(0)->set_version(17);
  absl::StatusOr<ImportedModel> imported = ImportBytes(CallingModel(old, true));
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(),
              HasSubstr("local function 'LeakyScale' imports ai.onnx opset 17, the model opset 20"));

  onnx::FunctionProto self = LeakyScale();
  onnx::NodeProto again = MakeNode("LeakyScale", {"b"}, {"c"}, "again");
  again.set_domain("pkg.example");
  *self.add_node() = again;
  self.set_output(0, "c");
  imported = ImportBytes(CallingModel(self, true));
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr("calls nested deeper than 64"));
}

TEST(ModelNodesTest, SortsNodesThatAreOutOfOrderAndKeepsASortedOrder) {
  onnx::ModelProto model = MakeModel(
      {MakeNode("Neg", {"r"}, {"y"}, "neg"), MakeNode("Relu", {"x"}, {"r"}, "relu")},
      {{"x", onnx::TensorProto::FLOAT, {4}}}, {{"y", onnx::TensorProto::FLOAT, {4}}}, {}, 20);
  model.set_ir_version(10);
  absl::StatusOr<ModelNodes> nodes = ModelNodesToConvert(model);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->nodes.size(), 2u);
  EXPECT_EQ(nodes->nodes[0]->name(), "relu");
  EXPECT_EQ(nodes->nodes[1]->name(), "neg");
  absl::StatusOr<ImportedModel> imported = ImportBytes(model);
  ASSERT_TRUE(imported.ok()) << imported.status();

  // Already sorted: the model's own order, the very same protos.
  onnx::ModelProto sorted = model;
  sorted.mutable_graph()->mutable_node()->SwapElements(0, 1);
  absl::StatusOr<ModelNodes> same = ModelNodesToConvert(sorted);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->nodes[0], &sorted.graph().node(0));
  EXPECT_EQ(same->nodes[1], &sorted.graph().node(1));
}

}  // namespace
}  // namespace rk::compiler::onnx_io
