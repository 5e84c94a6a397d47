#include "compiler/onnx/importer.h"

#include <filesystem>
#include <fstream>
#include <limits>

#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_test_util.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<ImportedModel> ImportChecked(const onnx::ModelProto& model,
                                            const ImportOptions& options = {}) {
  std::string bytes;
  model.SerializeToString(&bytes);
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "model.onnx");
  if (!parsed.ok()) return parsed.status();
  return ImportModel(*parsed, options);
}

TEST(ImporterTest, KeepsNodeNamesAndFoldsShapeArithmetic) {
  // y = Reshape(Relu(x), Concat(Shape(x)[0:1], [-1]))
  onnx::NodeProto shape = MakeNode("Shape", {"x"}, {"s"}, "/shape");
  AddIntAttr(shape, "end", 1);
  onnx::NodeProto concat = MakeNode("Concat", {"s", "minus_one"}, {"target"}, "/concat");
  AddIntAttr(concat, "axis", 0);
  onnx::ModelProto model = MakeModel(
      {MakeNode("Relu", {"x"}, {"r"}, "/block.0/act/Relu"), shape, concat,
       MakeNode("Reshape", {"r", "target"}, {"y"}, "/flatten/Reshape")},
      {{"x", onnx::TensorProto::FLOAT, {2, 3, 4}}}, {{"y", onnx::TensorProto::FLOAT, {2, 12}}},
      {Int64Tensor("minus_one", {1}, {-1})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(PrintInline(imported->graph),
            "graph @test(%x: f32[2,3,4]) {\n"
            "  %block.0_act_Relu = relu(%x) : f32[2,3,4]\n"
            "  %flatten_Reshape = reshape(%block.0_act_Relu) {shape=[2,12]} : f32[2,12]\n"
            "  return %flatten_Reshape\n"
            "}\n");
  ASSERT_FALSE(imported->origins.empty());
  EXPECT_EQ(imported->origins[0].node, "block.0_act_Relu");
  EXPECT_EQ(imported->origins[0].onnx_name, "/block.0/act/Relu");
  EXPECT_EQ(imported->origins[0].op_type, "Relu");
  EXPECT_EQ(imported->opset, 17);
}

TEST(ImporterTest, SymbolicDimsMustBeBound) {
  onnx::ModelProto model = MakeModel({MakeNode("Relu", {"x"}, {"y"}, "relu")},
                                     {{"x", onnx::TensorProto::FLOAT, {-1, 8}}},
                                     {{"y", onnx::TensorProto::FLOAT, {-1, 8}}});
  absl::StatusOr<ImportedModel> unbound = ImportChecked(model);
  ASSERT_FALSE(unbound.ok());
  EXPECT_EQ(unbound.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unbound.status().message(), HasSubstr("input 'x' dim 0 ('N') is symbolic"));
  EXPECT_THAT(unbound.status().message(), HasSubstr("--input-shape x="));

  ImportOptions options;
  options.input_shapes["x"] = {3, 8};
  absl::StatusOr<ImportedModel> bound = ImportChecked(model, options);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->graph.type(NodeId(0)).ToString(), "f32[3,8]");

  options.input_shapes["x"] = {3, 9};
  EXPECT_THAT(ImportChecked(model, options).status().message(),
              HasSubstr("dim 1 is fixed at 8"));
  options.input_shapes = {{"nope", {1}}};
  EXPECT_THAT(ImportChecked(model, options).status().message(),
              HasSubstr("'nope', which is not an input of the model (x)"));
}

TEST(ImporterTest, ListsEveryUnsupportedOpOnce) {
  onnx::ModelProto model = MakeModel(
      {MakeNode("Relu", {"x"}, {"a"}, "ok"), MakeNode("NonZero", {"a"}, {"b"}, "nz_first"),
       MakeNode("NonZero", {"a"}, {"c"}, "nz_second"), MakeNode("Det", {"x"}, {"d"}, "det")},
      {{"x", onnx::TensorProto::FLOAT, {2, 2}}},
      {{"b", onnx::TensorProto::INT64, {2, 2}}, {"d", onnx::TensorProto::FLOAT, {}}});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr("2 unsupported op types"));
  EXPECT_THAT(imported.status().message(), HasSubstr("Det (opset 17): 1 node, first 'det'"));
  EXPECT_THAT(imported.status().message(),
              HasSubstr("NonZero (opset 17): 2 nodes, first 'nz_first'"));
}

TEST(ImporterTest, BadFilesAreSpecificErrors) {
  EXPECT_THAT(ParseModel("", "m.onnx").status().message(), HasSubstr("empty file"));
  EXPECT_THAT(ParseModel("\xff\xff\xff garbage", "m.onnx").status().message(),
              HasSubstr("not an ONNX model"));
  onnx::ModelProto model = MakeModel({MakeNode("Relu", {"x"}, {"y"}, "relu")},
                                     {{"x", onnx::TensorProto::FLOAT, {4}}},
                                     {{"y", onnx::TensorProto::FLOAT, {4}}},
                                     {FloatTensor("unused", {64}, std::vector<float>(64, 1.0f))});
  std::string bytes;
  model.SerializeToString(&bytes);
  absl::StatusOr<onnx::ModelProto> truncated =
      ParseModel(bytes.substr(0, bytes.size() - 40), "m.onnx");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kInvalidArgument);

  model.set_ir_version(99);
  model.SerializeToString(&bytes);
  EXPECT_THAT(ParseModel(bytes, "m.onnx").status().message(),
              HasSubstr("ONNX IR version 99 is not supported"));
}

TEST(ImporterTest, UnknownValuesAndDtypesAreNamed) {
  onnx::ModelProto undefined = MakeModel({MakeNode("Add", {"x", "w"}, {"y"}, "add")},
                                         {{"x", onnx::TensorProto::FLOAT, {4}}},
                                         {{"y", onnx::TensorProto::FLOAT, {4}}});
  absl::StatusOr<ImportedModel> a = ImportModel(undefined);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("value 'w' is used but never defined"));

  onnx::ModelProto bytes_in = MakeModel({MakeNode("Identity", {"x"}, {"y"}, "id")},
                                        {{"x", onnx::TensorProto::UINT8, {4}}},
                                        {{"y", onnx::TensorProto::UINT8, {4}}});
  absl::StatusOr<ImportedModel> b = ImportChecked(bytes_in);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("UINT8 is not a dtype reprokit represents"));
}

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / "external";
    std::filesystem::create_directories(dir_ / "weights");
    const float values[4] = {1, 2, 3, 4};
    std::ofstream(dir_ / "weights" / "w.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(values), sizeof(values));
  }
  onnx::ModelProto ModelWithLocation(const std::string& location) {
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    w.add_dims(4);
    w.set_data_location(onnx::TensorProto::EXTERNAL);
    onnx::StringStringEntryProto* e = w.add_external_data();
    e->set_key("location");
    e->set_value(location);
    return MakeModel({MakeNode("Add", {"x", "w"}, {"y"}, "add")},
                     {{"x", onnx::TensorProto::FLOAT, {4}}},
                     {{"y", onnx::TensorProto::FLOAT, {4}}}, {w});
  }
  std::filesystem::path dir_;
};

TEST_F(ExternalDataTest, LoadsRelativeToTheModel) {
  ImportOptions options;
  options.model_dir = dir_.string();
  absl::StatusOr<ImportedModel> imported = ImportModel(ModelWithLocation("weights/w.bin"), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("[1.0, 2.0, 3.0, 4.0]"));
  EXPECT_EQ(imported->initializer_bytes, 16);
}

TEST_F(ExternalDataTest, RefusesPathsThatLeaveTheModelDirectory) {
  ImportOptions options;
  options.model_dir = (dir_ / "weights").string();
  for (const std::string& location : std::vector<std::string>{"../weights/w.bin", "/etc/passwd"}) {
    absl::StatusOr<ImportedModel> imported = ImportModel(ModelWithLocation(location), options);
    ASSERT_FALSE(imported.ok()) << location;
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(imported.status().message(), Not(HasSubstr("root:")));
  }
  options.model_dir = dir_.string();
  EXPECT_THAT(ImportModel(ModelWithLocation("weights/missing.bin"), options).status().message(),
              HasSubstr("cannot read external data"));
}

// Runs `graph` on `inputs` with the reference interpreter.
std::vector<double> Evaluated(const Graph& graph, std::vector<HostTensor> inputs) {
  absl::StatusOr<EvalResult> result = Evaluate(graph, inputs);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<double> out;
  for (int64_t i = 0; result.ok() && i < result->outputs[0].num_elements(); ++i) {
    out.push_back(result->outputs[0].GetDouble(i));
  }
  return out;
}

HostTensor Floats(std::vector<int64_t> dims, std::vector<double> values) {
  HostTensor t(TensorType(DType::kF32, Shape(std::move(dims))));
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

TEST(ImporterTest, GemmLowersWithTransposesAlphaAndBeta) {
  onnx::NodeProto gemm = MakeNode("Gemm", {"a", "b", "c"}, {"y"}, "gemm");
  AddIntAttr(gemm, "transB", 1);
  AddFloatAttr(gemm, "alpha", 2.0f);
  AddFloatAttr(gemm, "beta", 0.5f);
  onnx::ModelProto model =
      MakeModel({gemm}, {{"a", onnx::TensorProto::FLOAT, {1, 2}}},
                {{"y", onnx::TensorProto::FLOAT, {1, 2}}},
                {FloatTensor("b", {2, 2}, {1, 2, 3, 4}), FloatTensor("c", {2}, {10, 20})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_TRUE(imported.ok()) << imported.status();
  // a = [1, 1]: a * b^T = [3, 7]; * 2 = [6, 14]; + 0.5 * c = [11, 24].
  EXPECT_EQ(Evaluated(imported->graph, {Floats({1, 2}, {1, 1})}), (std::vector<double>{11, 24}));
}

TEST(ImporterTest, BatchNormalizationIsTheInferenceFormula) {
  onnx::NodeProto bn = MakeNode("BatchNormalization", {"x", "scale", "bias", "mean", "var"},
                                {"y"}, "bn");
  AddFloatAttr(bn, "epsilon", 0.0f);
  onnx::ModelProto model = MakeModel(
      {bn}, {{"x", onnx::TensorProto::FLOAT, {1, 2, 1, 2}}},
      {{"y", onnx::TensorProto::FLOAT, {1, 2, 1, 2}}},
      {FloatTensor("scale", {2}, {2, 3}), FloatTensor("bias", {2}, {1, -1}),
       FloatTensor("mean", {2}, {1, 2}), FloatTensor("var", {2}, {4, 9})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_TRUE(imported.ok()) << imported.status();
  // Channel 0: (x - 1) / 2 * 2 + 1; channel 1: (x - 2) / 3 * 3 - 1.
  EXPECT_EQ(Evaluated(imported->graph, {Floats({1, 2, 1, 2}, {3, 5, 8, 2})}),
            (std::vector<double>{3, 5, 5, -1}));
}

TEST(ImporterTest, ActivationsDecompose) {
  onnx::NodeProto leaky = MakeNode("LeakyRelu", {"x"}, {"l"}, "leaky");
  AddFloatAttr(leaky, "alpha", 0.5f);
  onnx::ModelProto model = MakeModel({leaky, MakeNode("Softsign", {"l"}, {"y"}, "softsign")},
                                     {{"x", onnx::TensorProto::FLOAT, {3}}},
                                     {{"y", onnx::TensorProto::FLOAT, {3}}});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_TRUE(imported.ok()) << imported.status();
  // leaky: [-1, 0, 3]; softsign: x / (1 + |x|).
  EXPECT_EQ(Evaluated(imported->graph, {Floats({3}, {-2, 0, 3})}),
            (std::vector<double>{-0.5, 0, 0.75}));
}

// A float attribute left out has ONNX's 32-bit default, so the graph exports
// (spelling the attribute out) and imports again unchanged. Found by the
// onnx_import fuzz harness: LayerNormalization without epsilon got the double
// 1e-5, which came back from export as 1e-5f.
TEST(ImporterTest, DefaultFloatAttributesAre32Bit) {
  onnx::ModelProto model = MakeModel(
      {MakeNode("LayerNormalization", {"x", "gamma"}, {"y"}, "ln")},
      {{"x", onnx::TensorProto::FLOAT, {2, 4}}}, {{"y", onnx::TensorProto::FLOAT, {2, 4}}},
      {FloatTensor("gamma", {4}, {1, 1, 1, 1})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_TRUE(imported.ok()) << imported.status();
  bool found = false;
  for (const Node& n : imported->graph.nodes()) {
    if (n.op != Op::kLayerNorm) continue;
    found = true;
    EXPECT_EQ(*n.attrs.GetFloat("eps"), static_cast<double>(1e-5f));
  }
  EXPECT_TRUE(found) << PrintInline(imported->graph);
  absl::StatusOr<onnx::ModelProto> exported = ExportModel(imported->graph);
  ASSERT_TRUE(exported.ok()) << exported.status();
  absl::StatusOr<ImportedModel> again = ImportChecked(*exported);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(CanonicalHash(again->graph), CanonicalHash(imported->graph))
      << PrintInline(imported->graph) << "\nvs\n" << PrintInline(again->graph);
}

// Found by the onnx_import fuzz harness: the product of Reshape's dims
// overflowed int64 (undefined behaviour) before any check could refuse them.
TEST(ImporterTest, ReshapeDimsWhoseProductOverflowsAreRefused) {
  onnx::ModelProto model = MakeModel(
      {MakeNode("Reshape", {"x", "shape"}, {"y"}, "reshape")},
      {{"x", onnx::TensorProto::FLOAT, {2, 4}}}, {{"y", onnx::TensorProto::FLOAT, {2, 4}}},
      {Int64Tensor("shape", {3}, {int64_t{1} << 40, int64_t{1} << 53, -1})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr("more elements than 64 bits count"));
}

// Found by the onnx_import harness: Expand to [3298534883330, 0, 10] gave a
// zero-element constant whose dim the text format and the ONNX reader refuse,
// so the exported model did not import again; input in
// tools/fuzzers/corpus/onnx_import. Inputs are held to the same limit.
TEST(ImporterTest, TypesOverTheTextFormatsLimitAreRefused) {
  onnx::ModelProto expand = MakeModel(
      {MakeNode("Expand", {"x", "shape"}, {"y"}, "expand")},
      {{"x", onnx::TensorProto::INT64, {1}}}, {{"y", onnx::TensorProto::INT64, {}}},
      {Int64Tensor("shape", {3}, {3298534883330, 0, 10})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(expand);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr("over 2^40"));
  onnx::ModelProto input = MakeModel({MakeNode("Neg", {"x"}, {"y"}, "neg")},
                                     {{"x", onnx::TensorProto::FLOAT, {int64_t{1} << 41, 0}}},
                                     {{"y", onnx::TensorProto::FLOAT, {}}});
  imported = ImportChecked(input);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("input 'x'"));
}

// Found by the onnx_import harness (UBSan: negating INT64_MIN in the Pad
// converter's crop); input in tools/fuzzers/corpus/onnx_import.
TEST(ImporterTest, PadsOfTheSmallestInt64AreRefused) {
  for (int64_t pad : {std::numeric_limits<int64_t>::min(), int64_t{-5}}) {
    onnx::ModelProto model = MakeModel(
        {MakeNode("Pad", {"x", "pads"}, {"y"}, "pad")},
        {{"x", onnx::TensorProto::FLOAT, {2, 4}}}, {{"y", onnx::TensorProto::FLOAT, {2, 4}}},
        {Int64Tensor("pads", {4}, {0, pad, 0, 0})});
    absl::StatusOr<ImportedModel> imported = ImportChecked(model);
    ASSERT_FALSE(imported.ok()) << pad;
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(imported.status().message(), HasSubstr("negative pads remove more than the dim"));
  }
}

// Found by the onnx_import harness: an int64 constant_value on float data
// imported as 4294967294, exported as the f32 4294967296, read back changed.
TEST(ImporterTest, PadValueOfAnotherTypeIsRefused) {
  onnx::ModelProto model = MakeModel(
      {MakeNode("Pad", {"x", "pads", "value"}, {"y"}, "pad")},
      {{"x", onnx::TensorProto::FLOAT, {2, 4}}}, {{"y", onnx::TensorProto::FLOAT, {2, 6}}},
      {Int64Tensor("pads", {4}, {0, 1, 0, 1}), Int64Tensor("value", {}, {4294967294})});
  absl::StatusOr<ImportedModel> imported = ImportChecked(model);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(), HasSubstr("constant_value is i64, the data f32"));
}

TEST(ImporterTest, SanitizeName) {
  EXPECT_EQ(SanitizeName("/encoder/layer.0/MatMul"), "encoder_layer.0_MatMul");
  EXPECT_EQ(SanitizeName("123"), "n123");
  EXPECT_EQ(SanitizeName(""), "n");
  EXPECT_EQ(SanitizeName("a:b"), "a_b");
}

}  // namespace
}  // namespace rk::compiler::onnx_io
