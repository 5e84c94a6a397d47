#include "compiler/ir/shape.h"

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(ShapeTest, Scalar) {
  Shape s;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_TRUE(s.Strides().empty());
  EXPECT_EQ(s.ToString(), "[]");
}

TEST(ShapeTest, ElementsAndStrides) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.dim(1), 3);
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.Strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(s.ToString(), "[2,3,4]");
  EXPECT_TRUE(s.is_static());
  EXPECT_EQ((Shape{5, 0, 2}).num_elements(), 0);
}

TEST(ShapeTest, ConstructorsAndEquality) {
  std::vector<int64_t> dims = {8, 128};
  EXPECT_EQ(Shape(dims), (Shape{8, 128}));
  EXPECT_EQ(Shape(absl::MakeConstSpan(dims)), (Shape{8, 128}));
  EXPECT_NE((Shape{8, 128}), (Shape{128, 8}));
  EXPECT_NE((Shape{1}), Shape());
}

TEST(TensorTypeTest, ToStringAndSizes) {
  TensorType t(DType::kF32, {8, 128});
  EXPECT_EQ(t.ToString(), "f32[8,128]");
  EXPECT_EQ(t.num_elements(), 1024);
  EXPECT_EQ(t.byte_size(), 4096);
  EXPECT_EQ(TensorType(DType::kBool, {}).ToString(), "bool[]");
  EXPECT_EQ(TensorType(DType::kF16, {3}).byte_size(), 6);
  EXPECT_NE(t, TensorType(DType::kF64, {8, 128}));
  EXPECT_EQ(t, TensorType(DType::kF32, Shape{8, 128}));
}

}  // namespace
}  // namespace rk::compiler
