#include "compiler/onnx/exporter.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/algorithm/container.h"
#include "absl/strings/str_join.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/reference/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/shape_inference/implementation.h"

namespace rk::compiler::onnx_io {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Graph> RoundTrip(const Graph& graph) {
  absl::StatusOr<onnx::ModelProto> model = ExportModel(graph);
  if (!model.ok()) return model.status();
  std::string bytes;
  model->SerializeToString(&bytes);
  // Through the file checks (parse, IR version, ONNX's checker) as a user's
  // file would go.
  absl::StatusOr<onnx::ModelProto> parsed = ParseModel(bytes, "exported.onnx");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<ImportedModel> imported = ImportModel(*parsed);
  if (!imported.ok()) return imported.status();
  return std::move(imported->graph);
}

// The reference interpreter gives `a` and `b` the same values on the same
// seeded inputs, within what the exported decompositions and f32 attributes
// (ONNX stores float attributes in 32 bits) can change.
void ExpectSameValues(const Graph& a, const Graph& b) {
  const std::vector<HostTensor> inputs = SeededInputs(a, 7);
  absl::StatusOr<EvalResult> ra = Evaluate(a, inputs);
  absl::StatusOr<EvalResult> rb = Evaluate(b, inputs);
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(rb.ok()) << rb.status();
  ASSERT_EQ(ra->outputs.size(), rb->outputs.size());
  // A decomposed composite rounds its 16-bit intermediates where the
  // composite rounded once: judge every output at the graph's lowest precision.
  bool low_precision = false;
  for (const Node& n : a.nodes()) low_precision |= IsLowPrecision(n.type.dtype);
  for (size_t o = 0; o < ra->outputs.size(); ++o) {
    ASSERT_EQ(ra->outputs[o].type(), rb->outputs[o].type()) << "output " << o;
    const DType dtype = ra->outputs[o].dtype();
    const double tol = low_precision ? 5e-2 : dtype == DType::kF64 ? 1e-6 : 1e-4;
    for (int64_t i = 0; i < ra->outputs[o].num_elements(); ++i) {
      const double x = ra->outputs[o].GetDouble(i), y = rb->outputs[o].GetDouble(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (!IsFloat(dtype)) {
        ASSERT_EQ(x, y) << "output " << o << " element " << i;
      } else {
        ASSERT_NEAR(x, y, tol * (1 + std::abs(x))) << "output " << o << " element " << i;
      }
    }
  }
}

std::filesystem::path ExamplesDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "examples";
  return std::filesystem::path(srcdir) / workspace / "examples";
}

// ONNX's type and shape inference with type checks on, every error thrown:
// what ONNX Runtime runs when it loads a model ("This is an invalid model.
// Type Error: ..."), which ONNX's checker alone does not (it checks
// structure, not type constraints). The inferred output types must also be
// the declared ones.
absl::Status StrictTypeCheck(const onnx::ModelProto& exported) {
  onnx::ModelProto model = exported;
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type_val=*/true,
                                                                   /*strict_mode_val=*/1));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return absl::OkStatus();
}

std::vector<std::string> OpTypes(const onnx::ModelProto& model) {
  std::vector<std::string> types;
  for (const onnx::NodeProto& n : model.graph().node()) types.push_back(n.op_type());
  return types;
}

TEST(ExporterTest, ExamplesExportCheckAndKeepTheirValues) {
  int exported = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ExamplesDir())) {
    if (entry.path().extension() != ".rk") continue;
    SCOPED_TRACE(entry.path().string());
    absl::StatusOr<Graph> graph = ParseFile(entry.path().string());
    ASSERT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Graph> back = RoundTrip(*graph);
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSameValues(*graph, *back);
    // Import -> export -> import is a fixed point.
    absl::StatusOr<Graph> again = RoundTrip(*back);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(CanonicalHash(*again), CanonicalHash(*back))
        << PrintInline(*back) << "\nvs\n" << PrintInline(*again);
    ++exported;
  }
  EXPECT_GE(exported, 5);
}

TEST(ExporterTest, RandomGraphsRoundTrip) {
  generator::GeneratorOptions options;
  options.nodes = 12;
  options.max_elements = 256;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE(seed);
    absl::StatusOr<generator::GeneratedGraph> generated = generator::Generate(seed, options);
    ASSERT_TRUE(generated.ok()) << generated.status();
    const Graph& graph = generated->graph;
    absl::StatusOr<Graph> back = RoundTrip(graph);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << PrintInline(graph);
    SCOPED_TRACE(PrintInline(graph));
    ExpectSameValues(graph, *back);
    absl::StatusOr<Graph> again = RoundTrip(*back);
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ(CanonicalHash(*again), CanonicalHash(*back))
        << PrintInline(*back) << "\nvs\n" << PrintInline(*again);
  }
}

// The check above catches what ONNX Runtime rejects: Less on bool, as the
// exporter wrote it before it had carriers.
TEST(ExporterTest, StrictTypeCheckRejectsLessOnBool) {
  absl::StatusOr<Graph> graph = Parse(
      "graph @g(%a: bool[6], %b: bool[6]) {\n  %y = eq(%a, %b) : bool[6]\n  return %y\n}\n");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<onnx::ModelProto> model = ExportModel(*graph);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(StrictTypeCheck(*model).ok());
  model->mutable_graph()->mutable_node(0)->set_op_type("Less");
  EXPECT_THAT(StrictTypeCheck(*model).message(), HasSubstr("tensor(bool)"));
}

// Every dtype the generator makes (mixed dtypes: bool comparisons, bf16
// windows, ...) exports to a model that passes ONNX's type constraints.
TEST(ExporterTest, RandomGraphsPassOnnxTypeConstraints) {
  generator::GeneratorOptions options;
  options.nodes = 16;
  options.max_elements = 256;
  int checked = 0;
  for (uint64_t seed = 1000; seed < 1600; ++seed) {
    SCOPED_TRACE(seed);
    absl::StatusOr<generator::GeneratedGraph> generated = generator::Generate(seed, options);
    ASSERT_TRUE(generated.ok()) << generated.status();
    absl::StatusOr<onnx::ModelProto> model = ExportModel(generated->graph);
    ASSERT_TRUE(model.ok()) << model.status() << "\n" << PrintInline(generated->graph);
    absl::Status strict = StrictTypeCheck(*model);
    ASSERT_TRUE(strict.ok()) << strict << "\n" << PrintInline(generated->graph);
    ++checked;
  }
  EXPECT_EQ(checked, 600);
}

// One node of `op` over operands of `dtype` (and a cast to `to`), with
// attributes that make a valid node when the IR takes the dtype at all.
absl::StatusOr<Graph> SingleOp(Op op, DType dtype, DType to) {
  GraphBuilder b("single");
  const Shape s23({2, 3});
  std::vector<NodeId> in;
  Attributes attrs;
  auto input = [&](const char* name, DType d, Shape shape) {
    in.push_back(b.Input(name, TensorType(d, std::move(shape))));
  };
  switch (GetOpKind(op)) {
    case OpKind::kSource:
      attrs.Set("dtype", dtype);
      attrs.Set("shape", std::vector<int64_t>{2, 3});
      if (op == Op::kFull) attrs.Set("value", 1.0);
      if (op == Op::kIota) attrs.Set("axis", int64_t{1});
      if (op == Op::kConstant) {
        attrs = Attributes();
        attrs.Set("value", HostTensor::Full(TensorType(dtype, s23), 1.0));
      }
      break;
    case OpKind::kUnary:
    case OpKind::kScan:
    case OpKind::kCast:
    case OpKind::kReduce: input("x", dtype, s23); break;
    case OpKind::kSelect:
      input("c", DType::kBool, s23);
      input("a", dtype, s23);
      input("b", dtype, s23);
      break;
    case OpKind::kMatmul:
      input("a", dtype, s23);
      input("b", dtype, Shape({3, 2}));
      break;
    case OpKind::kGather:
      input("d", dtype, s23);
      input("i", DType::kI64, Shape({2}));
      attrs.Set("axis", int64_t{1});
      break;
    case OpKind::kWindow:
      input("x", dtype, Shape({1, 2, 4, 4}));
      if (op == Op::kConv2d) {
        input("w", dtype, Shape({3, 2, 3, 3}));
        attrs.Set("groups", int64_t{1});
      } else {
        attrs.Set("kernel", std::vector<int64_t>{2, 2});
      }
      attrs.Set("strides", std::vector<int64_t>{1, 1});
      attrs.Set("pads", std::vector<int64_t>{1, 1, 0, 0});
      if (op != Op::kAvgPool2d) attrs.Set("dilations", std::vector<int64_t>{1, 1});
      if (op == Op::kAvgPool2d) attrs.Set("count_include_pad", false);
      break;
    case OpKind::kComposite:
      input("x", dtype, s23);
      if (op == Op::kLayerNorm || op == Op::kRmsNorm) input("gamma", dtype, Shape({3}));
      if (op == Op::kLayerNorm) input("beta", dtype, Shape({3}));
      if (op != Op::kGelu) attrs.Set("axis", int64_t{-1});
      if (op == Op::kLayerNorm || op == Op::kRmsNorm) attrs.Set("eps", 1e-5);
      break;
    case OpKind::kLayout:
      input("x", dtype, op == Op::kSqueeze ? Shape({2, 1, 3}) : s23);
      if (op == Op::kConcat) in.push_back(in[0]);
      break;
    default:  // binary, compare, logic
      input("a", dtype, s23);
      if (op != Op::kNot) input("b", dtype, s23);
  }
  switch (op) {
    case Op::kClip: attrs.Set("min", -1.0), attrs.Set("max", 1.0); break;
    case Op::kCast: attrs.Set("dtype", to); break;
    case Op::kArgmax: attrs.Set("axis", int64_t{1}), attrs.Set("keepdim", false); break;
    case Op::kReduceSum:
    case Op::kReduceMean:
    case Op::kReduceMax:
    case Op::kReduceMin:
      attrs.Set("axes", std::vector<int64_t>{1});
      attrs.Set("keepdim", false);
      break;
    case Op::kCumsum:
      attrs.Set("axis", int64_t{1}), attrs.Set("exclusive", false), attrs.Set("reverse", true);
      break;
    case Op::kReshape: attrs.Set("shape", std::vector<int64_t>{3, 2}); break;
    case Op::kTranspose: attrs.Set("perm", std::vector<int64_t>{1, 0}); break;
    case Op::kBroadcastTo: attrs.Set("shape", std::vector<int64_t>{4, 2, 3}); break;
    case Op::kSlice:
      attrs.Set("start", std::vector<int64_t>{0, 1});
      attrs.Set("limit", std::vector<int64_t>{2, 3});
      attrs.Set("stride", std::vector<int64_t>{1, 1});
      break;
    case Op::kConcat: attrs.Set("axis", int64_t{0}); break;
    case Op::kSqueeze: attrs.Set("axes", std::vector<int64_t>{1}); break;
    case Op::kUnsqueeze: attrs.Set("axes", std::vector<int64_t>{0}); break;
    case Op::kPad: attrs.Set("pads", std::vector<int64_t>{1, 0, 0, 1}), attrs.Set("value", 1.0); break;
    default: break;
  }
  absl::StatusOr<NodeId> y = b.Add(op, in, attrs, "y");
  if (!y.ok()) return y.status();
  if (absl::Status s = b.Output(*y); !s.ok()) return s;
  return b.Build();
}

// Every op of the table in every dtype the IR takes for it (casts: every
// pair) exports to a model ONNX's strict type checks accept, and the import
// of it computes the same values.
TEST(ExporterTest, EveryOpAndDtypeExportsAValidModel) {
  int exported = 0;
  std::vector<std::string> with_carrier;
  for (Op op : kAllOps) {
    if (op == Op::kInput) continue;
    for (DType dtype : kAllDTypes) {
      for (DType to : kAllDTypes) {
        if (op != Op::kCast && to != dtype) continue;
        absl::StatusOr<Graph> graph = SingleOp(op, dtype, to);
        if (!graph.ok()) continue;  // the IR does not take this dtype
        std::string label = absl::StrCat(std::string(OpName(op)), " ", std::string(DTypeName(dtype)));
        if (op == Op::kCast) absl::StrAppend(&label, " -> ", std::string(DTypeName(to)));
        SCOPED_TRACE(label);
        absl::StatusOr<onnx::ModelProto> model = ExportModel(*graph);
        ASSERT_TRUE(model.ok()) << model.status();
        const absl::Status strict = StrictTypeCheck(*model);
        EXPECT_TRUE(strict.ok()) << strict;
        if (op != Op::kCast && absl::c_count(OpTypes(*model), "Cast") > 0) {
          with_carrier.push_back(label);
        }
        absl::StatusOr<Graph> back = RoundTrip(*graph);
        ASSERT_TRUE(back.ok()) << back.status();
        ExpectSameValues(*graph, *back);
        ++exported;
      }
    }
  }
  // Every op in at least its main float dtype, every cast pair.
  EXPECT_GE(exported, 150);
  // The carriers: bool comparisons, bf16 ops ONNX stops at f16 for. (iota
  // casts its int64 Range in every dtype but i64: not a carrier, listed too.)
  EXPECT_THAT(with_carrier, ::testing::IsSupersetOf({"lt bool", "ge bool", "round bf16",
                                                     "conv2d bf16", "full bf16"}));
  std::cout << exported << " op/dtype pairs exported; with casts: "
            << absl::StrJoin(with_carrier, ", ") << "\n";
}

// One op whose dtype ONNX does not take at opset 17: the export computes it
// in a carrier dtype between casts (export_dtypes.h), passes ONNX's type
// checks, and keeps the op's values exactly (bool and integer results) or
// within the dtype's rounding.
struct CarrierCase {
  const char* name;
  const char* graph;
  const char* onnx_op;  // the op computed in the carrier
};

class CarrierTest : public ::testing::TestWithParam<CarrierCase> {};

TEST_P(CarrierTest, ExportsValidModelWithCastsAndSameValues) {
  const CarrierCase& c = GetParam();
  absl::StatusOr<Graph> graph = Parse(c.graph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<onnx::ModelProto> model = ExportModel(*graph);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(StrictTypeCheck(*model).ok()) << StrictTypeCheck(*model);
  const std::vector<std::string> types = OpTypes(*model);
  EXPECT_THAT(types, ::testing::Contains(c.onnx_op));
  EXPECT_THAT(types, ::testing::Contains("Cast"));
  absl::StatusOr<Graph> back = RoundTrip(*graph);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameValues(*graph, *back);
}

INSTANTIATE_TEST_SUITE_P(
    Casts, CarrierTest,
    ::testing::Values(
        CarrierCase{"LtOnBool",
                    "graph @g(%a: bool[6], %b: bool[6]) {\n"
                    "  %y = lt(%a, %b) : bool[6]\n  return %y\n}\n",
                    "Less"},
        CarrierCase{"LeOnBool",
                    "graph @g(%a: bool[6], %b: bool[6]) {\n"
                    "  %y = le(%a, %b) : bool[6]\n  return %y\n}\n",
                    "LessOrEqual"},
        CarrierCase{"GtOnBool",
                    "graph @g(%a: bool[6], %b: bool[]) {\n"
                    "  %y = gt(%a, %b) : bool[6]\n  return %y\n}\n",
                    "Greater"},
        CarrierCase{"GeOnBool",
                    "graph @g(%a: bool[2,3], %b: bool[3]) {\n"
                    "  %y = ge(%a, %b) : bool[2,3]\n  return %y\n}\n",
                    "GreaterOrEqual"},
        CarrierCase{"RoundOnBf16",
                    "graph @g(%x: bf16[8]) {\n"
                    "  %y = round(%x) : bf16[8]\n  return %y\n}\n",
                    "Round"},
        CarrierCase{"SinOnBf16",
                    "graph @g(%x: bf16[8]) {\n"
                    "  %y = sin(%x) : bf16[8]\n  return %y\n}\n",
                    "Sin"},
        CarrierCase{"CosOnBf16",
                    "graph @g(%x: bf16[8]) {\n"
                    "  %y = cos(%x) : bf16[8]\n  return %y\n}\n",
                    "Cos"},
        CarrierCase{"FullOfBf16",
                    "graph @g() {\n"
                    "  %y = full() {dtype=bf16, shape=[3], value=0.1} : bf16[3]\n"
                    "  return %y\n}\n",
                    "ConstantOfShape"},
        CarrierCase{"Conv2dOnBf16",
                    "graph @g(%x: bf16[1,2,4,4], %w: bf16[3,2,3,3]) {\n"
                    "  %y = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[1,1,1,1], "
                    "strides=[1,1]} : bf16[1,3,4,4]\n  return %y\n}\n",
                    "Conv"},
        CarrierCase{"MaxPoolOnBf16",
                    "graph @g(%x: bf16[1,2,4,4]) {\n"
                    "  %y = max_pool2d(%x) {dilations=[1,1], kernel=[2,2], pads=[0,0,0,0], "
                    "strides=[2,2]} : bf16[1,2,2,2]\n  return %y\n}\n",
                    "MaxPool"},
        CarrierCase{"AvgPoolOnBf16",
                    "graph @g(%x: bf16[1,2,4,4]) {\n"
                    "  %y = avg_pool2d(%x) {count_include_pad=false, kernel=[2,2], "
                    "pads=[0,0,0,0], strides=[2,2]} : bf16[1,2,2,2]\n  return %y\n}\n",
                    "AveragePool"}),
    [](const ::testing::TestParamInfo<CarrierCase>& info) { return info.param.name; });

// Of the ops ONNX defines on numbers only, the IR allows bool in comparisons
// alone (the carriers above); if it ever allows more, the exporter needs a
// carrier for them (export_dtypes.cc has them: bool -> int32, means -> f32).
TEST(ExporterTest, TheIrKeepsBoolOutOfArithmetic) {
  for (const char* line : {"maximum(%a, %a) : bool[6]", "add(%a, %a) : bool[6]",
                           "abs(%a) : bool[6]", "reduce_sum(%a) {axes=[0], keepdim=false} : bool[]",
                           "reduce_mean(%a) {axes=[0], keepdim=false} : bool[]",
                           "argmax(%a) {axis=0, keepdim=false} : i64[]",
                           "cumsum(%a) {axis=0, exclusive=false, reverse=false} : bool[6]"}) {
    SCOPED_TRACE(line);
    EXPECT_FALSE(Parse(absl::StrCat("graph @g(%a: bool[6]) {\n  %y = ", line,
                                    "\n  return %y\n}\n"))
                     .ok());
  }
}

// The same ops in dtypes ONNX takes are written as they are.
TEST(ExporterTest, AcceptedDtypesGetNoCasts) {
  absl::StatusOr<Graph> graph = Parse(
      "graph @g(%a: i32[6], %b: i32[6], %x: f16[6]) {\n"
      "  %y = lt(%a, %b) : bool[6]\n"
      "  %r = round(%x) : f16[6]\n"
      "  %e = eq(%y, %y) : bool[6]\n"
      "  return %y, %r, %e\n}\n");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<onnx::ModelProto> model = ExportModel(*graph);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(OpTypes(*model), ::testing::ElementsAre("Less", "Round", "Equal"));
}

TEST(ExporterTest, NamesSurviveTheRoundTrip) {
  absl::StatusOr<Graph> graph = Parse(
      "graph @g(%x: f32[4]) {\n"
      "  %act = relu(%x) : f32[4]\n"
      "  %r = rsqrt(%act) : f32[4]\n"
      "  return %r, %x\n"
      "}\n");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> back = RoundTrip(*graph);
  ASSERT_TRUE(back.ok()) << back.status();
  const std::string text = PrintInline(*back);
  EXPECT_THAT(text, HasSubstr("%act = relu(%x)"));
  EXPECT_THAT(text, HasSubstr("%r = reciprocal("));
  EXPECT_EQ(back->outputs().size(), 2u);
}

// A reshape to a shape with a 0 dim exports with allowzero = 1: without it
// ONNX reads the 0 as "copy the input's dim" and the model no longer imports
// (found by the onnx_import fuzzer on an Einsum over an empty dim).
TEST(ExporterTest, ReshapeToAZeroDimKeepsTheZero) {
  absl::StatusOr<Graph> graph = Parse(
      "graph @g(%x: f32[2,4,0]) {\n"
      "  %r = reshape(%x) {shape=[8,0]} : f32[8,0]\n"
      "  %i = iota() {axis=1, dtype=f32, shape=[3,0]} : f32[3,0]\n"
      "  return %r, %i\n"
      "}\n");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> back = RoundTrip(*graph);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->type(back->outputs()[0]).ToString(), "f32[8,0]");
  EXPECT_EQ(back->type(back->outputs()[1]).ToString(), "f32[3,0]");
}

}  // namespace
}  // namespace rk::compiler::onnx_io
