#include "compiler/ir/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/builder.h"

namespace rk::compiler {
namespace {

// x: f32[4], y: f32[4]; %s = add(x, y); %2 = exp(%s) (unnamed, id 3); return.
Graph Sample() {
  GraphBuilder b("v");
  NodeId x = b.Input("x", TensorType(DType::kF32, {4}));
  NodeId y = b.Input("y", TensorType(DType::kF32, {4}));
  NodeId s = *b.Add(Op::kAdd, {x, y}, {}, "s");
  NodeId e = *b.Unary(Op::kExp, s);
  (void)b.Output(e);
  return *b.Build();
}

void ExpectError(const Graph& g, const std::string& message) {
  absl::Status s = Verify(g);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), message);
}

TEST(VerifierTest, AcceptsAValidGraph) { EXPECT_TRUE(Verify(Sample()).ok()); }

TEST(VerifierTest, OperandDefinedAfterUse) {
  Graph g = Sample();
  g.mutable_node(NodeId(2)).operands[1] = NodeId(3);
  ExpectError(g, "node %s (add): operand %3 is defined after its use");
}

TEST(VerifierTest, OperandUsedByItself) {
  Graph g = Sample();
  g.mutable_node(NodeId(3)).operands[0] = NodeId(3);
  ExpectError(g, "node %3 (exp): operand %3 is defined after its use");
}

TEST(VerifierTest, OperandDoesNotExist) {
  Graph g = Sample();
  g.mutable_node(NodeId(2)).operands[0] = NodeId(-4);
  ExpectError(g, "node %s (add): operand #0 refers to node id -4, which does not exist");
}

TEST(VerifierTest, DeclaredTypeDiffersFromInference) {
  Graph g = Sample();
  g.mutable_node(NodeId(3)).type = TensorType(DType::kF32, {8});
  ExpectError(g, "node %3 (exp): declared type f32[8] but inference gives f32[4]");
}

TEST(VerifierTest, InferenceFailureNamesTheNode) {
  Graph g = Sample();
  g.mutable_node(NodeId(1)).type = TensorType(DType::kF32, {3});
  absl::Status s = Verify(g);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::StartsWith("node %s (add): "));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("broadcast"));
}

TEST(VerifierTest, InputAfterOtherNodes) {
  Graph g = Sample();
  Node late;
  late.op = Op::kInput;
  late.type = TensorType(DType::kF32, {4});
  late.name = "late";
  g.AppendNode(late);
  ExpectError(g, "node %late (input): inputs must come before all other nodes");
}

TEST(VerifierTest, InputWithOperandsOrAttributes) {
  Graph g = Sample();
  g.mutable_node(NodeId(1)).operands.push_back(NodeId(0));
  ExpectError(g, "node %y (input): an input takes no operands");
  Graph h = Sample();
  h.mutable_node(NodeId(0)).attrs.Set("k", int64_t{1});
  ExpectError(h, "node %x (input): an input carries no attributes but grad=true");
}

TEST(VerifierTest, NegativeDimension) {
  Graph g = Sample();
  g.mutable_node(NodeId(0)).type = TensorType(DType::kF32, {-2});
  ExpectError(g, "node %x (input): type f32[-2] has a negative dimension");
}

TEST(VerifierTest, OutputDoesNotExist) {
  Graph g = Sample();
  g.AddOutput(NodeId(7));
  ExpectError(g, "output #1 refers to node id 7, which does not exist");
}

TEST(VerifierTest, NoOutputs) {
  Graph g = Sample();
  g.set_outputs({});
  ExpectError(g, "graph has no outputs");
}

TEST(VerifierTest, DuplicateName) {
  Graph g = Sample();
  g.mutable_node(NodeId(3)).name = "x";
  ExpectError(g, "node %x (exp): duplicate name '%x'");
}

TEST(VerifierTest, MalformedName) {
  Graph g = Sample();
  g.mutable_node(NodeId(2)).name = "a-b";
  ExpectError(g, "node %\"a-b\" (add): name 'a-b' is not made of [A-Za-z0-9_.]");
}

TEST(VerifierTest, DigitOnlyNameIsReserved) {
  Graph g = Sample();
  g.mutable_node(NodeId(2)).name = "2";
  ExpectError(g,
              "node %2 (add): name '2' is made only of digits, which is reserved for unnamed "
              "nodes");
}

}  // namespace
}  // namespace rk::compiler
