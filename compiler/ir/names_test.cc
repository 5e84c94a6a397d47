#include "compiler/ir/names.h"

#include <gtest/gtest.h>

namespace rk::compiler {
namespace {

TEST(NamesTest, NodeNames) {
  EXPECT_TRUE(IsValidNodeName("x"));
  EXPECT_TRUE(IsValidNodeName("layer0.weight_1"));
  EXPECT_TRUE(IsValidNodeName("1.5"));
  EXPECT_TRUE(IsValidNodeName("_"));
  EXPECT_FALSE(IsValidNodeName(""));
  EXPECT_FALSE(IsValidNodeName("12"));
  EXPECT_FALSE(IsValidNodeName("a-b"));
  EXPECT_FALSE(IsValidNodeName("a b"));
  EXPECT_TRUE(IsPlainName("12"));
  EXPECT_FALSE(IsPlainName("x\n"));
}

TEST(NamesTest, CheckNodeNameExplains) {
  EXPECT_TRUE(CheckNodeName("ok").ok());
  EXPECT_EQ(CheckNodeName("7").message(),
            "name '7' is made only of digits, which is reserved for unnamed nodes");
  EXPECT_EQ(CheckNodeName("a\tb").message(), "name 'a\\tb' is not made of [A-Za-z0-9_.]");
}

}  // namespace
}  // namespace rk::compiler
