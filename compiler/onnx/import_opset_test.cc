// The importer on models of IR 9 and 10 and opsets 18 to 21: each change of
// an op's meaning in those opsets (import_ops.cc lists them) converted and
// checked against values computed by hand from ONNX's operator documents,
// and the refusals around them (an op newer than the importer knows, a form
// from another opset).
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_test_util.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;

// A model as PyTorch 2.11's default exporter writes them: IR 10.
onnx::ModelProto Model(std::vector<onnx::NodeProto> nodes, std::vector<ValueSpec> inputs,
                       std::vector<ValueSpec> outputs, std::vector<onnx::TensorProto> inits,
                       int64_t opset) {
  onnx::ModelProto m = MakeModel(std::move(nodes), std::move(inputs), std::move(outputs),
                                 std::move(inits), opset);
  m.set_ir_version(10);
  return m;
}

// Through the bytes, the file checks and the importer, like a file.
absl::StatusOr<ImportedModel> Import(const onnx::ModelProto& model) {
  std::string bytes;
  model.SerializeToString(&bytes);
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "model.onnx");
  if (!parsed.ok()) return parsed.status();
  return ImportModel(*parsed);
}

HostTensor Floats(std::vector<int64_t> dims, std::vector<double> values) {
  HostTensor t(TensorType(DType::kF32, Shape(std::move(dims))));
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<double> Values(const HostTensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.GetDouble(i));
  return out;
}

// Imports `model` (which must succeed) and evaluates it on `inputs`.
std::vector<HostTensor> Evaluated(const onnx::ModelProto& model, std::vector<HostTensor> inputs) {
  absl::StatusOr<ImportedModel> imported = Import(model);
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return {};
  absl::StatusOr<EvalResult> result = Evaluate(imported->graph, inputs);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->outputs : std::vector<HostTensor>{};
}

// `checked`: through the file checks (ParseModel) first; without them, what
// the converters refuse themselves (ONNX's checker refuses opset <= 17
// forms too, but static builds have no checker).
std::string ImportError(const onnx::ModelProto& model, bool checked = true) {
  absl::StatusOr<ImportedModel> imported = checked ? Import(model) : ImportModel(model);
  EXPECT_FALSE(imported.ok());
  if (imported.ok()) return "";
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(imported.status().message());
}

TEST(ImportOpsetTest, ReadsIrVersion10AndRefusesNewer) {
  onnx::ModelProto m = Model({MakeNode("Relu", {"x"}, {"y"}, "relu")}, {{"x", kF32, {2}}},
                             {{"y", kF32, {2}}}, {}, 20);
  absl::StatusOr<ImportedModel> imported = Import(m);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->opset, 20);
  m.set_ir_version(11);
  EXPECT_THAT(ImportError(m), HasSubstr("ONNX IR version 11 is not supported (this build reads 3 to 10)"));
}

TEST(ImportOpsetTest, AnOpsetNewerThanKnownIsRefusedPerOp) {
  onnx::ModelProto m = Model({MakeNode("Relu", {"x"}, {"r"}, "relu"),
                              MakeNode("Neg", {"r"}, {"y"}, "neg")},
                             {{"x", kF32, {2}}}, {{"y", kF32, {2}}}, {}, 22);
  const std::string message = ImportError(m);
  EXPECT_THAT(message, HasSubstr("Relu (opset 22): this build knows Relu up to opset 21: 1 node, first 'relu'"));
  EXPECT_THAT(message, HasSubstr("Neg (opset 22): this build knows Neg up to opset 21"));
}

TEST(ImportOpsetTest, AnOpBeforeItsFirstOpsetIsRefused) {
  onnx::ModelProto m = Model({MakeNode("Gelu", {"x"}, {"y"}, "gelu")}, {{"x", kF32, {2}}},
                             {{"y", kF32, {2}}}, {}, 18);
  EXPECT_THAT(ImportError(m), HasSubstr("Gelu (opset 18): ai.onnx has Gelu from opset 20"));
}

TEST(ImportOpsetTest, ReduceAxesAreAnInputFromOpset18) {
  // ReduceMean over axis 1 of [[1,2,3],[4,5,9]].
  const HostTensor x = Floats({2, 3}, {1, 2, 3, 4, 5, 9});
  onnx::NodeProto mean = MakeNode("ReduceMean", {"x", "axes"}, {"y"}, "mean");
  AddIntAttr(mean, "keepdims", 0);
  onnx::ModelProto m = Model({mean}, {{"x", kF32, {2, 3}}}, {{"y", kF32, {2}}},
                             {Int64Tensor("axes", {1}, {1})}, 18);
  std::vector<HostTensor> out = Evaluated(m, {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{2, 6}));
  // The same node at opset 17 has one input.
  m.mutable_opset_import(0)->set_version(17);
  m.set_ir_version(8);
  EXPECT_THAT(ImportError(m, /*checked=*/false),
              HasSubstr("before opset 18 the axes are an attribute, not an input"));

  // The opset-17 form at opset 18.
  onnx::NodeProto old = MakeNode("ReduceMax", {"x"}, {"y"}, "max");
  AddIntsAttr(old, "axes", {1});
  EXPECT_THAT(ImportError(Model({old}, {{"x", kF32, {2, 3}}}, {{"y", kF32, {2, 1}}}, {}, 18)),
              HasSubstr("ReduceMax node 'max': from opset 18 the axes are input 1, not an attribute"));
  // ...which is right at 17.
  onnx::ModelProto at17 = Model({old}, {{"x", kF32, {2, 3}}}, {{"y", kF32, {2, 1}}}, {}, 17);
  out = Evaluated(at17, {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{3, 9}));
}

TEST(ImportOpsetTest, ReduceMaxAndMinTakeBoolFromOpset20) {
  onnx::NodeProto any = MakeNode("ReduceMax", {"b", "axes"}, {"y"}, "any");
  AddIntAttr(any, "keepdims", 0);
  onnx::NodeProto all = MakeNode("ReduceMin", {"b", "axes"}, {"z"}, "all");
  AddIntAttr(all, "keepdims", 0);
  onnx::ModelProto m =
      Model({any, all}, {{"b", onnx::TensorProto::BOOL, {2, 3}}},
            {{"y", onnx::TensorProto::BOOL, {2}}, {"z", onnx::TensorProto::BOOL, {2}}},
            {Int64Tensor("axes", {1}, {1})}, 20);
  HostTensor b(TensorType(DType::kBool, Shape({2, 3})));
  for (int i : {0, 3, 4, 5}) b.SetInt(i, 1);  // rows [1,0,0] and [1,1,1]
  std::vector<HostTensor> out = Evaluated(m, {b});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DType::kBool);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 1}));
  EXPECT_EQ(Values(out[1]), (std::vector<double>{0, 1}));
  m.mutable_opset_import(0)->set_version(19);
  EXPECT_THAT(ImportError(m, /*checked=*/false), HasSubstr("bool input before opset 20"));
}

TEST(ImportOpsetTest, ReduceWithoutAxesReducesAllOrNothingWithNoop) {
  const HostTensor x = Floats({2, 2}, {1, -2, 3, -4});
  onnx::NodeProto all = MakeNode("ReduceL1", {"x"}, {"y"}, "l1");
  AddIntAttr(all, "keepdims", 0);
  std::vector<HostTensor> out =
      Evaluated(Model({all}, {{"x", kF32, {2, 2}}}, {{"y", kF32, {}}}, {}, 18), {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{10}));

  onnx::NodeProto noop = MakeNode("ReduceSumSquare", {"x"}, {"y"}, "ss");
  AddIntAttr(noop, "noop_with_empty_axes", 1);
  out = Evaluated(Model({noop}, {{"x", kF32, {2, 2}}}, {{"y", kF32, {2, 2}}}, {}, 18), {x});
  ASSERT_EQ(out.size(), 1u);
  // Reduced over no axis: each element squared (ONNX Runtime's answer).
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 4, 9, 16}));
  onnx::NodeProto mean = MakeNode("ReduceMean", {"x"}, {"y"}, "mean");
  AddIntAttr(mean, "noop_with_empty_axes", 1);
  out = Evaluated(Model({mean}, {{"x", kF32, {2, 2}}}, {{"y", kF32, {2, 2}}}, {}, 18), {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, -2, 3, -4}));

  // An empty axes input is no axes.
  onnx::NodeProto l2 = MakeNode("ReduceL2", {"x", "axes"}, {"y"}, "l2");
  out = Evaluated(Model({l2}, {{"x", kF32, {2, 2}}}, {{"y", kF32, {1, 1}}},
                  {Int64Tensor("axes", {0}, {})}, 18),
            {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].GetDouble(0), std::sqrt(30.0), 1e-5);
}

TEST(ImportOpsetTest, SplitNumOutputsMakesTheLastPartSmaller) {
  std::vector<double> seven = {0, 1, 2, 3, 4, 5, 6};
  onnx::NodeProto split = MakeNode("Split", {"x"}, {"a", "b", "c"}, "split");
  AddIntAttr(split, "num_outputs", 3);
  onnx::ModelProto m = Model({split}, {{"x", kF32, {7}}},
                             {{"a", kF32, {3}}, {"b", kF32, {3}}, {"c", kF32, {1}}}, {}, 18);
  std::vector<HostTensor> out = Evaluated(m, {Floats({7}, seven)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(Values(out[1]), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(Values(out[2]), (std::vector<double>{6}));

  // 9 into 4: 3, 3, 3 and nothing (the rule as written); 5 into 4 leaves -1.
  onnx::NodeProto four = MakeNode("Split", {"x"}, {"a", "b", "c", "d"}, "four");
  AddIntAttr(four, "num_outputs", 4);
  out = Evaluated(Model({four}, {{"x", kF32, {9}}},
                  {{"a", kF32, {3}}, {"b", kF32, {3}}, {"c", kF32, {3}}, {"d", kF32, {0}}}, {}, 18),
            {Floats({9}, {0, 1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3].num_elements(), 0);
  EXPECT_THAT(ImportError(Model({four}, {{"x", kF32, {5}}},
                                {{"a", kF32, {}, false}, {"b", kF32, {}, false},
                                 {"c", kF32, {}, false}, {"d", kF32, {}, false}},
                                {}, 18)),
              HasSubstr("dim 5 into 4 parts of 2 leaves the last part -1 elements"));

  // Before opset 18: no num_outputs, and equal parts must be exact.
  onnx::ModelProto at17 = m;
  at17.mutable_opset_import(0)->set_version(17);
  EXPECT_THAT(ImportError(at17), HasSubstr("attribute 'num_outputs' is from opset 18"));
  onnx::NodeProto even = MakeNode("Split", {"x"}, {"a", "b", "c"}, "even");
  EXPECT_THAT(ImportError(Model({even}, {{"x", kF32, {7}}},
                                {{"a", kF32, {}, false}, {"b", kF32, {}, false},
                                 {"c", kF32, {}, false}},
                                {}, 17)),
              HasSubstr("dim 7 does not split into 3 equal parts (before opset 18 it must)"));
}

onnx::ModelProto PadModel(const std::string& mode, int64_t opset, bool axes_input) {
  std::vector<std::string> inputs = {"x", "pads"};
  if (axes_input) inputs = {"x", "pads", "", "axes"};
  onnx::NodeProto pad = MakeNode("Pad", inputs, {"y"}, "pad");
  onnx::AttributeProto* a = pad.add_attribute();
  a->set_name("mode");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(mode);
  std::vector<onnx::TensorProto> inits = {
      axes_input ? Int64Tensor("pads", {2}, {2, 3}) : Int64Tensor("pads", {4}, {0, 2, 0, 3})};
  if (axes_input) inits.push_back(Int64Tensor("axes", {1}, {1}));
  return Model({pad}, {{"x", kF32, {1, 4}}}, {{"y", kF32, {1, 9}}}, inits, opset);
}

TEST(ImportOpsetTest, PadModesAndTheAxesInput) {
  const HostTensor x = Floats({1, 4}, {1, 2, 3, 4});
  struct Case {
    const char* mode;
    std::vector<double> expected;
  };
  for (const Case& c : {Case{"reflect", {3, 2, 1, 2, 3, 4, 3, 2, 1}},
                        Case{"edge", {1, 1, 1, 2, 3, 4, 4, 4, 4}},
                        Case{"wrap", {3, 4, 1, 2, 3, 4, 1, 2, 3}},
                        Case{"constant", {0, 0, 1, 2, 3, 4, 0, 0, 0}}}) {
    for (bool axes : {false, true}) {
      SCOPED_TRACE(absl::StrCat(c.mode, axes ? " with axes" : ""));
      std::vector<HostTensor> out = Evaluated(PadModel(c.mode, 19, axes), {x});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(Values(out[0]), c.expected);
    }
  }
  // wrap is opset 19's, the axes input opset 18's.
  EXPECT_THAT(ImportError(PadModel("wrap", 18, false)), HasSubstr("mode 'wrap' (opset 18) is not supported"));
  onnx::ModelProto old_axes = PadModel("constant", 17, true);
  old_axes.set_ir_version(8);
  EXPECT_THAT(ImportError(old_axes, /*checked=*/false), HasSubstr("input 3 (axes) is from opset 18"));
}

TEST(ImportOpsetTest, GeluIsTheExactGeluOrItsTanhForm) {
  onnx::NodeProto exact = MakeNode("Gelu", {"x"}, {"y"}, "gelu");
  onnx::ModelProto m = Model({exact}, {{"x", kF32, {3}}}, {{"y", kF32, {3}}}, {}, 20);
  absl::StatusOr<ImportedModel> imported = Import(m);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(PrintInline(imported->graph), HasSubstr("= gelu(%x)"));

  onnx::NodeProto tanh = exact;
  onnx::AttributeProto* a = tanh.add_attribute();
  a->set_name("approximate");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("tanh");
  const std::vector<double> xs = {-1.5, 0.25, 2.0};
  std::vector<HostTensor> out =
      Evaluated(Model({tanh}, {{"x", kF32, {3}}}, {{"y", kF32, {3}}}, {}, 20), {Floats({3}, xs)});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 3; ++i) {
    const double v = xs[i];
    const double expected =
        0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    EXPECT_NEAR(out[0].GetDouble(i), expected, 1e-6) << v;
  }
  a->set_s("sigmoid");
  EXPECT_THAT(ImportError(Model({tanh}, {{"x", kF32, {3}}}, {{"y", kF32, {3}}}, {}, 20)),
              HasSubstr("approximate must be 'none' or 'tanh', not 'sigmoid'"));
}

TEST(ImportOpsetTest, MishFromOpset18) {
  const std::vector<double> xs = {-2, 0.5, 3};
  std::vector<HostTensor> out =
      Evaluated(Model({MakeNode("Mish", {"x"}, {"y"}, "mish")}, {{"x", kF32, {3}}}, {{"y", kF32, {3}}},
                {}, 18),
          {Floats({3}, xs)});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(out[0].GetDouble(i), xs[i] * std::tanh(std::log1p(std::exp(xs[i]))), 1e-6);
  }
}

// x: [1, 4, 2] = channels (1,3), (2,6), (0,4), (8,8); 2 groups of 2 channels.
std::vector<double> GroupNormExpected(const std::vector<double>& x,
                                      const std::vector<double>& channel_scale,
                                      const std::vector<double>& channel_bias) {
  std::vector<double> out(8);
  for (int g = 0; g < 2; ++g) {
    double mean = 0, var = 0;
    for (int k = 0; k < 4; ++k) mean += x[4 * g + k] / 4;
    for (int k = 0; k < 4; ++k) var += (x[4 * g + k] - mean) * (x[4 * g + k] - mean) / 4;
    for (int k = 0; k < 4; ++k) {
      const int channel = 2 * g + k / 2;
      out[4 * g + k] = (x[4 * g + k] - mean) / std::sqrt(var + 1e-5) * channel_scale[channel] +
                       channel_bias[channel];
    }
  }
  return out;
}

TEST(ImportOpsetTest, GroupNormalizationScalesPerGroupIn18AndPerChannelFrom21) {
  const std::vector<double> x = {1, 3, 2, 6, 0, 4, 8, 8};
  onnx::NodeProto gn = MakeNode("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn");
  AddIntAttr(gn, "num_groups", 2);
  // Opset 18: one scale and bias per group.
  std::vector<HostTensor> out = Evaluated(
      Model({gn}, {{"x", kF32, {1, 4, 2}}}, {{"y", kF32, {1, 4, 2}}},
            {FloatTensor("scale", {2}, {2, -1}), FloatTensor("bias", {2}, {0.5, 1})}, 18),
      {Floats({1, 4, 2}, x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expected = GroupNormExpected(x, {2, 2, -1, -1}, {0.5, 0.5, 1, 1});
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out[0].GetDouble(i), expected[i], 1e-5) << i;
  // Opset 21: one per channel.
  out = Evaluated(Model({gn}, {{"x", kF32, {1, 4, 2}}}, {{"y", kF32, {1, 4, 2}}},
                        {FloatTensor("scale", {4}, {2, 3, -1, 0.5}),
                         FloatTensor("bias", {4}, {0.5, 0, 1, -2})},
                        21),
                  {Floats({1, 4, 2}, x)});
  ASSERT_EQ(out.size(), 1u);
  expected = GroupNormExpected(x, {2, 3, -1, 0.5}, {0.5, 0, 1, -2});
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out[0].GetDouble(i), expected[i], 1e-5) << i;
  // The other opset's parameters are refused.
  EXPECT_THAT(ImportError(Model({gn}, {{"x", kF32, {1, 4, 2}}}, {{"y", kF32, {1, 4, 2}}},
                                {FloatTensor("scale", {2}, {2, -1}), FloatTensor("bias", {2}, {0, 1})},
                                21)),
              HasSubstr("scale and bias need 4 values (one per channel from opset 21), got f32[2]"));
  EXPECT_THAT(ImportError(Model({gn}, {{"x", kF32, {1, 4, 2}}}, {{"y", kF32, {1, 4, 2}}},
                                {FloatTensor("scale", {4}, {1, 1, 1, 1}),
                                 FloatTensor("bias", {4}, {0, 0, 0, 0})},
                                18)),
              HasSubstr("scale and bias need 2 values (one per group in opset 18), got f32[4]"));
  EXPECT_THAT(ImportError(Model({gn}, {{"x", kF32, {1, 4, 2}}}, {{"y", kF32, {1, 4, 2}}},
                                {FloatTensor("scale", {2}, {1, 1}), FloatTensor("bias", {2}, {0, 0})},
                                17)),
              HasSubstr("ai.onnx has GroupNormalization from opset 18"));
}

TEST(ImportOpsetTest, CastSaturateIsAnOpset19Attribute) {
  onnx::NodeProto cast = MakeNode("Cast", {"x"}, {"y"}, "cast");
  AddIntAttr(cast, "to", onnx::TensorProto::FLOAT16);
  AddIntAttr(cast, "saturate", 1);
  onnx::ModelProto m =
      Model({cast}, {{"x", kF32, {2}}}, {{"y", onnx::TensorProto::FLOAT16, {2}}}, {}, 19);
  absl::StatusOr<ImportedModel> imported = Import(m);
  ASSERT_TRUE(imported.ok()) << imported.status();
  m.mutable_opset_import(0)->set_version(18);
  EXPECT_THAT(ImportError(m), HasSubstr("attribute 'saturate' is from opset 19"));
}

TEST(ImportOpsetTest, ADeclaredStaticOutputShapeMustHold) {
  onnx::ModelProto m = Model({MakeNode("Relu", {"x"}, {"y"}, "relu")}, {{"x", kF32, {2, 3}}},
                             {{"y", kF32, {3, 2}}}, {}, 20);
  EXPECT_THAT(ImportError(m), HasSubstr("output 'y' is declared [3,2], its ops make f32[2,3]"));
  // Symbolic output dims are not compared.
  onnx::ModelProto symbolic = Model({MakeNode("Relu", {"x"}, {"y"}, "relu")},
                                    {{"x", kF32, {2, 3}}}, {{"y", kF32, {-1, 3}}}, {}, 20);
  EXPECT_TRUE(Import(symbolic).ok());
}

TEST(ImportOpsetTest, AStaticValueInfoMustMatchTheConversion) {
  onnx::ModelProto m = Model({MakeNode("Relu", {"x"}, {"r"}, "node_relu"),
                              MakeNode("Neg", {"r"}, {"y"}, "node_neg")},
                             {{"x", kF32, {2, 3}}}, {{"y", kF32, {2, 3}}}, {}, 20);
  *m.mutable_graph()->add_value_info() = MakeValueInfo({"r", kF32, {2, 3}});
  EXPECT_TRUE(Import(m).ok()) << Import(m).status();
  *m.mutable_graph()->mutable_value_info(0) = MakeValueInfo({"r", onnx::TensorProto::DOUBLE, {2, 3}});
  EXPECT_THAT(ImportError(m),
              HasSubstr("Relu node 'node_relu': output 0 ('r') is declared f64[2,3] (value_info), "
                        "the conversion made f32[2,3]"));
  // Symbolic dims are not compared.
  *m.mutable_graph()->mutable_value_info(0) = MakeValueInfo({"r", kF32, {-1, 3}});
  EXPECT_TRUE(Import(m).ok());
}

}  // namespace
}  // namespace rk::compiler::onnx_io
