#include "compiler/ir/seeded_inputs.h"

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

Graph TwoInputs() {
  Graph g("g");
  Node x;
  x.op = Op::kInput;
  x.type = TensorType(DType::kF32, {4, 8});
  x.name = "x";
  g.AppendNode(x);
  Node n;
  n.op = Op::kInput;
  n.type = TensorType(DType::kI32, {16});
  n.name = "n";
  g.AppendNode(n);
  g.AddOutput(NodeId(0));
  return g;
}

TEST(SeededInputsTest, DeterministicPerSeedAndDistinctPerInput) {
  Graph g = TwoInputs();
  std::vector<HostTensor> a = SeededInputs(g, 42), b = SeededInputs(g, 42), c = SeededInputs(g, 43);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].type(), g.type(NodeId(0)));
  EXPECT_EQ(a[1].type(), g.type(NodeId(1)));
  EXPECT_TRUE(a[0].BitwiseEqual(b[0]));
  EXPECT_TRUE(a[1].BitwiseEqual(b[1]));
  EXPECT_FALSE(a[0].BitwiseEqual(c[0]));
  EXPECT_NE(SeedForInput(42, 0), SeedForInput(42, 1));
}

TEST(SeededInputsTest, RangesFollowTheDtype) {
  std::vector<HostTensor> in = SeededInputs(TwoInputs(), 7);
  for (int64_t i = 0; i < in[0].num_elements(); ++i) {
    EXPECT_GE(in[0].GetDouble(i), -1.0);
    EXPECT_LT(in[0].GetDouble(i), 1.0);
  }
  for (int64_t i = 0; i < in[1].num_elements(); ++i) {
    EXPECT_GE(in[1].GetInt(i), -8);
    EXPECT_LE(in[1].GetInt(i), 8);
  }
}

// Token ids: an i64 input that a gather takes as indices (here through a cast
// and a reshape, and also directly by a second gather over a smaller axis)
// stays inside the smallest gathered axis, where [-8, 8] went out of it.
TEST(SeededInputsTest, GatherIndicesStayInsideTheGatheredAxis) {
  Graph g("g");
  auto add = [&g](Op op, std::vector<NodeId> operands, TensorType type, Attributes attrs = {}) {
    Node n;
    n.op = op;
    n.operands = std::move(operands);
    n.type = std::move(type);
    n.attrs = std::move(attrs);
    return g.AppendNode(n);
  };
  NodeId table = add(Op::kInput, {}, TensorType(DType::kF32, {5, 3}));
  NodeId small = add(Op::kInput, {}, TensorType(DType::kF32, {2, 3}));
  NodeId ids = add(Op::kInput, {}, TensorType(DType::kI64, {64}));
  NodeId other = add(Op::kInput, {}, TensorType(DType::kI64, {64}));
  Attributes cast_to;
  cast_to.Set("dtype", DType::kI32);
  NodeId cast = add(Op::kCast, {ids}, TensorType(DType::kI32, {64}), cast_to);
  Attributes shape;
  shape.Set("shape", std::vector<int64_t>{8, 8});
  NodeId reshaped = add(Op::kReshape, {cast}, TensorType(DType::kI32, {8, 8}), shape);
  Attributes axis0;
  axis0.Set("axis", int64_t{0});
  NodeId g1 = add(Op::kGather, {table, reshaped}, TensorType(DType::kF32, {8, 8, 3}), axis0);
  NodeId g2 = add(Op::kGather, {small, ids}, TensorType(DType::kF32, {64, 3}), axis0);
  g.AddOutput(g1);
  g.AddOutput(g2);
  g.AddOutput(other);
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<HostTensor> in = SeededInputs(g, seed);
    ASSERT_EQ(in.size(), 4u);
    bool saw_one = false;
    for (int64_t i = 0; i < in[2].num_elements(); ++i) {
      EXPECT_GE(in[2].GetInt(i), 0);
      EXPECT_LT(in[2].GetInt(i), 2);  // the smaller of the two axes
      saw_one |= in[2].GetInt(i) == 1;
    }
    EXPECT_TRUE(saw_one);
    bool saw_negative = false;  // an input no gather reads keeps [-8, 8]
    for (int64_t i = 0; i < in[3].num_elements(); ++i) saw_negative |= in[3].GetInt(i) < 0;
    EXPECT_TRUE(saw_negative);
  }
}

}  // namespace
}  // namespace rk::compiler
