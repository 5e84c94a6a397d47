// The converters real architectures need, continued (import_arch_ops_test.cc
// has the first part): Resize, ConvTranspose, 1-D and 3-D pooling, TopK and
// 3-D Conv; small models built with the ONNX classes, imported, evaluated with
// the reference interpreter against hand-computed values, exported and
// imported again.
#include <limits>
#include <string>
#include <vector>

#include "compiler/onnx/arch_ops_test_util.h"
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using arch_test::kF32;
using arch_test::kI64;

onnx::ModelProto ResizeModel(std::vector<int64_t> x_dims, std::vector<float> scales,
                             std::vector<int64_t> y_dims, const std::string& mode,
                             const std::string& transform, const std::string& nearest = "") {
  onnx::NodeProto node = MakeNode("Resize", {"x", "", "scales"}, {"y"}, "resize");
  AddStringAttr(node, "mode", mode);
  AddStringAttr(node, "coordinate_transformation_mode", transform);
  if (!nearest.empty()) AddStringAttr(node, "nearest_mode", nearest);
  return MakeModel({node}, {{"x", kF32, x_dims}}, {{"y", kF32, y_dims}},
                   {FloatTensor("scales", {static_cast<int64_t>(scales.size())}, scales)});
}

TEST(ImportArchOpsTest, ResizeNearestAsTorchUpsamples) {
  // nn.Upsample(scale_factor=2): asymmetric coordinates, floor.
  absl::StatusOr<ImportedModel> imported = Import(
      ResizeModel({1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 4, 4}, "nearest", "asymmetric", "floor"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 2, 2}, {1, 2, 3, 4})}),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  ExpectRoundTrip(imported->graph);
}

TEST(ImportArchOpsTest, ResizeLinearCoordinateModes) {
  // half_pixel: sources -0.25, 0.25, 0.75, 1.25, clamped into [0, 1].
  absl::StatusOr<ImportedModel> half =
      Import(ResizeModel({1, 1, 1, 2}, {1, 1, 1, 2}, {1, 1, 1, 4}, "linear", "half_pixel"));
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_THAT(Eval(half->graph, {Floats({1, 1, 1, 2}, {1, 3})}), ElementsAre(1, 1.5, 2.5, 3));
  ExpectRoundTrip(half->graph);
  // align_corners, 2 -> 3 through sizes: sources 0, 0.5, 1.
  onnx::NodeProto node = MakeNode("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
  AddStringAttr(node, "mode", "linear");
  AddStringAttr(node, "coordinate_transformation_mode", "align_corners");
  absl::StatusOr<ImportedModel> corners =
      Import(MakeModel({node}, {{"x", kF32, {1, 2}}}, {{"y", kF32, {1, 3}}},
                       {Int64Tensor("sizes", {2}, {1, 3})}));
  ASSERT_TRUE(corners.ok()) << corners.status();
  EXPECT_THAT(Eval(corners->graph, {Floats({1, 2}, {1, 3})}), ElementsAre(1, 2, 3));
}

TEST(ImportArchOpsTest, ResizeRefusesCropAndResize) {
  absl::StatusOr<ImportedModel> imported = Import(
      ResizeModel({1, 2}, {1, 2}, {1, 4}, "linear", "tf_crop_and_resize"));
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("tf_crop_and_resize is not supported"));
}

TEST(ImportArchOpsTest, ConvTranspose1DStridesPadsAndOutputPadding) {
  auto model = [](std::vector<int64_t> pads, int64_t out_pad, int64_t length) {
    onnx::NodeProto node = MakeNode("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
    AddIntsAttr(node, "strides", {2});
    AddIntsAttr(node, "pads", pads);
    if (out_pad != 0) AddIntsAttr(node, "output_padding", {out_pad});
    return MakeModel({node}, {{"x", kF32, {1, 1, 3}}}, {{"y", kF32, {1, 1, length}}},
                     {FloatTensor("w", {1, 1, 2}, {1, 10})});
  };
  // y[2 i + k] += x[i] * w[k].
  absl::StatusOr<ImportedModel> plain = Import(model({0, 0}, 0, 6));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(Eval(plain->graph, {Floats({1, 1, 3}, {1, 2, 3})}),
              ElementsAre(1, 10, 2, 20, 3, 30));
  ExpectRoundTrip(plain->graph);
  absl::StatusOr<ImportedModel> padded = Import(model({1, 0}, 1, 6));
  ASSERT_TRUE(padded.ok()) << padded.status();
  EXPECT_THAT(Eval(padded->graph, {Floats({1, 1, 3}, {1, 2, 3})}),
              ElementsAre(10, 2, 20, 3, 30, 0));
}

TEST(ImportArchOpsTest, ConvTransposeOutputShapeSetsThePads) {
  // Full output 6 ([1, 10, 2, 20, 3, 30]); output_shape 5 trims one at the
  // start (the odd one of the total goes first unless SAME_UPPER).
  onnx::NodeProto node = MakeNode("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  AddIntsAttr(node, "strides", {2});
  AddIntsAttr(node, "output_shape", {5});
  absl::StatusOr<ImportedModel> imported =
      Import(MakeModel({node}, {{"x", kF32, {1, 1, 3}}}, {{"y", kF32, {1, 1, 5}}},
                       {FloatTensor("w", {1, 1, 2}, {1, 10})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 3}, {1, 2, 3})}),
              ElementsAre(10, 2, 20, 3, 30));
}

TEST(ImportArchOpsTest, ConvTranspose2DSwapsChannelsPerGroup) {
  onnx::NodeProto node = MakeNode("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
  absl::StatusOr<ImportedModel> imported = Import(MakeModel(
      {node}, {{"x", kF32, {1, 2, 1, 1}}}, {{"y", kF32, {1, 1, 2, 2}}},
      {FloatTensor("w", {2, 1, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}),
       FloatTensor("b", {1}, {0.5})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 2, 1, 1}, {1, 2})}),
              ElementsAre(21.5, 42.5, 63.5, 84.5));
  ExpectRoundTrip(imported->graph);
  onnx::NodeProto grouped = MakeNode("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  AddIntAttr(grouped, "group", 2);
  absl::StatusOr<ImportedModel> depthwise = Import(
      MakeModel({grouped}, {{"x", kF32, {1, 2, 1, 1}}}, {{"y", kF32, {1, 2, 1, 1}}},
                {FloatTensor("w", {2, 1, 1, 1}, {3, 5})}));
  ASSERT_TRUE(depthwise.ok()) << depthwise.status();
  EXPECT_THAT(Eval(depthwise->graph, {Floats({1, 2, 1, 1}, {1, 2})}), ElementsAre(3, 10));
}

TEST(ImportArchOpsTest, Pooling1DAnd3D) {
  onnx::NodeProto max1 = MakeNode("MaxPool", {"x"}, {"y"}, "pool");
  AddIntsAttr(max1, "kernel_shape", {2});
  AddIntsAttr(max1, "strides", {2});
  AddIntAttr(max1, "ceil_mode", 1);
  absl::StatusOr<ImportedModel> one =
      Import(MakeModel({max1}, {{"x", kF32, {1, 1, 5}}}, {{"y", kF32, {1, 1, 3}}}));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(Eval(one->graph, {Floats({1, 1, 5}, {1, 3, 2, 5, 4})}), ElementsAre(3, 5, 4));
  ExpectRoundTrip(one->graph);

  onnx::NodeProto max3 = MakeNode("MaxPool", {"x"}, {"y"}, "pool");
  AddIntsAttr(max3, "kernel_shape", {2, 1, 2});
  absl::StatusOr<ImportedModel> three =
      Import(MakeModel({max3}, {{"x", kF32, {1, 1, 2, 2, 2}}}, {{"y", kF32, {1, 1, 1, 2, 1}}}));
  ASSERT_TRUE(three.ok()) << three.status();
  // Over depth and width: max(1, 2, 5, 6) and max(3, 4, 7, 8).
  EXPECT_THAT(Eval(three->graph, {Floats({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
              ElementsAre(6, 8));
  ExpectRoundTrip(three->graph);

  onnx::NodeProto avg3 = MakeNode("AveragePool", {"x"}, {"y"}, "pool");
  AddIntsAttr(avg3, "kernel_shape", {2, 1, 3});
  AddIntsAttr(avg3, "pads", {1, 0, 1, 1, 0, 1});
  absl::StatusOr<ImportedModel> avg =
      Import(MakeModel({avg3}, {{"x", kF32, {1, 1, 1, 1, 2}}}, {{"y", kF32, {1, 1, 2, 1, 2}}}));
  ASSERT_TRUE(avg.ok()) << avg.status();
  // Real taps only: depth windows [pad, x] and [x, pad]; width [pad, 2, 4], [2, 4, pad].
  EXPECT_THAT(Eval(avg->graph, {Floats({1, 1, 1, 1, 2}, {2, 4})}), ElementsAre(3, 3, 3, 3));
}

// The first two outputs of `graph` on `inputs`.
std::vector<std::vector<double>> EvalBoth(const Graph& graph, std::vector<HostTensor> inputs) {
  absl::StatusOr<EvalResult> result = Evaluate(graph, inputs);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<std::vector<double>> out(2);
  for (int o = 0; result.ok() && o < 2; ++o) {
    for (int64_t i = 0; i < result->outputs[o].num_elements(); ++i) {
      out[o].push_back(result->outputs[o].GetDouble(i));
    }
  }
  return out;
}

onnx::ModelProto TopKModel(std::vector<int64_t> x_dims, int64_t k, int64_t axis,
                           int64_t largest, std::vector<int64_t> y_dims) {
  onnx::NodeProto node = MakeNode("TopK", {"x", "k"}, {"values", "indices"}, "topk");
  AddIntAttr(node, "axis", axis);
  AddIntAttr(node, "largest", largest);
  return MakeModel({node}, {{"x", kF32, x_dims}},
                   {{"values", kF32, y_dims}, {"indices", kI64, y_dims}},
                   {Int64Tensor("k", {1}, {k})});
}

TEST(ImportArchOpsTest, TopKLargestAndSmallestWithTies) {
  absl::StatusOr<ImportedModel> largest = Import(TopKModel({2, 4}, 3, 1, 1, {2, 3}));
  ASSERT_TRUE(largest.ok()) << largest.status();
  // Ties go to the lower index.
  std::vector<std::vector<double>> got =
      EvalBoth(largest->graph, {Floats({2, 4}, {1, 5, 5, 2, 0, -1, 3, 3})});
  EXPECT_THAT(got[0], ElementsAre(5, 5, 2, 3, 3, 0));
  EXPECT_THAT(got[1], ElementsAre(1, 2, 3, 2, 3, 0));
  ExpectRoundTrip(largest->graph);
  absl::StatusOr<ImportedModel> smallest = Import(TopKModel({4, 1}, 2, 0, 0, {2, 1}));
  ASSERT_TRUE(smallest.ok()) << smallest.status();
  got = EvalBoth(smallest->graph, {Floats({4, 1}, {4, 1, 3, 1})});
  EXPECT_THAT(got[0], ElementsAre(1, 1));
  EXPECT_THAT(got[1], ElementsAre(1, 3));
}

TEST(ImportArchOpsTest, TopKTellsMinusInfinityFromTakenPositions) {
  const double inf = std::numeric_limits<double>::infinity();
  absl::StatusOr<ImportedModel> imported = Import(TopKModel({3}, 3, 0, 1, {3}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::vector<std::vector<double>> got = EvalBoth(imported->graph, {Floats({3}, {-inf, 2, -inf})});
  EXPECT_THAT(got[0], ElementsAre(2, -inf, -inf));
  EXPECT_THAT(got[1], ElementsAre(1, 0, 2));
}

TEST(ImportArchOpsTest, Conv3DSumsDepthTaps) {
  // x [1,1,3,1,2] (depth 3), w [2,1,2,1,1]: output channel o at depth d is
  // w[o,0] * x[d] + w[o,1] * x[d + 1], strided by 2 after a depth pad of 1
  // at the end: depths 0 and 2 (the last reads the padding).
  onnx::NodeProto node = MakeNode("Conv", {"x", "w", "b"}, {"y"}, "conv");
  AddIntsAttr(node, "strides", {2, 1, 1});
  AddIntsAttr(node, "pads", {0, 0, 0, 1, 0, 0});
  absl::StatusOr<ImportedModel> imported = Import(MakeModel(
      {node}, {{"x", kF32, {1, 1, 3, 1, 2}}}, {{"y", kF32, {1, 2, 2, 1, 2}}},
      {FloatTensor("w", {2, 1, 2, 1, 1}, {1, 10, 2, -1}), FloatTensor("b", {2}, {0, 100})}));
  ASSERT_TRUE(imported.ok()) << imported.status();
  // x depths: [1, 2], [3, 4], [5, 6].
  EXPECT_THAT(Eval(imported->graph, {Floats({1, 1, 3, 1, 2}, {1, 2, 3, 4, 5, 6})}),
              ElementsAre(31, 42, 5, 6, 99, 100, 110, 112));
  ExpectRoundTrip(imported->graph);
}

}  // namespace
}  // namespace rk::compiler::onnx_io
