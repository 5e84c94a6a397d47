#include "testing/fuzz/finding_signature.h"

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

compiler::Graph G(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

const repro::Signature kRelu{repro::VerdictKind::kAccuracy, "miscompile:relu:f32"};

TEST(FindingSignatureTest, IgnoresNamesValuesSizesAndLeafKinds) {
  const compiler::Graph a = G("graph @a(%x: f32[3]) {\n  %y = relu(%x) : f32[3]\n  return %y\n}\n");
  const compiler::Graph b = G("graph @b(%in: f32[4]) {\n  %out = relu(%in) : f32[4]\n  return %out\n}\n");
  EXPECT_EQ(FindingSignature(kRelu, a), FindingSignature(kRelu, b));
  const compiler::Graph c = G("graph @c(%x: f32[1,1]) {\n  %y = relu(%x) : f32[1,1]\n  return %y\n}\n");
  const compiler::Graph d = G("graph @d(%x: f32[1]) {\n  %y = relu(%x) : f32[1]\n  return %y\n}\n");
  EXPECT_EQ(GraphShapeHash(c), GraphShapeHash(d));
  EXPECT_EQ(FindingSignature(kRelu, a).rfind("accuracy:miscompile:relu:float#", 0), 0u);
  EXPECT_EQ(FindingName(kRelu, a).rfind("accuracy_relu_", 0), 0u) << FindingName(kRelu, a);
}

TEST(FindingSignatureTest, StructureAndDtypeFamiliesCount) {
  const compiler::Graph a = G("graph @a(%x: f32[4]) {\n  %y = relu(%x) : f32[4]\n  return %y\n}\n");
  const compiler::Graph bigger = G("graph @a(%x: f32[40]) {\n  %y = relu(%x) : f32[40]\n  return %y\n}\n");
  const compiler::Graph f16 = G("graph @a(%x: f16[4]) {\n  %y = relu(%x) : f16[4]\n  return %y\n}\n");
  const compiler::Graph two =
      G("graph @a(%x: f32[4]) {\n  %y = relu(%x) : f32[4]\n  %z = neg(%y) : f32[4]\n  return %z\n}\n");
  EXPECT_EQ(GraphShapeHash(a), GraphShapeHash(bigger));
  const compiler::Graph leaf =
      G("graph @a() {\n  %c = full() {dtype=f32, shape=[2,3], value=1.0} : f32[2,3]\n  %y = relu(%c) : f32[2,3]\n  return %y\n}\n");
  EXPECT_EQ(GraphShapeHash(a), GraphShapeHash(leaf));
  EXPECT_EQ(GraphShapeHash(a), GraphShapeHash(f16));
  const compiler::Graph i32 = G("graph @a(%x: i32[4]) {\n  %y = neg(%x) : i32[4]\n  return %y\n}\n");
  const compiler::Graph f32neg = G("graph @a(%x: f32[4]) {\n  %y = neg(%x) : f32[4]\n  return %y\n}\n");
  EXPECT_NE(GraphShapeHash(i32), GraphShapeHash(f32neg));
  EXPECT_NE(GraphShapeHash(a), GraphShapeHash(two));
  const repro::Signature other{repro::VerdictKind::kAccuracy, "precision:relu:f32"};
  EXPECT_NE(FindingSignature(kRelu, a), FindingSignature(other, a));
}

// A compile error's normalized message names its cause: the same rejection
// in two differently minimized graphs is one finding; another message is
// another. Likewise a shape mismatch of one op and kind.
TEST(FindingSignatureTest, CompileErrorsAndShapeMismatchesAreSignedByTheVerdict) {
  const compiler::Graph a = G("graph @a(%x: f32[4]) {\n  %y = sin(%x) : f32[4]\n  return %y\n}\n");
  const compiler::Graph b = G(
      "graph @b(%x: f32[4]) {\n  %y = sin(%x) : f32[4]\n  %z = neg(%y) : f32[4]\n  return %z\n}\n");
  const repro::Signature v9 = repro::CompileErrorSignature(
      "compile_error", "Type (tensor(float)) of input (v9) of operator (Sin) in node (v9_2)");
  const repro::Signature v16 = repro::CompileErrorSignature(
      "compile_error", "Type (tensor(float)) of input (v16) of operator (Sin) in node (v16)");
  EXPECT_EQ(FindingSignature(v9, a), FindingSignature(v16, b));
  EXPECT_EQ(FindingSignature(v9, a).find('#'), std::string::npos) << FindingSignature(v9, a);
  const repro::Signature cos = repro::CompileErrorSignature(
      "compile_error", "Type (tensor(float)) of input (v9) of operator (Cos) in node (v9)");
  EXPECT_NE(FindingSignature(v9, a), FindingSignature(cos, a));
  const repro::Signature shape = repro::ShapeMismatchSignature("sin", "f32[4]", "f32[1,4]");
  EXPECT_EQ(FindingSignature(shape, a), FindingSignature(shape, b));
  // Accuracy keeps the structure.
  EXPECT_NE(FindingSignature(kRelu, a), FindingSignature(kRelu, b));
}

}  // namespace
}  // namespace rk::fuzz
