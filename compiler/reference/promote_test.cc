#include "compiler/reference/promote.h"

#include <string>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(PromoteTest, PromotesEveryFloatTypeAndKeepsTheRest) {
  absl::StatusOr<Graph> g = Parse(R"(graph @p(%x: f16[2], %i: i32[2]) {
  %c = constant() {value=dense<bf16[2]>[0.5, 1.5]} : bf16[2]
  %f = full() {dtype=f32, shape=[2], value=0.1} : f32[2]
  %k = iota() {axis=0, dtype=bf16, shape=[2]} : bf16[2]
  %xc = cast(%x) {dtype=bf16} : bf16[2]
  %s = add(%xc, %c) : bf16[2]
  %t = add(%s, %k) : bf16[2]
  %u = cast(%t) {dtype=f32} : f32[2]
  %v = mul(%u, %f) : f32[2]
  %j = cast(%i) {dtype=f16} : f16[2]
  %m = argmax(%v) {axis=0, keepdim=false} : i64[]
  %b = gt(%v, %f) : bool[2]
  %n = cast(%v) {dtype=i32} : i32[2]
  return %v, %j, %m, %b, %n
})");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Graph> p = PromoteToF64(*g);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(PrintInline(*p), R"(graph @p(%x: f64[2], %i: i32[2]) {
  %c = constant() {value=dense<f64[2]>[0.5, 1.5]} : f64[2]
  %f = full() {dtype=f64, shape=[2], value=0.10000000149011612} : f64[2]
  %k = iota() {axis=0, dtype=f64, shape=[2]} : f64[2]
  %xc = cast(%x) {dtype=f64} : f64[2]
  %s = add(%xc, %c) : f64[2]
  %t = add(%s, %k) : f64[2]
  %u = cast(%t) {dtype=f64} : f64[2]
  %v = mul(%u, %f) : f64[2]
  %j = cast(%i) {dtype=f64} : f64[2]
  %m = argmax(%v) {axis=0, keepdim=false} : i64[]
  %b = gt(%v, %f) : bool[2]
  %n = cast(%v) {dtype=i32} : i32[2]
  return %v, %j, %m, %b, %n
}
)");
}

// Regression (a fuzz finding): a bf16 `full` of 5.7 holds 5.6875; the fp64
// reference must compute with that, not with the decimal, or a correct
// exp(x * 5.7) in bf16 looks 19x less accurate than the native reference.
TEST(PromoteTest, FullValuesAreRoundedToTheirDtypeFirst) {
  absl::StatusOr<Graph> g = Parse(R"(graph @p(%x: bf16[2]) {
  %c = full() {dtype=bf16, shape=[], value=5.7} : bf16[]
  %h = full() {dtype=f16, shape=[], value=0.1} : f16[]
  %d = full() {dtype=f64, shape=[], value=0.1} : f64[]
  %y = mul(%x, %c) : bf16[2]
  return %y, %h, %d
})");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Graph> p = PromoteToF64(*g);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(PrintInline(*p), R"(graph @p(%x: f64[2]) {
  %c = full() {dtype=f64, shape=[], value=5.6875} : f64[]
  %h = full() {dtype=f64, shape=[], value=0.0999755859375} : f64[]
  %d = full() {dtype=f64, shape=[], value=0.1} : f64[]
  %y = mul(%x, %c) : f64[2]
  return %y, %h, %d
}
)");
}

// A float clip's bounds and a float pad's value are rounded to the dtype as
// well; integer ones keep theirs (they convert where they are used).
TEST(PromoteTest, ClipBoundsAreRoundedToTheirDtype) {
  absl::StatusOr<Graph> g = Parse(R"(graph @p(%x: f16[2], %i: i32[2]) {
  %c = clip(%x) {max=0.1, min=-5.7} : f16[2]
  %d = clip(%i) {min=-2.5} : i32[2]
  %p = pad(%x) {pads=[1,0], value=0.1} : f16[3]
  %q = pad(%i) {pads=[0,1], value=0.1} : i32[3]
  return %c, %d, %p, %q
})");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Graph> p = PromoteToF64(*g);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(PrintInline(*p), R"(graph @p(%x: f64[2], %i: i32[2]) {
  %c = clip(%x) {max=0.0999755859375, min=-5.69921875} : f64[2]
  %d = clip(%i) {min=-2.5} : i32[2]
  %p = pad(%x) {pads=[1,0], value=0.0999755859375} : f64[3]
  %q = pad(%i) {pads=[0,1], value=0.1} : i32[3]
  return %c, %d, %p, %q
}
)");
}

TEST(PromoteTest, F64GraphIsUnchanged) {
  const std::string text = R"(graph @q(%x: f64[3]) {
  %y = exp(%x) : f64[3]
  %z = reduce_sum(%y) {axes=[0], keepdim=true} : f64[1]
  return %z
}
)";
  absl::StatusOr<Graph> g = Parse(text);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Graph> p = PromoteToF64(*g);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, *g);
}

TEST(PromoteTest, PromotedDType) {
  EXPECT_EQ(PromotedDType(DType::kF16), DType::kF64);
  EXPECT_EQ(PromotedDType(DType::kBF16), DType::kF64);
  EXPECT_EQ(PromotedDType(DType::kF32), DType::kF64);
  EXPECT_EQ(PromotedDType(DType::kI32), DType::kI32);
  EXPECT_EQ(PromotedDType(DType::kBool), DType::kBool);
}

}  // namespace
}  // namespace rk::compiler
