#include "compiler/ir/op.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(OpTest, NamesAreUniqueAndRoundTrip) {
  std::set<std::string> names;
  for (Op op : kAllOps) {
    const std::string name(OpName(op));
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
    ASSERT_EQ(ParseOp(name), op) << name;
  }
  EXPECT_EQ(ParseOp("no_such_op"), std::nullopt);
  EXPECT_EQ(OpName(Op::kReduceSum), "reduce_sum");
  EXPECT_EQ(OpName(Op::kBroadcastTo), "broadcast_to");
}

TEST(OpTest, ArityAndKind) {
  EXPECT_EQ(OpArity(Op::kInput), 0);
  EXPECT_EQ(OpArity(Op::kExp), 1);
  EXPECT_EQ(OpArity(Op::kAdd), 2);
  EXPECT_EQ(OpArity(Op::kWhere), 3);
  EXPECT_EQ(OpArity(Op::kConcat), -1);
  EXPECT_EQ(OpArity(Op::kLayerNorm), 3);
  EXPECT_EQ(GetOpKind(Op::kIota), OpKind::kSource);
  EXPECT_EQ(GetOpKind(Op::kGe), OpKind::kCompare);
  EXPECT_EQ(GetOpKind(Op::kNot), OpKind::kLogic);
  EXPECT_EQ(GetOpKind(Op::kArgmax), OpKind::kReduce);
  EXPECT_EQ(GetOpKind(Op::kCumsum), OpKind::kScan);
  EXPECT_EQ(GetOpKind(Op::kPad), OpKind::kLayout);
  EXPECT_EQ(GetOpKind(Op::kMatmul), OpKind::kMatmul);
  EXPECT_EQ(GetOpKind(Op::kSoftmax), OpKind::kComposite);
}

TEST(OpTest, Elementwise) {
  EXPECT_TRUE(IsElementwise(Op::kRelu));
  EXPECT_TRUE(IsElementwise(Op::kAdd));
  EXPECT_TRUE(IsElementwise(Op::kWhere));
  EXPECT_TRUE(IsElementwise(Op::kCast));
  EXPECT_TRUE(IsElementwise(Op::kNot));
  EXPECT_FALSE(IsElementwise(Op::kReduceSum));
  EXPECT_FALSE(IsElementwise(Op::kReshape));
  EXPECT_FALSE(IsElementwise(Op::kCumsum));
  EXPECT_FALSE(IsElementwise(Op::kPad));
  EXPECT_FALSE(IsElementwise(Op::kGelu));  // a composite, lowered before fusion
  EXPECT_FALSE(IsElementwise(Op::kConstant));
}

}  // namespace
}  // namespace rk::compiler
