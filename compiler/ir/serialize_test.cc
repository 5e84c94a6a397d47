#include "compiler/ir/serialize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/builder.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

// A small graph with a literal, attributes and names. Random graphs, their
// round trips, truncations and corruptions: compiler/generator/ir_round_trip_test.cc.
Graph Sample() {
  GraphBuilder b("sample");
  NodeId x = b.Input("x", TensorType(DType::kF32, {2, 3}));
  HostTensor w(TensorType(DType::kF32, {3}));
  for (int i = 0; i < 3; ++i) w.data<float>()[i] = 0.5f * static_cast<float>(i) - 1.0f;
  NodeId c = *b.Constant(w, "w");
  NodeId y = *b.Add(Op::kMul, {x, c}, {}, "y");
  NodeId s = *b.Add(Op::kReduceSum, {y}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", false}});
  (void)b.Output(s);
  return *b.Build();
}

TEST(SerializeTest, RejectsMissingMagic) {
  EXPECT_THAT(DeserializeGraph("").status().message(), HasSubstr("RKG1"));
  EXPECT_THAT(DeserializeGraph("RKG2abcdef").status().message(), HasSubstr("RKG1"));
}

TEST(SerializeTest, RejectsOtherVersions) {
  std::string bytes = SerializeGraph(Sample());
  // After the magic comes cereal's endianness byte, then the version.
  bytes[5] = static_cast<char>(kGraphFormatVersion + 1);
  absl::StatusOr<Graph> g = DeserializeGraph(bytes);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("unsupported graph format version 2"));
}

TEST(SerializeTest, RoundTripsAndRejectsTruncation) {
  std::string bytes = SerializeGraph(Sample());
  absl::StatusOr<Graph> back = DeserializeGraph(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_EQ(DeserializeGraph(bytes.substr(0, n)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "length " << n;
  }
}

TEST(SerializeTest, KeepsGradMarks) {
  GraphBuilder b("g");
  NodeId x = b.Input("x", TensorType(DType::kF32, {4}), /*grad=*/true);
  NodeId w = b.Input("w", TensorType(DType::kF32, {4}));
  ASSERT_TRUE(b.Output(*b.Binary(Op::kMul, x, w)).ok());
  absl::StatusOr<Graph> g = b.Build();
  ASSERT_TRUE(g.ok());
  absl::StatusOr<Graph> back = DeserializeGraph(SerializeGraph(*g));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == *g);
  EXPECT_TRUE(IsMarkedForGrad(back->node(NodeId(0))));
  EXPECT_FALSE(IsMarkedForGrad(back->node(NodeId(1))));
}

TEST(SerializeTest, HugeCountsAreRejectedBeforeAllocating) {
  std::string bytes = SerializeGraph(Sample());
  // The graph name's length follows the version: claim 2^62 bytes.
  for (int i = 9; i < 17; ++i) bytes[i] = static_cast<char>(0x3f);
  absl::StatusOr<Graph> g = DeserializeGraph(bytes);
  EXPECT_THAT(g.status().message(), HasSubstr("exceeds the data"));
}

}  // namespace
}  // namespace rk::compiler
