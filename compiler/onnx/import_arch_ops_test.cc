// The converters real architectures need (import_pool_ceil.cc,
// import_indexing.cc, import_einsum.cc, import_control.cc): small models
// built with the ONNX classes, imported, evaluated with the reference
// interpreter against hand-computed values, exported and imported again
// (import_arch_shape_ops_test.cc has the rest: Resize, ConvTranspose, 1-D/3-D
// pooling, TopK, 3-D Conv).
#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/arch_ops_test_util.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_test_util.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using arch_test::AddStringAttr;
using arch_test::Eval;
using arch_test::ExpectRoundTrip;
using arch_test::Floats;
using arch_test::Import;
using arch_test::Int64s;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

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

using arch_test::kF32;
using arch_test::kI64;

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
  // ONNX makes an index out of range an error: the reference reports it,
  // also where the flat position would be in range (3 in row 0 is flat 3).
  absl::StatusOr<EvalResult> result = Evaluate(
      imported->graph, {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Int64s({2, 2}, {3, -1, 2, 1})});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->undefined.has_value());
  EXPECT_THAT(result->undefined->Message(), HasSubstr("gather index"));
  EXPECT_EQ(result->outputs[0].GetDouble(0), 0);
  result = Evaluate(imported->graph,
                    {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Int64s({2, 2}, {0, -1, 2, 1})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->undefined.has_value());
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
              HasSubstr("input 1 ('idx') must be a constant"));
  onnx::NodeProto odd = node;
  AddStringAttr(odd, "reduction", "xor");
  absl::StatusOr<ImportedModel> reduce =
      Import(MakeModel({odd}, {{"data", kF32, {3}}, {"upd", kF32, {1}}}, {{"y", kF32, {3}}},
                       {Int64Tensor("idx", {1, 1}, {0})}));
  ASSERT_FALSE(reduce.ok());
  EXPECT_THAT(reduce.status().message(), HasSubstr("reduction 'xor' is not supported"));
  absl::StatusOr<ImportedModel> range =
      Import(MakeModel({node}, {{"data", kF32, {3}}, {"upd", kF32, {1}}}, {{"y", kF32, {3}}},
                       {Int64Tensor("idx", {1, 1}, {3})}));
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("index 3 is out of range for a dim of 3"));
}

TEST(ImportArchOpsTest, ScatterNDAddCombinesDuplicatesInOrder) {
  onnx::NodeProto node = MakeNode("ScatterND", {"data", "idx", "upd"}, {"y"}, "snd");
  AddStringAttr(node, "reduction", "add");
  absl::StatusOr<ImportedModel> imported = Import(
      MakeModel({node}, {{"data", kF32, {3}}, {"upd", kF32, {3}}}, {{"y", kF32, {3}}},
                {Int64Tensor("idx", {3, 1}, {2, 0, 2})}, 16));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({3}, {7, 8, 9}), Floats({3}, {1, 2, 3})}),
              ElementsAre(9, 8, 13)) << PrintInline(imported->graph);
  ExpectRoundTrip(imported->graph);
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

onnx::ModelProto EinsumModel(const std::string& equation, std::vector<ValueSpec> inputs,
                             std::vector<int64_t> out) {
  std::vector<std::string> names;
  for (const ValueSpec& v : inputs) names.push_back(v.name);
  onnx::NodeProto node = MakeNode("Einsum", names, {"y"}, "einsum");
  AddStringAttr(node, "equation", equation);
  return MakeModel({node}, std::move(inputs), {{"y", kF32, std::move(out)}});
}

TEST(ImportArchOpsTest, EinsumBatchedMatmulWithTransposedResult) {
  // Attention scores as exporters write them: bhid,bhjd->bhij, here with
  // the result's labels in another order.
  absl::StatusOr<ImportedModel> imported = Import(
      EinsumModel("bid,bjd->bji", {{"a", kF32, {2, 1, 2}}, {"b", kF32, {2, 3, 2}}}, {2, 3, 1}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("matmul"));
  // a[b] = [1, 2], [3, 4]; b rows: [1,0],[0,1],[1,1] and [2,0],[0,2],[1,-1].
  EXPECT_THAT(Eval(imported->graph, {Floats({2, 1, 2}, {1, 2, 3, 4}),
                                     Floats({2, 3, 2}, {1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 1, -1})}),
              ElementsAre(1, 2, 3, 6, 8, -1));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, EinsumSumsTransposesAndOuterProducts) {
  absl::StatusOr<ImportedModel> sum =
      Import(EinsumModel("ij->i", {{"a", kF32, {2, 3}}}, {2}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(Eval(sum->graph, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}), ElementsAre(6, 15));
  // Implicit output: the letters used once, sorted (ji -> ij, a transpose).
  absl::StatusOr<ImportedModel> transpose =
      Import(EinsumModel("ji", {{"a", kF32, {2, 3}}}, {3, 2}));
  ASSERT_TRUE(transpose.ok()) << transpose.status();
  EXPECT_THAT(Eval(transpose->graph, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  absl::StatusOr<ImportedModel> outer =
      Import(EinsumModel("i,j->ij", {{"a", kF32, {2}}, {"b", kF32, {3}}}, {2, 3}));
  ASSERT_TRUE(outer.ok()) << outer.status();
  EXPECT_THAT(Eval(outer->graph, {Floats({2}, {1, 2}), Floats({3}, {1, 10, 100})}),
              ElementsAre(1, 10, 100, 2, 20, 200));
  // Inner product, and a label summed in one operand only (k).
  absl::StatusOr<ImportedModel> inner =
      Import(EinsumModel("ik,i->", {{"a", kF32, {2, 2}}, {"b", kF32, {2}}}, {}));
  ASSERT_TRUE(inner.ok()) << inner.status();
  EXPECT_THAT(Eval(inner->graph, {Floats({2, 2}, {1, 2, 3, 4}), Floats({2}, {1, 10})}),
              ElementsAre(73));
  ExpectRoundTrip(inner->graph);
}

TEST(ImportArchOpsTest, EinsumEllipsisAndThreeOperands) {
  absl::StatusOr<ImportedModel> ell = Import(EinsumModel(
      "...ij,...jk->...ik", {{"a", kF32, {2, 1, 2}}, {"b", kF32, {2, 2, 1}}}, {2, 1, 1}));
  ASSERT_TRUE(ell.ok()) << ell.status();
  EXPECT_THAT(Eval(ell->graph, {Floats({2, 1, 2}, {1, 2, 3, 4}), Floats({2, 2, 1}, {5, 6, 7, 8})}),
              ElementsAre(17, 53));
  absl::StatusOr<ImportedModel> three = Import(EinsumModel(
      "i,ij,j->", {{"a", kF32, {2}}, {"m", kF32, {2, 2}}, {"b", kF32, {2}}}, {}));
  ASSERT_TRUE(three.ok()) << three.status();
  // [1, 2] [[1, 2], [3, 4]] [1, 1]^T = 1*3 + 2*7 = 17.
  EXPECT_THAT(Eval(three->graph, {Floats({2}, {1, 2}), Floats({2, 2}, {1, 2, 3, 4}),
                                  Floats({2}, {1, 1})}),
              ElementsAre(17));
}

TEST(ImportArchOpsTest, EinsumRefusesDiagonalsAndBadEquations) {
  absl::StatusOr<ImportedModel> diagonal = Import(EinsumModel("ii->i", {{"a", kF32, {2, 2}}}, {2}));
  ASSERT_FALSE(diagonal.ok());
  EXPECT_THAT(diagonal.status().message(),
              HasSubstr("a label repeated in one term ('ii', a diagonal) is not supported"));
  absl::StatusOr<ImportedModel> rank = Import(EinsumModel("ijk->i", {{"a", kF32, {2, 2}}}, {2}));
  ASSERT_FALSE(rank.ok());
  EXPECT_THAT(rank.status().message(),
              HasSubstr("term 'ijk' has 3 labels for an operand of rank 2"));
}

// If(Equal(Shape(x)[0], 2)) { then: Relu(x) + c } else { Det(x) }, the
// branch outputs both 'r'; x: f32[n, 2].
onnx::ModelProto IfModel(int64_t n, bool dynamic_condition = false) {
  onnx::GraphProto then_branch;
  then_branch.set_name("then");
  *then_branch.add_node() = MakeNode("Relu", {"x"}, {"t"}, "then/relu");
  *then_branch.add_node() = MakeNode("Add", {"t", "c"}, {"r"}, "then/add");
  *then_branch.add_initializer() = FloatTensor("c", {}, {0.5f});
  *then_branch.add_output() = MakeValueInfo({"r", kF32, {n, 2}});
  onnx::GraphProto else_branch;
  else_branch.set_name("else");
  *else_branch.add_node() = MakeNode("Neg", {"x"}, {"e"}, "else/neg");
  *else_branch.add_node() = MakeNode("Det", {"e"}, {"r2"}, "else/det");
  *else_branch.add_output() = MakeValueInfo({"r2", kF32, {}, false});
  onnx::NodeProto shape = MakeNode("Shape", {"x"}, {"s"}, "shape");
  onnx::NodeProto first = MakeNode("Gather", {"s", "zero"}, {"n"}, "first");
  onnx::NodeProto eq = MakeNode("Equal", {dynamic_condition ? "k" : "n", "two"}, {"cond"}, "eq");
  onnx::NodeProto node = MakeNode("If", {"cond"}, {"y"}, "if");
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = then_branch;
  a = node.add_attribute();
  a->set_name("else_branch");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = else_branch;
  std::vector<ValueSpec> inputs = {{"x", kF32, {n, 2}}};
  if (dynamic_condition) inputs.push_back({"k", kI64, {}});
  return MakeModel({shape, first, eq, node}, inputs, {{"y", kF32, {n, 2}}},
                   {Int64Tensor("zero", {}, {0}), Int64Tensor("two", {}, {2})});
}

TEST(ImportArchOpsTest, IfWithAKnownConditionIsItsBranch) {
  absl::StatusOr<ImportedModel> imported = Import(IfModel(2));
  ASSERT_TRUE(imported.ok()) << imported.status();
  // The branch's nodes keep their names; the untaken branch (with an op
  // this build does not convert) is never looked at.
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("%then_add = add(%then_relu"));
  EXPECT_THAT(Eval(imported->graph, {Floats({2, 2}, {-1, 1, 2, -3})}),
              ElementsAre(0.5, 1.5, 2.5, 0.5));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, IfRefusesWhatItCannotFold) {
  // The taken branch holds Det.
  absl::StatusOr<ImportedModel> det = Import(IfModel(3));
  ASSERT_FALSE(det.ok());
  EXPECT_THAT(det.status().message(),
              HasSubstr("If node 'if': subgraph 'else' has node 'else/det' of op Det (opset 17), "
                        "which this build does not convert"));
  absl::StatusOr<ImportedModel> dynamic = Import(IfModel(2, true));
  ASSERT_FALSE(dynamic.ok());
  EXPECT_THAT(dynamic.status().message(), HasSubstr("input 0 ('cond') must be a constant"));
}

}  // namespace
}  // namespace rk::compiler::onnx_io
