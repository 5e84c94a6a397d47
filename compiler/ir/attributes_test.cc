#include "compiler/ir/attributes.h"

#include <cmath>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(AttributesTest, TypedGetters) {
  Attributes a = {{"axis", int64_t{1}},     {"eps", 1e-5},
                  {"keepdim", true},         {"name", std::string("x")},
                  {"axes", std::vector<int64_t>{0, 2}}, {"dtype", DType::kBF16}};
  EXPECT_EQ(*a.GetInt("axis"), 1);
  EXPECT_EQ(*a.GetFloat("eps"), 1e-5);
  EXPECT_EQ(*a.GetFloat("axis"), 1.0);  // ints are accepted as floats
  EXPECT_TRUE(*a.GetBool("keepdim"));
  EXPECT_EQ(*a.GetString("name"), "x");
  EXPECT_EQ(*a.GetInts("axes"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(*a.GetDType("dtype"), DType::kBF16);
}

TEST(AttributesTest, GetterErrors) {
  Attributes a = {{"axis", int64_t{1}}};
  EXPECT_EQ(a.GetInt("axes").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.GetInt("axes").status().message(), "missing attribute 'axes'");
  EXPECT_EQ(a.GetInts("axis").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(a.GetInts("axis").status().message(), "attribute 'axis' must be an int list, not int");
  EXPECT_FALSE(a.GetBool("axis").ok());
}

TEST(AttributesTest, SortedAndMutable) {
  Attributes a;
  EXPECT_TRUE(a.empty());
  a.Set("z", int64_t{1});
  a.Set("a", int64_t{2});
  a.Set("m", int64_t{3});
  std::vector<std::string> order;
  for (const auto& [name, value] : a.values()) order.push_back(name);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "m", "z"}));
  a.Set("a", int64_t{5});
  EXPECT_EQ(*a.GetInt("a"), 5);
  a.Erase("a");
  EXPECT_FALSE(a.Has("a"));
  EXPECT_TRUE(a.Has("z"));
}

TEST(AttributesTest, Equality) {
  EXPECT_EQ((Attributes{{"x", 1.0}}), (Attributes{{"x", 1.0}}));
  EXPECT_NE((Attributes{{"x", 1.0}}), (Attributes{{"x", int64_t{1}}}));  // kinds differ
  EXPECT_NE((Attributes{{"x", 0.0}}), (Attributes{{"x", -0.0}}));        // doubles compare bitwise
  EXPECT_EQ((Attributes{{"x", std::nan("")}}), (Attributes{{"x", std::nan("")}}));
  EXPECT_NE((Attributes{{"x", 1.0}}), (Attributes{{"y", 1.0}}));
  EXPECT_NE((Attributes{{"x", 1.0}}), (Attributes{{"x", 1.0}, {"y", 1.0}}));

  HostTensor a = HostTensor::Full(TensorType(DType::kF32, {2}), 1.0);
  HostTensor b = HostTensor::Full(TensorType(DType::kF32, {2}), 1.0);  // other storage, same bytes
  HostTensor c = HostTensor::Full(TensorType(DType::kF32, {2}), 2.0);
  EXPECT_TRUE(AttrValueEquals(a, b));
  EXPECT_FALSE(AttrValueEquals(a, c));
  EXPECT_EQ(*(Attributes{{"value", a}}).GetTensor("value")->data<float>(), 1.0f);
}

}  // namespace
}  // namespace rk::compiler
