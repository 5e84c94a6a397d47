#include "compiler/autodiff/joint_graph.h"

#include <string>
#include <vector>

#include "compiler/autodiff/gradient_check_test_util.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/ir/verifier.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/promote.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::autodiff {
namespace {

using ::testing::HasSubstr;

Graph MustParse(const std::string& text) {
  absl::StatusOr<Graph> g = Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : Graph();
}

constexpr char kMlp[] = R"(graph @mlp(%x: f32[2,3], %w: f32[3,4] grad, %b: f32[4] grad, %i: i32[2]) {
  %h = matmul(%x, %w) : f32[2,4]
  %z = add(%h, %b) : f32[2,4]
  %y = relu(%z) : f32[2,4]
  %n = argmax(%y) {axis=1, keepdim=false} : i64[2]
  return %y, %n, %i
}
)";

TEST(JointGraphTest, ForwardOutputsThenGradientsSeedsAsInputs) {
  Graph forward = MustParse(kMlp);
  absl::StatusOr<JointGraph> joint = BuildJointGraph(forward, GradSpecFromMarks(forward));
  ASSERT_TRUE(joint.ok()) << joint.status();
  const Graph& g = joint->graph;
  EXPECT_TRUE(Verify(g).ok());
  EXPECT_EQ(joint->num_forward_inputs, 4);
  EXPECT_EQ(joint->num_forward_outputs, 3);
  // One seed, for the only float output; integer outputs get none.
  ASSERT_EQ(joint->seeds.size(), 1u);
  EXPECT_EQ(joint->seeds[0].forward_output, 0);
  EXPECT_EQ(joint->seeds[0].input, 4);
  EXPECT_EQ(g.num_inputs(), 5);
  EXPECT_EQ(g.node(NodeId(4)).name, "seed.0");
  EXPECT_EQ(g.type(NodeId(4)), TensorType(DType::kF32, Shape{2, 4}));
  ASSERT_EQ(joint->gradients.size(), 2u);
  EXPECT_EQ(joint->gradients[0].name, "w");
  EXPECT_EQ(joint->gradients[0].output, 3);
  EXPECT_EQ(joint->gradients[1].name, "b");
  EXPECT_EQ(joint->gradients[1].output, 4);
  ASSERT_EQ(g.outputs().size(), 5u);
  EXPECT_EQ(g.type(g.outputs()[3]), forward.type(NodeId(1)));
  EXPECT_EQ(g.type(g.outputs()[4]), forward.type(NodeId(2)));
  // The joint graph's inputs carry no grad marks; forward names are kept.
  for (NodeId id : g.inputs()) EXPECT_FALSE(IsMarkedForGrad(g.node(id)));
  EXPECT_EQ(g.node(NodeId(5)).name, "h");
}

TEST(JointGraphTest, MarkingAnIntegerInputIsAnError) {
  Graph forward = MustParse(kMlp);
  GradSpec spec{{NodeId(3)}};
  absl::StatusOr<JointGraph> joint = BuildJointGraph(forward, spec);
  EXPECT_EQ(joint.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(joint.status().message(), HasSubstr("input '%i' (i32[2]) cannot have a gradient"));
  EXPECT_THAT(BuildJointGraph(forward, GradSpec{{NodeId(1), NodeId(1)}}).status().message(),
              HasSubstr("twice"));
  EXPECT_THAT(BuildJointGraph(forward, GradSpec{{NodeId(5)}}).status().message(),
              HasSubstr("not an input"));
}

TEST(JointGraphTest, SpecsFromNamesAndAllFloat) {
  Graph forward = MustParse(kMlp);
  absl::StatusOr<GradSpec> spec = GradSpecFromNames(forward, {"b", "x"});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->inputs, (std::vector<NodeId>{NodeId(2), NodeId(0)}));
  EXPECT_THAT(GradSpecFromNames(forward, {"q"}).status().message(), HasSubstr("no input '%q'"));
  EXPECT_THAT(GradSpecFromNames(forward, {"b", "b"}).status().message(), HasSubstr("twice"));
  EXPECT_EQ(GradSpecAllFloat(forward).inputs,
            (std::vector<NodeId>{NodeId(0), NodeId(1), NodeId(2)}));
}

TEST(JointGraphTest, UnreachedInputsGetZerosAndOutputInputsGetTheSeed) {
  Graph forward = MustParse(R"(graph @f(%x: f64[3] grad, %u: f64[2] grad, %k: f64[3] grad) {
  %c = cast(%k) {dtype=i32} : i32[3]
  %d = cast(%c) {dtype=f64} : f64[3]
  %y = mul(%x, %d) : f64[3]
  return %y, %x
}
)");
  absl::StatusOr<JointGraph> joint = BuildJointGraph(forward, GradSpecFromMarks(forward));
  ASSERT_TRUE(joint.ok()) << joint.status();
  const Graph& g = joint->graph;
  // %u reaches nothing and %k only through an integer cast: both are zeros.
  EXPECT_EQ(g.node(g.outputs()[3]).op, Op::kFull);
  EXPECT_EQ(g.node(g.outputs()[4]).op, Op::kFull);
  std::vector<HostTensor> inputs = SeededInputs(forward, 5);
  absl::StatusOr<GradientCheckResult> r =
      CheckGradients(forward, GradSpecFromMarks(forward), inputs, {}, 5);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->mismatch, "");
  // grad(x) = seed.0 * d + seed.1: the second output is %x itself.
  absl::StatusOr<std::vector<HostTensor>> values = JointInputs(*joint, inputs, 5);
  ASSERT_TRUE(values.ok());
  absl::StatusOr<EvalResult> out = Evaluate(g, *values);
  ASSERT_TRUE(out.ok());
  for (int64_t i = 0; i < 3; ++i) {
    const double d = static_cast<double>(static_cast<int32_t>(inputs[2].GetDouble(i)));
    EXPECT_DOUBLE_EQ(out->outputs[2].GetDouble(i),
                     (*values)[3].GetDouble(i) * d + (*values)[4].GetDouble(i));
  }
}

TEST(JointGraphTest, SeedValuesAreTheSeededInputsOfTheJointGraph) {
  Graph forward = MustParse(kMlp);
  absl::StatusOr<JointGraph> joint = BuildJointGraph(forward, GradSpecFromMarks(forward));
  ASSERT_TRUE(joint.ok());
  absl::StatusOr<std::vector<HostTensor>> values =
      JointInputs(*joint, SeededInputs(forward, 42), 42);
  ASSERT_TRUE(values.ok());
  std::vector<HostTensor> seeded = SeededInputs(joint->graph, 42);
  ASSERT_EQ(values->size(), seeded.size());
  for (size_t i = 0; i < seeded.size(); ++i) EXPECT_TRUE((*values)[i].BitwiseEqual(seeded[i])) << i;
  EXPECT_FALSE(JointInputs(*joint, {}, 42).ok());
}

TEST(JointGraphTest, AnOpWithNoDecisionIsUnimplemented) {
  // Every op has a decision today (gradient_check_test), so an unverified
  // graph is the error path left to show here.
  Graph bad = MustParse(kMlp);
  bad.mutable_node(NodeId(5)).type = TensorType(DType::kF32, Shape{9});
  EXPECT_EQ(BuildJointGraph(bad, GradSpecFromMarks(bad)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Random generator graphs: the joint graph verifies and its forward half
// computes exactly what the forward graph does.
TEST(JointGraphPropertyTest, GeneratedGraphsGiveVerifiedJointGraphs) {
  int with_gradients = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    absl::StatusOr<generator::GeneratedGraph> gen = generator::Generate(seed);
    ASSERT_TRUE(gen.ok()) << gen.status();
    const Graph& forward = gen->graph;
    absl::StatusOr<JointGraph> joint = BuildJointGraph(forward, GradSpecAllFloat(forward));
    ASSERT_TRUE(joint.ok()) << "seed " << seed << ": " << joint.status() << "\n"
                            << PrintInline(forward);
    ASSERT_TRUE(Verify(joint->graph).ok()) << seed;
    with_gradients += !joint->gradients.empty();
    std::vector<HostTensor> inputs = gen->MakeInputs(seed);
    absl::StatusOr<EvalResult> fwd = Evaluate(forward, inputs);
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    absl::StatusOr<std::vector<HostTensor>> values = JointInputs(*joint, inputs, seed);
    ASSERT_TRUE(values.ok());
    absl::StatusOr<EvalResult> out = Evaluate(joint->graph, *values);
    ASSERT_TRUE(out.ok()) << "seed " << seed << ": " << out.status();
    for (size_t k = 0; k < fwd->outputs.size(); ++k) {
      ASSERT_TRUE(out->outputs[k].BitwiseEqual(fwd->outputs[k])) << "seed " << seed << " output " << k;
    }
  }
  EXPECT_GT(with_gradients, 150);  // 166 of the 300 have a float input
}

// Generator graphs of differentiable ops, promoted to f64, against finite
// differences: the rules compose (shared operands, chains, broadcasting
// between ops) as well as they work alone.
TEST(JointGraphPropertyTest, GeneratedGraphsPassTheGradientCheck) {
  generator::GeneratorOptions options;
  options.nodes = 8;
  options.max_elements = 64;
  options.mixed_dtypes = false;
  options.ops = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kExp, Op::kTanh, Op::kSigmoid,
                 Op::kSin, Op::kMatmul, Op::kReduceSum, Op::kReduceMean, Op::kTranspose,
                 Op::kReshape, Op::kBroadcastTo, Op::kSlice, Op::kConcat, Op::kSoftmax,
                 Op::kLogSoftmax, Op::kGelu, Op::kLayerNorm, Op::kCumsum, Op::kPad};
  int checked = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    absl::StatusOr<generator::GeneratedGraph> gen = generator::Generate(seed, options);
    ASSERT_TRUE(gen.ok()) << gen.status();
    absl::StatusOr<Graph> wide = PromoteToF64(gen->graph);
    ASSERT_TRUE(wide.ok());
    std::vector<HostTensor> inputs;
    for (const HostTensor& t : gen->MakeInputs(seed)) inputs.push_back(t.ConvertTo(DType::kF64));
    absl::StatusOr<GradientCheckResult> r =
        CheckGradients(*wide, GradSpecAllFloat(*wide), inputs, {}, seed);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->mismatch, "") << "seed " << seed << "\n" << PrintInline(*wide);
    checked += r->checked;
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace rk::compiler::autodiff
