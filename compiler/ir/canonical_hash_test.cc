#include "compiler/ir/canonical_hash.h"

#include <gtest/gtest.h>

#include "base/sha256.h"
#include "compiler/ir/builder.h"

namespace rk::compiler {
namespace {

Graph Sample(const std::string& graph_name, const std::string& node_name, int64_t axis) {
  GraphBuilder b(graph_name);
  NodeId x = b.Input("x", TensorType(DType::kF32, {4, 6}));
  NodeId s = *b.Add(Op::kSoftmax, {x}, {{"axis", axis}}, node_name);
  (void)b.Output(s);
  return *b.Build();
}

TEST(Sha256HexTest, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CanonicalHashTest, IgnoresNodeAndGraphNames) {
  std::string h = CanonicalHash(Sample("a", "soft", 1));
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, CanonicalHash(Sample("b", "other.name", 1)));
  EXPECT_EQ(h, CanonicalHash(Sample("a", "", 1)));
}

TEST(CanonicalHashTest, ChangesWithAttributesTypesAndStructure) {
  std::string h = CanonicalHash(Sample("a", "s", 1));
  EXPECT_NE(h, CanonicalHash(Sample("a", "s", 0)));
  Graph g = Sample("a", "s", 1);
  g.AddOutput(NodeId(0));
  EXPECT_NE(h, CanonicalHash(g));
}

TEST(CanonicalHashTest, ConstantValuesMatterDownToTheBit) {
  auto with_value = [](float v) {
    GraphBuilder b;
    HostTensor t(TensorType(DType::kF32, {1}));
    t.data<float>()[0] = v;
    (void)b.Output(*b.Constant(t));
    return CanonicalHash(*b.Build());
  };
  EXPECT_NE(with_value(0.0f), with_value(-0.0f));
  EXPECT_NE(with_value(1.0f), with_value(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(with_value(0.5f), with_value(0.5f));
}

// Random graphs: compiler/generator/ir_round_trip_test.cc.

}  // namespace
}  // namespace rk::compiler
