#include "compiler/ir/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "compiler/ir/verifier.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

TEST(GraphBuilderTest, GradMarksOnlyFloatInputs) {
  GraphBuilder b("g");
  NodeId x = b.Input("x", TensorType(DType::kBF16, {2}), /*grad=*/true);
  EXPECT_TRUE(x.valid());
  NodeId i = b.Input("i", TensorType(DType::kI32, {2}), /*grad=*/true);
  EXPECT_FALSE(i.valid());
  absl::StatusOr<Graph> g = b.Build();
  EXPECT_THAT(g.status().message(),
              HasSubstr("input '%i' is marked grad but has type i32[2]; only float inputs"));
}

TEST(GraphBuilderTest, BuildsAVerifiedGraphWithInferredTypes) {
  GraphBuilder b("mlp");
  NodeId x = b.Input("x", TensorType(DType::kF32, {8, 128}));
  NodeId w = b.Input("w", TensorType(DType::kF32, {128}));
  absl::StatusOr<NodeId> m = b.Reduce(Op::kReduceMax, x, {1}, true);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<NodeId> y = b.Binary(Op::kMul, x, w);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(b.type(*m), TensorType(DType::kF32, {8, 1}));
  EXPECT_EQ(b.type(*y), TensorType(DType::kF32, {8, 128}));
  ASSERT_TRUE(b.Output(*y).ok());
  ASSERT_TRUE(b.Output(*m).ok());
  absl::StatusOr<Graph> g = b.Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->name(), "mlp");
  EXPECT_EQ(g->num_nodes(), 4);
  EXPECT_EQ(g->num_inputs(), 2);
  EXPECT_EQ(g->outputs(), (std::vector<NodeId>{*y, *m}));
  EXPECT_TRUE(Verify(*g).ok());
  EXPECT_EQ(b.num_nodes(), 0) << "Build leaves the builder empty";
}

TEST(GraphBuilderTest, ConveniencesSetTheDocumentedAttributes) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF16, {2, 3}));
  absl::StatusOr<NodeId> c = b.Cast(x, DType::kF32);
  absl::StatusOr<NodeId> r = b.Reshape(*c, {3, 2});
  absl::StatusOr<NodeId> a = b.Reduce(Op::kArgmax, *r, {0}, false);
  absl::StatusOr<NodeId> f = b.Full(TensorType(DType::kI32, {4}), 7);
  absl::StatusOr<NodeId> k = b.Constant(HostTensor::Full(TensorType(DType::kBool, {2}), 1), "k");
  ASSERT_TRUE(c.ok() && r.ok() && a.ok() && f.ok() && k.ok());
  EXPECT_EQ(b.type(*a), TensorType(DType::kI64, {2}));
  EXPECT_EQ(b.type(*f), TensorType(DType::kI32, {4}));
  EXPECT_EQ(b.graph().node(*k).name, "k");
  EXPECT_EQ(*b.graph().node(*f).attrs.GetFloat("value"), 7.0);
  EXPECT_FALSE(b.Reduce(Op::kArgmax, *r, {0, 1}, false).ok());
}

TEST(GraphBuilderTest, RejectsInferenceFailuresAndLeavesNoTrace) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {8, 3}));
  NodeId y = b.Input("y", TensorType(DType::kF32, {4}));
  absl::StatusOr<NodeId> bad = b.Binary(Op::kAdd, x, y);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("broadcast"));
  EXPECT_EQ(b.num_nodes(), 2);
}

TEST(GraphBuilderTest, RejectsForeignOperandsAndOutputs) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {2}));
  EXPECT_FALSE(b.Unary(Op::kExp, NodeId(5)).ok());
  EXPECT_FALSE(b.Unary(Op::kExp, NodeId()).ok());
  EXPECT_FALSE(b.Output(NodeId(9)).ok());
  EXPECT_TRUE(b.Unary(Op::kExp, x).ok());
}

TEST(GraphBuilderTest, RejectsBadAndDuplicateNames) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {2}));
  EXPECT_THAT(b.Add(Op::kExp, {x}, {}, "x").status().message(), HasSubstr("duplicate name"));
  EXPECT_THAT(b.Add(Op::kExp, {x}, {}, "a b").status().message(), HasSubstr("[A-Za-z0-9_.]"));
  EXPECT_THAT(b.Add(Op::kExp, {x}, {}, "17").status().message(), HasSubstr("only of digits"));
  EXPECT_TRUE(b.Add(Op::kExp, {x}, {}, "e.1").ok());
  EXPECT_TRUE(b.Add(Op::kExp, {x}, {}, "").ok());
  EXPECT_TRUE(b.Add(Op::kExp, {x}, {}, "").ok()) << "unnamed nodes never clash";
}

TEST(GraphBuilderTest, AddWithTypeChecksTheDeclaredType) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {8}));
  absl::StatusOr<NodeId> bad = b.AddWithType(Op::kExp, {x}, {}, TensorType(DType::kF32, {4}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "declared type f32[4] but inference gives f32[8]");
  EXPECT_TRUE(b.AddWithType(Op::kExp, {x}, {}, TensorType(DType::kF32, {8}), "e").ok());
}

TEST(GraphBuilderTest, InputAfterOtherNodesFailsAtBuild) {
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {2}));
  absl::StatusOr<NodeId> e = b.Unary(Op::kExp, x);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(b.Input("late", TensorType(DType::kF32, {2})).valid());
  ASSERT_TRUE(b.Output(*e).ok());
  absl::StatusOr<Graph> g = b.Build();
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("inputs come first"));
}

TEST(GraphBuilderTest, DuplicateInputNameAndNegativeDimFail) {
  GraphBuilder b;
  b.Input("x", TensorType(DType::kF32, {2}));
  EXPECT_FALSE(b.Input("x", TensorType(DType::kF32, {2})).valid());
  EXPECT_THAT(b.Build().status().message(), HasSubstr("duplicate name"));
  GraphBuilder c;
  EXPECT_FALSE(c.Input("y", TensorType(DType::kF32, {-1})).valid());
  EXPECT_THAT(c.Build().status().message(), HasSubstr("negative dimension"));
}

TEST(GraphBuilderTest, BuildWithoutOutputsFails) {
  GraphBuilder b;
  b.Input("x", TensorType(DType::kF32, {2}));
  absl::StatusOr<Graph> g = b.Build();
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("no outputs"));
}

TEST(GraphBuilderTest, DuplicateNamesAreFoundAmongManyAndForgottenAfterBuild) {
  // Names used to live in a sorted vector; this checks the set that replaced
  // it at a size where first, middle and last insertions all matter.
  GraphBuilder b;
  NodeId x = b.Input("x", TensorType(DType::kF32, {2}));
  NodeId last = x;
  for (int i = 4000; i > 0; --i) {
    absl::StatusOr<NodeId> n = b.Add(Op::kNeg, {last}, {}, "n" + std::to_string(i));
    ASSERT_TRUE(n.ok()) << i << ": " << n.status();
    last = *n;
  }
  for (const char* taken : {"n1", "n2000", "n4000", "x"}) {
    EXPECT_THAT(b.Add(Op::kNeg, {x}, {}, taken).status().message(), HasSubstr("duplicate name"))
        << taken;
  }
  EXPECT_TRUE(b.Add(Op::kNeg, {x}, {}, "n4001").ok());
  ASSERT_TRUE(b.Output(last).ok());
  ASSERT_TRUE(b.Build().ok());
  // The builder starts over empty: old names are free again.
  NodeId y = b.Input("x", TensorType(DType::kF32, {2}));
  EXPECT_TRUE(y.valid());
  EXPECT_TRUE(b.Add(Op::kNeg, {y}, {}, "n1").ok());
}

TEST(GraphBuilderTest, InputOpCannotBeAddedThroughAdd) {
  GraphBuilder b;
  EXPECT_FALSE(b.Add(Op::kInput, {}).ok());
}

}  // namespace
}  // namespace rk::compiler
