#include "compiler/ir/shape_inference.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

using Ints = std::vector<int64_t>;

TensorType F32(Shape s) { return TensorType(DType::kF32, std::move(s)); }
TensorType I32(Shape s) { return TensorType(DType::kI32, std::move(s)); }
TensorType Bool(Shape s) { return TensorType(DType::kBool, std::move(s)); }

// The inferred type as text, or "error: <message>".
std::string Infer(Op op, std::vector<TensorType> operands, const Attributes& attrs = {}) {
  absl::StatusOr<TensorType> t = InferType(op, operands, attrs);
  if (!t.ok()) {
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    return "error: " + std::string(t.status().message());
  }
  return t->ToString();
}

bool Fails(Op op, std::vector<TensorType> operands, const Attributes& attrs = {}) {
  return !InferType(op, operands, attrs).ok();
}

TEST(BroadcastShapesTest, NumPyRules) {
  EXPECT_EQ(*BroadcastShapes(Shape{8, 1, 3}, Shape{4, 3}), (Shape{8, 4, 3}));
  EXPECT_EQ(*BroadcastShapes(Shape{}, Shape{2}), (Shape{2}));
  EXPECT_EQ(*BroadcastShapes(Shape{0, 1}, Shape{1, 5}), (Shape{0, 5}));
  EXPECT_EQ(BroadcastShapes(Shape{8, 3}, Shape{4}).status().message(),
            "cannot broadcast [8,3] with [4]");
}

TEST(NormalizeAxisTest, Ranges) {
  EXPECT_EQ(*NormalizeAxis(-1, 3), 2);
  EXPECT_EQ(*NormalizeAxis(0, 1), 0);
  EXPECT_EQ(NormalizeAxis(2, 2).status().message(), "axis 2 out of range for rank 2");
  EXPECT_FALSE(NormalizeAxis(-3, 2).ok());
  EXPECT_FALSE(NormalizeAxis(0, 0).ok());
}

TEST(ReducedAxesTest, NormalizedSortedAndUnique) {
  EXPECT_EQ(ReducedAxes(Op::kReduceSum, {{"axes", Ints{-1, 0}}, {"keepdim", false}}, 3),
            (std::vector<int>{0, 2}));
  EXPECT_EQ(ReducedAxes(Op::kReduceMax, {{"axes", Ints{1, -2}}, {"keepdim", true}}, 2),
            (std::vector<int>{0, 1}));
  EXPECT_EQ(ReducedAxes(Op::kArgmax, {{"axis", int64_t{-1}}, {"keepdim", false}}, 4),
            (std::vector<int>{3}));
  EXPECT_EQ(ReducedAxes(Op::kReduceSum, {{"axes", Ints{}}, {"keepdim", false}}, 2),
            (std::vector<int>{}));
  // Out of range (never after InferType) reads as axis 0.
  EXPECT_EQ(ReducedAxes(Op::kArgmax, {{"axis", int64_t{5}}}, 2), (std::vector<int>{0}));
}

TEST(ShapeInferenceTest, Sources) {
  EXPECT_EQ(Infer(Op::kInput, {}), "error: input: input nodes are typed by the signature");
  HostTensor value(TensorType(DType::kI64, {2, 3}));
  EXPECT_EQ(Infer(Op::kConstant, {}, {{"value", value}}), "i64[2,3]");
  EXPECT_EQ(Infer(Op::kConstant, {}), "error: constant: missing attribute 'value'");
  EXPECT_EQ(Infer(Op::kFull, {}, {{"value", 1.5}, {"dtype", DType::kBF16}, {"shape", Ints{4}}}),
            "bf16[4]");
  EXPECT_EQ(Infer(Op::kFull, {}, {{"value", int64_t{2}}, {"dtype", DType::kI32}, {"shape", Ints{}}}),
            "i32[]");
  // An integer full cannot hold inf or nan (issue #24, defect 13).
  EXPECT_EQ(Infer(Op::kFull, {}, {{"value", INFINITY}, {"dtype", DType::kI32}, {"shape", Ints{}}}),
            "error: full: value inf is not representable in i32");
  EXPECT_TRUE(Fails(Op::kFull, {}, {{"value", NAN}, {"dtype", DType::kI64}, {"shape", Ints{2}}}));
  EXPECT_EQ(Infer(Op::kFull, {}, {{"value", INFINITY}, {"dtype", DType::kF32}, {"shape", Ints{}}}),
            "f32[]");
  EXPECT_EQ(Infer(Op::kFull, {}, {{"value", 1.0}, {"dtype", DType::kF32}, {"shape", Ints{-1}}}),
            "error: full: negative dimension in shape [-1]");
  EXPECT_EQ(Infer(Op::kIota, {}, {{"axis", int64_t{1}}, {"dtype", DType::kI64}, {"shape", Ints{2, 3}}}),
            "i64[2,3]");
  EXPECT_EQ(Infer(Op::kIota, {}, {{"axis", int64_t{2}}, {"dtype", DType::kI64}, {"shape", Ints{2, 3}}}),
            "error: iota: axis 2 out of range for rank 2");
  EXPECT_TRUE(Fails(Op::kIota, {}, {{"axis", int64_t{0}}, {"dtype", DType::kBool}, {"shape", Ints{2}}}));
  EXPECT_EQ(Infer(Op::kFull, {F32({1})}, {{"value", 1.0}, {"dtype", DType::kF32}, {"shape", Ints{}}}),
            "error: full: expects 0 operands, got 1");
}

TEST(ShapeInferenceTest, Unary) {
  for (Op op : kAllOps) {
    if (GetOpKind(op) != OpKind::kUnary) continue;
    SCOPED_TRACE(std::string(OpName(op)));
    EXPECT_EQ(Infer(op, {F32({2, 3})}), "f32[2,3]");
    EXPECT_EQ(Infer(op, {TensorType(DType::kF16, {})}), "f16[]");
    const bool ints = op == Op::kNeg || op == Op::kAbs || op == Op::kClip;
    EXPECT_EQ(Fails(op, {I32({2})}), !ints);
    EXPECT_TRUE(Fails(op, {Bool({2})}));
    EXPECT_TRUE(Fails(op, {F32({2}), F32({2})}));
  }
  EXPECT_EQ(Infer(Op::kExp, {I32({2})}), "error: exp: expects a float operand, got i32[2]");
  EXPECT_EQ(Infer(Op::kNeg, {TensorType(DType::kI64, {5})}), "i64[5]");
  EXPECT_EQ(Infer(Op::kRelu, {}), "error: relu: expects 1 operand, got 0");
  EXPECT_EQ(Infer(Op::kRelu, {F32({2})}, {{"axis", int64_t{0}}}),
            "error: relu: unknown attribute 'axis'");
  EXPECT_EQ(Infer(Op::kRelu, {F32({2, -1})}), "error: relu: negative dimension in operand 0 [2,-1]");
}

TEST(ShapeInferenceTest, Cumsum) {
  const Attributes attrs = {{"axis", int64_t{-1}}, {"exclusive", true}, {"reverse", false}};
  EXPECT_EQ(Infer(Op::kCumsum, {F32({2, 3})}, attrs), "f32[2,3]");
  EXPECT_EQ(Infer(Op::kCumsum, {I32({4})}, attrs), "i32[4]");
  EXPECT_EQ(Infer(Op::kCumsum, {Bool({4})}, attrs),
            "error: cumsum: expects a float or integer operand, got bool[4]");
  EXPECT_EQ(Infer(Op::kCumsum, {F32({})}, attrs), "error: cumsum: axis -1 out of range for rank 0");
  EXPECT_EQ(Infer(Op::kCumsum, {F32({2})}, {{"axis", int64_t{0}}, {"exclusive", true}}),
            "error: cumsum: missing attribute 'reverse'");
}

TEST(ShapeInferenceTest, Pad) {
  EXPECT_EQ(Infer(Op::kPad, {F32({2, 3})}, {{"pads", Ints{1, 0, 2, 3}}, {"value", 0.0}}),
            "f32[5,6]");
  EXPECT_EQ(Infer(Op::kPad, {Bool({})}, {{"pads", Ints{}}, {"value", int64_t{1}}}), "bool[]");
  EXPECT_EQ(Infer(Op::kPad, {F32({2})}, {{"pads", Ints{1}}, {"value", 0.0}}),
            "error: pad: pads needs 2 entries per axis of f32[2] (2), got 1");
  EXPECT_EQ(Infer(Op::kPad, {F32({2})}, {{"pads", Ints{1, -1}}, {"value", 0.0}}),
            "error: pad: axis 0: pads must be in [0, 2^40], got 1 and -1");
  EXPECT_TRUE(Fails(Op::kPad, {F32({2})}, {{"pads", Ints{0, int64_t{1} << 50}}, {"value", 0.0}}));
  EXPECT_TRUE(Fails(Op::kPad, {F32({2})}, {{"pads", Ints{0, 0}}}));
}

TEST(ShapeInferenceTest, ClipBoundsAreOptionalFloats) {
  EXPECT_EQ(Infer(Op::kClip, {F32({2})}, {{"min", -1.0}, {"max", 1.0}}), "f32[2]");
  EXPECT_EQ(Infer(Op::kClip, {I32({2})}, {{"max", int64_t{3}}}), "i32[2]");
  EXPECT_EQ(Infer(Op::kClip, {F32({2})}, {{"min", 2.0}, {"max", 1.0}}), "f32[2]");
  EXPECT_EQ(Infer(Op::kClip, {F32({2})}, {{"min", true}}),
            "error: clip: attribute 'min' must be a float");
  EXPECT_EQ(Infer(Op::kClip, {F32({2})}, {{"max", std::nan("")}}),
            "error: clip: max must not be NaN");
  EXPECT_EQ(Infer(Op::kClip, {F32({2})}, {{"lo", 1.0}}), "error: clip: unknown attribute 'lo'");
  EXPECT_EQ(Infer(Op::kClip, {Bool({2})}, {{"min", 0.0}}),
            "error: clip: expects a float or integer operand, got bool[2]");
}

TEST(ShapeInferenceTest, Binary) {
  for (Op op : kAllOps) {
    if (GetOpKind(op) != OpKind::kBinary) continue;
    SCOPED_TRACE(std::string(OpName(op)));
    EXPECT_EQ(Infer(op, {F32({8, 1, 3}), F32({4, 3})}), "f32[8,4,3]");
    EXPECT_EQ(Fails(op, {I32({2}), I32({})}), op == Op::kPow);
    EXPECT_TRUE(Fails(op, {Bool({2}), Bool({2})}));
    EXPECT_TRUE(Fails(op, {F32({2}), TensorType(DType::kF64, {2})}));
  }
  EXPECT_EQ(Infer(Op::kAdd, {F32({8, 3}), F32({4})}), "error: add: cannot broadcast f32[8,3] with f32[4]");
  EXPECT_EQ(Infer(Op::kMul, {F32({2}), I32({2})}), "error: mul: operand dtypes differ: f32[2] and i32[2]");
  EXPECT_EQ(Infer(Op::kSub, {I32({3, 1}), I32({1, 0})}), "i32[3,0]");
}

TEST(ShapeInferenceTest, CompareAndLogic) {
  for (Op op : {Op::kEq, Op::kNe, Op::kLt, Op::kLe, Op::kGt, Op::kGe}) {
    EXPECT_EQ(Infer(op, {F32({2, 1}), F32({3})}), "bool[2,3]");
    EXPECT_EQ(Infer(op, {I32({}), I32({})}), "bool[]");
    EXPECT_TRUE(Fails(op, {F32({2}), I32({2})}));
  }
  EXPECT_EQ(Infer(Op::kEq, {Bool({2}), Bool({2})}), "bool[2]");
  EXPECT_EQ(Infer(Op::kAnd, {Bool({2, 1}), Bool({3})}), "bool[2,3]");
  EXPECT_EQ(Infer(Op::kOr, {Bool({}), Bool({4})}), "bool[4]");
  EXPECT_EQ(Infer(Op::kNot, {Bool({4})}), "bool[4]");
  EXPECT_EQ(Infer(Op::kAnd, {Bool({2}), I32({2})}), "error: and: expects bool operands, got i32[2]");
  EXPECT_TRUE(Fails(Op::kNot, {F32({2})}));
  EXPECT_TRUE(Fails(Op::kOr, {Bool({2}), Bool({3})}));
}

TEST(ShapeInferenceTest, Where) {
  EXPECT_EQ(Infer(Op::kWhere, {Bool({4, 1}), F32({3}), F32({})}), "f32[4,3]");
  EXPECT_EQ(Infer(Op::kWhere, {F32({3}), F32({3}), F32({3})}),
            "error: where: condition must be bool, got f32[3]");
  EXPECT_TRUE(Fails(Op::kWhere, {Bool({3}), F32({3}), I32({3})}));
  EXPECT_EQ(Infer(Op::kWhere, {Bool({2}), F32({3, 1}), F32({3})}),
            "error: where: cannot broadcast condition bool[2] with f32[3,3]");
}

TEST(ShapeInferenceTest, Cast) {
  EXPECT_EQ(Infer(Op::kCast, {F32({2, 3})}, {{"dtype", DType::kBool}}), "bool[2,3]");
  EXPECT_EQ(Infer(Op::kCast, {Bool({})}, {{"dtype", DType::kF16}}), "f16[]");
  EXPECT_EQ(Infer(Op::kCast, {F32({2})}), "error: cast: missing attribute 'dtype'");
  EXPECT_EQ(Infer(Op::kCast, {F32({2})}, {{"dtype", std::string("f16")}}),
            "error: cast: attribute 'dtype' must be a dtype");
}

TEST(ShapeInferenceTest, Reductions) {
  const Attributes axis1 = {{"axes", Ints{1}}, {"keepdim", false}};
  const Attributes keep = {{"axes", Ints{-1, 0}}, {"keepdim", true}};
  for (Op op : {Op::kReduceSum, Op::kReduceMean, Op::kReduceMax, Op::kReduceMin}) {
    EXPECT_EQ(Infer(op, {F32({8, 128})}, axis1), "f32[8]");
    EXPECT_EQ(Infer(op, {F32({8, 128, 2})}, keep), "f32[1,128,1]");
    EXPECT_EQ(Infer(op, {F32({8, 2})}, {{"axes", Ints{}}, {"keepdim", false}}), "f32[8,2]");
    EXPECT_EQ(Fails(op, {I32({8, 2})}, axis1), op == Op::kReduceMean);
    EXPECT_TRUE(Fails(op, {Bool({8, 2})}, axis1));
  }
  EXPECT_EQ(Infer(Op::kReduceSum, {F32({8, 128})}, {{"axes", Ints{2}}, {"keepdim", false}}),
            "error: reduce_sum: axis 2 out of range for rank 2");
  EXPECT_EQ(Infer(Op::kReduceSum, {F32({8, 128})}, {{"axes", Ints{1, -1}}, {"keepdim", false}}),
            "error: reduce_sum: axis 1 appears more than once");
  EXPECT_EQ(Infer(Op::kReduceSum, {F32({8})}, {{"axes", Ints{0}}}),
            "error: reduce_sum: missing attribute 'keepdim'");
  EXPECT_EQ(Infer(Op::kReduceSum, {F32({0, 2})}, {{"axes", Ints{0}}, {"keepdim", false}}), "f32[2]");
  EXPECT_EQ(Infer(Op::kReduceMax, {F32({0, 2})}, {{"axes", Ints{0}}, {"keepdim", false}}),
            "error: reduce_max: cannot reduce axis 0 of size 0 in f32[0,2]");

  EXPECT_EQ(Infer(Op::kArgmax, {F32({4, 5})}, {{"axis", int64_t{-1}}, {"keepdim", false}}), "i64[4]");
  EXPECT_EQ(Infer(Op::kArgmax, {I32({4, 5})}, {{"axis", int64_t{0}}, {"keepdim", true}}), "i64[1,5]");
  EXPECT_EQ(Infer(Op::kArgmax, {F32({4})}, {{"axes", Ints{0}}, {"keepdim", true}}),
            "error: argmax: unknown attribute 'axes'");
}

TEST(ShapeInferenceTest, Reshape) {
  EXPECT_EQ(Infer(Op::kReshape, {F32({2, 3, 4})}, {{"shape", Ints{6, 4}}}), "f32[6,4]");
  EXPECT_EQ(Infer(Op::kReshape, {F32({1})}, {{"shape", Ints{}}}), "f32[]");
  EXPECT_EQ(Infer(Op::kReshape, {F32({2, 3})}, {{"shape", Ints{4, 2}}}),
            "error: reshape: cannot reshape f32[2,3] (6 elements) to [4,2] (8 elements)");
  EXPECT_EQ(Infer(Op::kReshape, {F32({2, 3})}, {{"shape", Ints{-1}}}),
            "error: reshape: negative dimension in shape [-1]");
  EXPECT_EQ(Infer(Op::kReshape, {F32({2, 3})}, {{"shape", int64_t{6}}}),
            "error: reshape: attribute 'shape' must be an int list");
}

TEST(ShapeInferenceTest, Transpose) {
  EXPECT_EQ(Infer(Op::kTranspose, {F32({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}), "f32[4,2,3]");
  EXPECT_EQ(Infer(Op::kTranspose, {F32({})}, {{"perm", Ints{}}}), "f32[]");
  EXPECT_EQ(Infer(Op::kTranspose, {F32({2, 3})}, {{"perm", Ints{0, 0}}}),
            "error: transpose: perm [0,0] is not a permutation of the 2 axes of f32[2,3]");
  EXPECT_TRUE(Fails(Op::kTranspose, {F32({2, 3})}, {{"perm", Ints{1}}}));
  EXPECT_TRUE(Fails(Op::kTranspose, {F32({2, 3})}, {{"perm", Ints{-1, 0}}}));
}

TEST(ShapeInferenceTest, BroadcastTo) {
  EXPECT_EQ(Infer(Op::kBroadcastTo, {F32({3, 1})}, {{"shape", Ints{2, 3, 4}}}), "f32[2,3,4]");
  EXPECT_EQ(Infer(Op::kBroadcastTo, {F32({})}, {{"shape", Ints{5}}}), "f32[5]");
  EXPECT_EQ(Infer(Op::kBroadcastTo, {F32({3})}, {{"shape", Ints{4}}}),
            "error: broadcast_to: cannot broadcast f32[3] to [4]");
  EXPECT_TRUE(Fails(Op::kBroadcastTo, {F32({1, 3})}, {{"shape", Ints{3}}}));
}

TEST(ShapeInferenceTest, Slice) {
  const Attributes attrs = {{"start", Ints{1, 0}}, {"limit", Ints{8, 4}}, {"stride", Ints{3, 1}}};
  EXPECT_EQ(Infer(Op::kSlice, {F32({10, 4})}, attrs), "f32[3,4]");
  EXPECT_EQ(Infer(Op::kSlice, {F32({10})}, {{"start", Ints{5}}, {"limit", Ints{5}}, {"stride", Ints{2}}}),
            "f32[0]");
  EXPECT_EQ(Infer(Op::kSlice, {F32({4})}, {{"start", Ints{0}}, {"limit", Ints{5}}, {"stride", Ints{1}}}),
            "error: slice: axis 0: need 0 <= start <= limit <= 4, got start 0 limit 5");
  EXPECT_EQ(Infer(Op::kSlice, {F32({4})}, {{"start", Ints{0}}, {"limit", Ints{4}}, {"stride", Ints{0}}}),
            "error: slice: axis 0: stride must be >= 1, got 0");
  // The largest stride takes one element; computing the size must not overflow
  // (found by the ONNX importer's fuzz harness).
  EXPECT_EQ(Infer(Op::kSlice, {F32({4})},
                  {{"start", Ints{1}}, {"limit", Ints{4}},
                   {"stride", Ints{std::numeric_limits<int64_t>::max()}}}),
            "f32[1]");
  EXPECT_TRUE(Fails(Op::kSlice, {F32({4, 4})}, {{"start", Ints{0}}, {"limit", Ints{4}}, {"stride", Ints{1}}}));
  EXPECT_TRUE(Fails(Op::kSlice, {F32({4})}, {{"start", Ints{3}}, {"limit", Ints{2}}, {"stride", Ints{1}}}));
}

TEST(ShapeInferenceTest, Concat) {
  EXPECT_EQ(Infer(Op::kConcat, {F32({2, 3}), F32({2, 5}), F32({2, 0})}, {{"axis", int64_t{-1}}}),
            "f32[2,8]");
  EXPECT_EQ(Infer(Op::kConcat, {I32({4})}, {{"axis", int64_t{0}}}), "i32[4]");
  EXPECT_EQ(Infer(Op::kConcat, {}, {{"axis", int64_t{0}}}), "error: concat: expects at least 1 operand, got 0");
  EXPECT_EQ(Infer(Op::kConcat, {F32({2, 3}), F32({3, 3})}, {{"axis", int64_t{1}}}),
            "error: concat: operand 1 f32[3,3] does not match f32[2,3] outside axis 1");
  EXPECT_TRUE(Fails(Op::kConcat, {F32({2}), I32({2})}, {{"axis", int64_t{0}}}));
  EXPECT_TRUE(Fails(Op::kConcat, {F32({})}, {{"axis", int64_t{0}}}));
}

TEST(ShapeInferenceTest, SqueezeUnsqueeze) {
  EXPECT_EQ(Infer(Op::kSqueeze, {F32({1, 3, 1})}, {{"axes", Ints{0, -1}}}), "f32[3]");
  EXPECT_EQ(Infer(Op::kSqueeze, {F32({2, 3})}, {{"axes", Ints{1}}}),
            "error: squeeze: axis 1 of f32[2,3] has size 3, not 1");
  EXPECT_EQ(Infer(Op::kUnsqueeze, {F32({2, 3})}, {{"axes", Ints{0, 3}}}), "f32[1,2,3,1]");
  EXPECT_EQ(Infer(Op::kUnsqueeze, {F32({2, 3})}, {{"axes", Ints{-1}}}), "f32[2,3,1]");
  EXPECT_EQ(Infer(Op::kUnsqueeze, {F32({})}, {{"axes", Ints{0, 1}}}), "f32[1,1]");
  EXPECT_EQ(Infer(Op::kUnsqueeze, {F32({2})}, {{"axes", Ints{2}}}),
            "error: unsqueeze: axis 2 out of range for rank 2");
  EXPECT_TRUE(Fails(Op::kUnsqueeze, {F32({2})}, {{"axes", Ints{0, 0}}}));
}

TEST(ShapeInferenceTest, Matmul) {
  EXPECT_EQ(Infer(Op::kMatmul, {F32({8, 4}), F32({4, 2})}), "f32[8,2]");
  EXPECT_EQ(Infer(Op::kMatmul, {F32({5, 1, 8, 4}), F32({3, 4, 2})}), "f32[5,3,8,2]");
  EXPECT_EQ(Infer(Op::kMatmul, {I32({2, 2}), I32({2, 2})}), "i32[2,2]");
  EXPECT_EQ(Infer(Op::kMatmul, {F32({8, 4}), F32({3, 2})}),
            "error: matmul: inner dimensions differ: f32[8,4] x f32[3,2]");
  EXPECT_EQ(Infer(Op::kMatmul, {F32({4}), F32({4, 2})}),
            "error: matmul: operands must have rank >= 2, got f32[4] and f32[4,2]");
  EXPECT_TRUE(Fails(Op::kMatmul, {F32({2, 8, 4}), F32({3, 4, 2})}));
  EXPECT_TRUE(Fails(Op::kMatmul, {Bool({2, 2}), Bool({2, 2})}));
}

TEST(ShapeInferenceTest, Composites) {
  EXPECT_EQ(Infer(Op::kGelu, {F32({2, 3})}), "f32[2,3]");
  EXPECT_TRUE(Fails(Op::kGelu, {I32({2})}));
  for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
    EXPECT_EQ(Infer(op, {F32({2, 3})}, {{"axis", int64_t{0}}}), "f32[2,3]");
    EXPECT_TRUE(Fails(op, {F32({2, 3})}, {{"axis", int64_t{2}}}));
    EXPECT_TRUE(Fails(op, {F32({2, 3})}));
    EXPECT_TRUE(Fails(op, {I32({2, 3})}, {{"axis", int64_t{0}}}));
  }
  const Attributes norm = {{"axis", int64_t{-1}}, {"eps", 1e-5}};
  EXPECT_EQ(Infer(Op::kLayerNorm, {F32({8, 128}), F32({128}), F32({128})}, norm), "f32[8,128]");
  EXPECT_EQ(Infer(Op::kRmsNorm, {F32({8, 128}), F32({128})}, norm), "f32[8,128]");
  EXPECT_EQ(Infer(Op::kRmsNorm, {F32({8, 128}), F32({128})}, {{"axis", int64_t{1}}, {"eps", int64_t{0}}}),
            "f32[8,128]");
  EXPECT_EQ(Infer(Op::kLayerNorm, {F32({8, 128}), F32({128}), F32({8})}, norm),
            "error: layer_norm: beta must be f32[128], got f32[8]");
  EXPECT_EQ(Infer(Op::kRmsNorm, {F32({8, 128}), F32({128})}, {{"axis", int64_t{0}}, {"eps", 1e-5}}),
            "error: rms_norm: axis must be the last axis (1), got 0");
  EXPECT_TRUE(Fails(Op::kRmsNorm, {F32({8, 128}), F32({128})}, {{"axis", int64_t{1}}, {"eps", -1.0}}));
  EXPECT_TRUE(Fails(Op::kRmsNorm, {F32({8, 128}), TensorType(DType::kF16, {128})}, norm));
  EXPECT_TRUE(Fails(Op::kLayerNorm, {F32({8, 128}), F32({128})}, norm));
  EXPECT_TRUE(Fails(Op::kRmsNorm, {F32({}), F32({})}, norm));
}

TEST(ShapeInferenceTest, Gather) {
  const TensorType i64_bt(DType::kI64, {2, 5});
  const Attributes axis0 = {{"axis", int64_t{0}}};
  // Embedding lookup: f32[V,D] by i64[B,T] gives f32[B,T,D].
  EXPECT_EQ(Infer(Op::kGather, {F32({50, 8}), i64_bt}, axis0), "f32[2,5,8]");
  EXPECT_EQ(Infer(Op::kGather, {F32({3, 4, 6}), I32({2})}, {{"axis", int64_t{1}}}), "f32[3,2,6]");
  EXPECT_EQ(Infer(Op::kGather, {F32({3, 4, 6}), I32({})}, {{"axis", int64_t{-1}}}), "f32[3,4]");
  EXPECT_EQ(Infer(Op::kGather, {I32({7}), I32({3, 1})}, axis0), "i32[3,1]");
  EXPECT_EQ(Infer(Op::kGather, {Bool({4, 2}), I32({0})}, axis0), "bool[0,2]");
  EXPECT_EQ(Infer(Op::kGather, {F32({4}), F32({2})}, axis0),
            "error: gather: indices must be i32 or i64, got f32[2]");
  EXPECT_EQ(Infer(Op::kGather, {F32({}), I32({2})}, axis0),
            "error: gather: data must have rank >= 1, got f32[]");
  EXPECT_EQ(Infer(Op::kGather, {F32({4, 2}), I32({2})}, {{"axis", int64_t{2}}}),
            "error: gather: axis 2 out of range for rank 2");
  EXPECT_EQ(Infer(Op::kGather, {F32({4, 2}), I32({2})}), "error: gather: missing attribute 'axis'");
  EXPECT_EQ(Infer(Op::kGather, {F32({4, 2}), I32({2})}, {{"axis", int64_t{0}}, {"axes", Ints{0}}}),
            "error: gather: unknown attribute 'axes'");
  EXPECT_TRUE(Fails(Op::kGather, {F32({4, 2})}, axis0));
}

Attributes ConvAttrs(Ints strides, Ints pads, Ints dilations, int64_t groups) {
  return {{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"groups", groups}};
}

TEST(ShapeInferenceTest, Conv2d) {
  const Attributes plain = ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
  EXPECT_EQ(Infer(Op::kConv2d, {F32({2, 3, 8, 8}), F32({4, 3, 3, 3})}, plain), "f32[2,4,6,6]");
  // Ho = floor((H + top + bottom - dh*(kH-1) - 1) / sh) + 1.
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 7, 9}), F32({6, 3, 3, 2})},
                  ConvAttrs({2, 3}, {1, 0, 2, 1}, {2, 1}, 1)),
            "f32[1,6,3,3]");
  // Grouped and depthwise.
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 4, 5, 5}), F32({6, 2, 1, 1})},
                  ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 2)),
            "f32[1,6,5,5]");
  const TensorType bf16_x(DType::kBF16, {1, 8, 4, 4});
  const TensorType bf16_w(DType::kBF16, {8, 1, 3, 3});
  EXPECT_EQ(Infer(Op::kConv2d, {bf16_x, bf16_w}, ConvAttrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 8)),
            "bf16[1,8,4,4]");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 4, 5, 5}), F32({6, 4, 1, 1})},
                  ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 2)),
            "error: conv2d: weights f32[6,4,1,1] need 2 input channels per group (4 / 2)");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 4, 5, 5}), F32({5, 1, 1, 1})},
                  ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 4)),
            "error: conv2d: groups 4 must divide the input channels (4) and the output channels (5)");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 2, 8}), F32({4, 3, 3, 3})}, plain),
            "error: conv2d: a window spanning 3 does not fit in H = 2 padded by 0 and 0");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 2, 8}), F32({4, 3, 3, 3})},
                  ConvAttrs({1, 1}, {1, 0, 0, 0}, {1, 1}, 1)),
            "f32[1,4,1,6]");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})},
                  ConvAttrs({0, 1}, {0, 0, 0, 0}, {1, 1}, 1)),
            "error: conv2d: strides entries must be in [1, 2147483647], got [0,1]");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})},
                  ConvAttrs({1, 1}, {0, 0, 0}, {1, 1}, 1)),
            "error: conv2d: pads needs 4 entries, got [0,0,0]");
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})},
                    ConvAttrs({1, 1}, {0, -1, 0, 0}, {1, 1}, 1)));
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})},
                    ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 0}, 1)));
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})},
                    ConvAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 0)));
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 0, 3})}, plain));
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({3, 8, 8}), F32({4, 3, 3, 3})}, plain));
  EXPECT_TRUE(Fails(Op::kConv2d, {F32({1, 3, 8, 8}), TensorType(DType::kF16, {4, 3, 3, 3})}, plain));
  EXPECT_TRUE(Fails(Op::kConv2d, {I32({1, 3, 8, 8}), I32({4, 3, 3, 3})}, plain));
  Attributes extra = plain;
  extra.Set("kernel", Ints{3, 3});
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})}, extra),
            "error: conv2d: unknown attribute 'kernel'");
  Attributes missing = plain;
  missing.Erase("dilations");
  EXPECT_EQ(Infer(Op::kConv2d, {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})}, missing),
            "error: conv2d: missing attribute 'dilations'");
}

TEST(ShapeInferenceTest, Pools) {
  const Attributes max = {{"kernel", Ints{3, 3}},
                          {"strides", Ints{2, 2}},
                          {"pads", Ints{1, 1, 1, 1}},
                          {"dilations", Ints{1, 1}}};
  EXPECT_EQ(Infer(Op::kMaxPool2d, {F32({2, 3, 7, 8})}, max), "f32[2,3,4,4]");
  const Attributes avg = {{"kernel", Ints{2, 1}},
                          {"strides", Ints{1, 1}},
                          {"pads", Ints{0, 0, 1, 0}},
                          {"count_include_pad", true}};
  EXPECT_EQ(Infer(Op::kAvgPool2d, {TensorType(DType::kF16, {1, 2, 4, 4})}, avg), "f16[1,2,4,4]");
  Attributes no_dilation = avg;
  no_dilation.Set("dilations", Ints{1, 1});
  EXPECT_EQ(Infer(Op::kAvgPool2d, {F32({1, 2, 4, 4})}, no_dilation),
            "error: avg_pool2d: unknown attribute 'dilations'");
  Attributes no_count = max;
  no_count.Set("count_include_pad", false);
  EXPECT_EQ(Infer(Op::kMaxPool2d, {F32({1, 2, 4, 4})}, no_count),
            "error: max_pool2d: unknown attribute 'count_include_pad'");
  Attributes zero_kernel = max;
  zero_kernel.Set("kernel", Ints{0, 3});
  EXPECT_TRUE(Fails(Op::kMaxPool2d, {F32({1, 2, 4, 4})}, zero_kernel));
  Attributes too_big = max;
  too_big.Set("dilations", Ints{4, 1});
  EXPECT_EQ(Infer(Op::kMaxPool2d, {F32({1, 2, 4, 4})}, too_big),
            "error: max_pool2d: a window spanning 9 does not fit in H = 4 padded by 1 and 1");
  EXPECT_TRUE(Fails(Op::kMaxPool2d, {I32({1, 2, 4, 4})}, max));
  EXPECT_TRUE(Fails(Op::kAvgPool2d, {F32({2, 4, 4})}, avg));
}

// Every op has a rule: given valid operands it either infers or rejects with
// InvalidArgument, never Internal.
TEST(ShapeInferenceTest, EveryOpHasARule) {
  for (Op op : kAllOps) {
    const int arity = OpArity(op) < 0 ? 2 : OpArity(op);
    std::vector<TensorType> operands(arity, F32({2, 2}));
    absl::StatusOr<TensorType> t = InferType(op, operands, {});
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << OpName(op);
    }
  }
}

}  // namespace
}  // namespace rk::compiler
