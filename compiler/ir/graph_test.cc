#include "compiler/ir/graph.h"

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

Node MakeNode(Op op, std::vector<NodeId> operands, TensorType type, std::string name = "") {
  Node n;
  n.op = op;
  n.operands = std::move(operands);
  n.type = std::move(type);
  n.name = std::move(name);
  return n;
}

// %x, %w inputs; %2 = mul(%x, %w); %y = add(%2, %x); return %y, %2
Graph SmallGraph() {
  const TensorType t(DType::kF32, {4});
  Graph g("block");
  NodeId x = g.AppendNode(MakeNode(Op::kInput, {}, t, "x"));
  NodeId w = g.AppendNode(MakeNode(Op::kInput, {}, t, "w"));
  NodeId m = g.AppendNode(MakeNode(Op::kMul, {x, w}, t));
  NodeId y = g.AppendNode(MakeNode(Op::kAdd, {m, x}, t, "y"));
  g.AddOutput(y);
  g.AddOutput(m);
  return g;
}

TEST(NodeIdTest, ValueSemantics) {
  EXPECT_FALSE(NodeId().valid());
  EXPECT_TRUE(NodeId(0).valid());
  EXPECT_LT(NodeId(1), NodeId(2));
  EXPECT_EQ(NodeId(3), NodeId(3));
}

TEST(GraphTest, Accessors) {
  Graph g = SmallGraph();
  EXPECT_EQ(g.name(), "block");
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.num_inputs(), 2);
  EXPECT_EQ(g.inputs(), (std::vector<NodeId>{NodeId(0), NodeId(1)}));
  EXPECT_EQ(g.outputs(), (std::vector<NodeId>{NodeId(3), NodeId(2)}));
  EXPECT_EQ(g.node(NodeId(2)).op, Op::kMul);
  EXPECT_EQ(g.type(NodeId(3)), TensorType(DType::kF32, {4}));
  EXPECT_EQ(g.DisplayName(NodeId(0)), "x");
  EXPECT_EQ(g.DisplayName(NodeId(2)), "2");
}

TEST(GraphTest, ComputeUsers) {
  Graph g = SmallGraph();
  std::vector<std::vector<NodeId>> users = g.ComputeUsers();
  ASSERT_EQ(users.size(), 4u);
  EXPECT_EQ(users[0], (std::vector<NodeId>{NodeId(2), NodeId(3)}));
  EXPECT_EQ(users[1], (std::vector<NodeId>{NodeId(2)}));
  EXPECT_EQ(users[2], (std::vector<NodeId>{NodeId(3)}));
  EXPECT_TRUE(users[3].empty());
}

TEST(GraphTest, StructuralEquality) {
  EXPECT_EQ(SmallGraph(), SmallGraph());
  Graph renamed = SmallGraph();
  renamed.mutable_node(NodeId(3)).name = "z";
  EXPECT_NE(renamed, SmallGraph());
  Graph other_outputs = SmallGraph();
  other_outputs.set_outputs({NodeId(3)});
  EXPECT_NE(other_outputs, SmallGraph());
  Graph other_attrs = SmallGraph();
  other_attrs.mutable_node(NodeId(2)).attrs.Set("k", int64_t{1});
  EXPECT_NE(other_attrs, SmallGraph());
  Graph other_name = SmallGraph();
  other_name.set_name("main");
  EXPECT_NE(other_name, SmallGraph());
}

}  // namespace
}  // namespace rk::compiler
