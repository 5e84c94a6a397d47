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

}  // namespace
}  // namespace rk::compiler
