// The converters real architectures need (import_pool_ceil.cc,
// import_indexing.cc, import_einsum.cc, import_control.cc): small models
// built with the ONNX classes, imported, evaluated with the reference
// interpreter against hand-computed values, exported and imported again.
#include <string>
#include <vector>

#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_test_util.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

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

// The first output of `graph` on `inputs`.
std::vector<double> Eval(const Graph& graph, std::vector<HostTensor> inputs) {
  absl::StatusOr<EvalResult> result = Evaluate(graph, inputs);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<double> out;
  for (int64_t i = 0; result.ok() && i < result->outputs[0].num_elements(); ++i) {
    out.push_back(result->outputs[0].GetDouble(i));
  }
  return out;
}

// Export, import again: the same canonical graph.
void ExpectRoundTrip(const Graph& graph) {
  absl::StatusOr<onnx::ModelProto> exported = ExportModel(graph);
  ASSERT_TRUE(exported.ok()) << exported.status();
  absl::StatusOr<ImportedModel> again = Import(*exported);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(CanonicalHash(again->graph), CanonicalHash(graph))
      << PrintInline(graph) << "\nagain:\n"
      << PrintInline(again->graph);
}

onnx::ModelProto PoolModel(const std::string& op, std::vector<int64_t> x_dims,
                           std::vector<int64_t> y_dims, std::vector<int64_t> kernel, std::vector<int64_t> strides,
                           std::vector<int64_t> pads, int64_t count_include_pad = 0) {
  onnx::NodeProto pool = MakeNode(op, {"x"}, {"y"}, "pool");
  AddIntsAttr(pool, "kernel_shape", kernel);
  AddIntsAttr(pool, "strides", strides);
  AddIntsAttr(pool, "pads", pads);
  AddIntAttr(pool, "ceil_mode", 1);
  if (count_include_pad != 0) AddIntAttr(pool, "count_include_pad", count_include_pad);
  return MakeModel({pool}, {{"x", onnx::TensorProto::FLOAT, x_dims}},
                   {{"y", onnx::TensorProto::FLOAT, y_dims}});
}

TEST(ImportArchOpsTest, MaxPoolCeilModeAddsTheLastWindow) {
  // W = 6, kernel 3, stride 2: floor gives 2 windows, ceil 3 ([3, 4] and padding).
  absl::StatusOr<ImportedModel> imported =
      Import(PoolModel("MaxPool", {1, 1, 1, 6}, {1, 1, 1, 3}, {1, 3}, {1, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("pads=[0,0,0,1]"));
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 1, 6}, {1, 5, 2, 8, -3, -4})}),
              ElementsAre(5, 8, -3));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, AveragePoolCeilModeDividesByTheRealTaps) {
  // timm's ResNet-D downsampling: kernel 2, stride 2, ceil_mode, over H = W = 3.
  absl::StatusOr<ImportedModel> imported =
      Import(PoolModel("AveragePool", {1, 1, 3, 3}, {1, 1, 2, 2}, {2, 2}, {2, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->graph.type(imported->graph.outputs()[0]).ToString(), "f32[1,1,2,2]");
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}),
              ElementsAre(3, 4.5, 7.5, 9));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, CeilModeDropsAWindowStartingInTheEndPadding) {
  // W = 5 padded 1 + 1, kernel 2, stride 2: ceil((7 - 2) / 2) + 1 = 4 windows,
  // but the 4th would start at padded position 6, in the end padding: 3.
  absl::StatusOr<ImportedModel> imported =
      Import(PoolModel("MaxPool", {1, 1, 1, 5}, {1, 1, 1, 3}, {1, 2}, {1, 2}, {0, 1, 0, 1}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->graph.type(imported->graph.outputs()[0]).ToString(), "f32[1,1,1,3]");
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 1, 5}, {1, 2, 3, 4, 5})}),
              ElementsAre(1, 3, 5));
}

TEST(ImportArchOpsTest, CeilModeCountingAddedPaddingIsRefused) {
  absl::StatusOr<ImportedModel> imported =
      Import(PoolModel("AveragePool", {1, 1, 3, 3}, {1, 1, 2, 2}, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.status().message(),
              HasSubstr("ceil_mode=1 with count_include_pad=1 where a window passes the padding"));
  // Where ceil and floor agree, counting the padding is fine.
  absl::StatusOr<ImportedModel> agree =
      Import(PoolModel("AveragePool", {1, 1, 4, 4}, {1, 1, 2, 2}, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1));
  ASSERT_TRUE(agree.ok()) << agree.status();
  EXPECT_EQ(agree->graph.type(agree->graph.outputs()[0]).ToString(), "f32[1,1,2,2]");
}

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

TEST(ImportArchOpsTest, GatherElementsWithRunTimeIndices) {
  onnx::NodeProto node = MakeNode("GatherElements", {"data", "idx"}, {"y"}, "ge");
  AddIntAttr(node, "axis", 1);
  absl::StatusOr<ImportedModel> imported =
      Import(MakeModel({node}, {{"data", kF32, {2, 3}}, {"idx", kI64, {2, 2}}},
                       {{"y", kF32, {2, 2}}}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  // -1 counts from the end; 5 is out of range and gives 0.
  EXPECT_THAT(Eval(imported->graph,
                   {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Int64s({2, 2}, {0, -1, 2, 5})}),
              ElementsAre(1, 3, 6, 0));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, GatherElementsAlongAxis0WithNarrowerIndices) {
  // torch.gather's example: indices may be smaller than the data off the axis.
  onnx::NodeProto node = MakeNode("GatherElements", {"data", "idx"}, {"y"}, "ge");
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {3, 3}}}, {{"y", kF32, {2, 2}}},
                {Int64Tensor("idx", {2, 2}, {1, 2, 0, 1})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  // Known indices in range: no range check is left in the graph.
  EXPECT_THAT(PrintInline(imported->graph), Not(HasSubstr("where")));
  EXPECT_THAT(Eval(imported->graph, {Floats({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}),
              ElementsAre(4, 8, 1, 5));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, GatherElementsOfConstantsFolds) {
  // BERT's buffered token_type_ids gathered by position ids: all known.
  onnx::NodeProto node = MakeNode("GatherElements", {"data", "idx"}, {"t"}, "ge");
  AddIntAttr(node, "axis", 1);
  onnx::NodeProto add = MakeNode("Add", {"x", "t"}, {"y"}, "add");
  absl::StatusOr<ImportedModel> imported = Import(MakeModel(
      {node, add}, {{"x", kI64, {1, 2}}}, {{"y", kI64, {1, 2}}},
      {Int64Tensor("data", {1, 4}, {7, 8, 9, 10}), Int64Tensor("idx", {1, 2}, {3, 1})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), Not(HasSubstr("gather")));
  EXPECT_THAT(Eval(imported->graph, {Int64s({1, 2}, {100, 200})}), ElementsAre(110, 208));
}

TEST(ImportArchOpsTest, GatherElementsRefusesWiderIndices) {
  onnx::NodeProto node = MakeNode("GatherElements", {"data", "idx"}, {"y"}, "ge");
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {3, 2}}, {"idx", kI64, {2, 3}}}, {{"y", kF32, {2, 3}}}));
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(),
              HasSubstr("GatherElements node 'ge': indices i64[2,3] exceed data f32[3,2] in dim 1"));
}

TEST(ImportArchOpsTest, GatherND) {
  onnx::NodeProto node = MakeNode("GatherND", {"data", "idx"}, {"y"}, "gnd");
  absl::StatusOr<ImportedModel> imported = Import(MakeModel(
      {node}, {{"data", kF32, {2, 2}}, {"idx", kI64, {3, 2}}}, {{"y", kF32, {3}}}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  // [1, 2] is out of range in its second coordinate only: 0, not data[2].
  EXPECT_THAT(Eval(imported->graph, {Floats({2, 2}, {0, 1, 2, 3}),
                                     Int64s({3, 2}, {0, 0, -1, -1, 0, 2})}),
              ElementsAre(0, 3, 0));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, GatherNDWithBatchDimsGathersSlices) {
  onnx::NodeProto node = MakeNode("GatherND", {"data", "idx"}, {"y"}, "gnd");
  AddIntAttr(node, "batch_dims", 1);
  absl::StatusOr<ImportedModel> imported = Import(MakeModel(
      {node}, {{"data", kF32, {2, 2, 2}}, {"idx", kI64, {2, 1}}}, {{"y", kF32, {2, 2}}}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph,
                   {Floats({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), Int64s({2, 1}, {1, 0})}),
              ElementsAre(2, 3, 4, 5));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, ScatterNDWritesRows) {
  onnx::NodeProto node = MakeNode("ScatterND", {"data", "idx", "upd"}, {"y"}, "snd");
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {4, 2}}, {"upd", kF32, {2, 2}}}, {{"y", kF32, {4, 2}}},
                {Int64Tensor("idx", {2, 1}, {1, -1})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({4, 2}, {10, 11, 12, 13, 14, 15, 16, 17}),
                                     Floats({2, 2}, {1, 2, 3, 4})}),
              ElementsAre(10, 11, 1, 2, 14, 15, 3, 4));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, ScatterNDDuplicateIndicesLastWriteWins) {
  onnx::NodeProto node = MakeNode("ScatterND", {"data", "idx", "upd"}, {"y"}, "snd");
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {3}}, {"upd", kF32, {3}}}, {{"y", kF32, {3}}},
                {Int64Tensor("idx", {3, 1}, {2, 0, 2})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({3}, {7, 8, 9}), Floats({3}, {1, 2, 3})}),
              ElementsAre(2, 8, 3));
}

TEST(ImportArchOpsTest, ScatterNDRefusesWhatItCannotLower) {
  onnx::NodeProto node = MakeNode("ScatterND", {"data", "idx", "upd"}, {"y"}, "snd");
  absl::StatusOr<ImportedModel> dynamic = Import(MakeModel(
      {node}, {{"data", kF32, {3}}, {"idx", kI64, {1, 1}}, {"upd", kF32, {1}}},
      {{"y", kF32, {3}}}));
  ASSERT_FALSE(dynamic.ok());
  EXPECT_THAT(dynamic.status().message(),
              HasSubstr("indices computed at run time (input 'idx' is not known at import)"));
  onnx::NodeProto add = node;
  AddStringAttr(add, "reduction", "add");
  absl::StatusOr<ImportedModel> reduce =
      Import(MakeModel({add}, {{"data", kF32, {3}}, {"upd", kF32, {1}}}, {{"y", kF32, {3}}},
                       {Int64Tensor("idx", {1, 1}, {0})}));
  ASSERT_FALSE(reduce.ok());
  EXPECT_THAT(reduce.status().message(), HasSubstr("reduction 'add' is not supported"));
  absl::StatusOr<ImportedModel> range =
      Import(MakeModel({node}, {{"data", kF32, {3}}, {"upd", kF32, {1}}}, {{"y", kF32, {3}}},
                       {Int64Tensor("idx", {1, 1}, {3})}));
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("index 3 is out of range for a dim of 3"));
}

TEST(ImportArchOpsTest, ScatterElements) {
  // ONNX's example along axis 1.
  onnx::NodeProto node = MakeNode("ScatterElements", {"data", "idx", "upd"}, {"y"}, "se");
  AddIntAttr(node, "axis", 1);
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {1, 5}}, {"upd", kF32, {1, 2}}}, {{"y", kF32, {1, 5}}},
                {Int64Tensor("idx", {1, 2}, {1, -2})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 5}, {1, 2, 3, 4, 5}), Floats({1, 2}, {0.5, 2.5})}),
              ElementsAre(1, 0.5, 3, 2.5, 5));
  ExpectRoundTrip(imported->graph);
}

}  // namespace
}  // namespace rk::compiler::onnx_io
