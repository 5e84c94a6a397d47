#include "compiler/onnx/fuse_gelu.h"

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

std::string Fused(const std::string& text, int want) {
  absl::StatusOr<Graph> g = Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  absl::StatusOr<int> n = FuseGelu(*g);
  EXPECT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, want);
  return PrintInline(*g);
}

constexpr char kFused[] =
    "graph @g(%x: f32[4]) {\n"
    "  %y = gelu(%x) : f32[4]\n"
    "  return %y\n"
    "}\n";

TEST(FuseGeluTest, TheExportersForm) {
  EXPECT_EQ(Fused("graph @g(%x: f32[4]) {\n"
                  "  %r2 = full() {dtype=f32, shape=[], value=1.4142135381698608} : f32[]\n"
                  "  %d = div(%x, %r2) : f32[4]\n"
                  "  %e = erf(%d) : f32[4]\n"
                  "  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]\n"
                  "  %s = add(%e, %one) : f32[4]\n"
                  "  %m = mul(%x, %s) : f32[4]\n"
                  "  %half = full() {dtype=f32, shape=[], value=0.5} : f32[]\n"
                  "  %y = mul(%m, %half) : f32[4]\n"
                  "  return %y\n"
                  "}\n",
                  1),
            kFused);
}

TEST(FuseGeluTest, HalfFirstAndReciprocalScale) {
  EXPECT_EQ(Fused("graph @g(%x: f32[4]) {\n"
                  "  %half = full() {dtype=f32, shape=[], value=0.5} : f32[]\n"
                  "  %h = mul(%half, %x) : f32[4]\n"
                  "  %c = full() {dtype=f32, shape=[], value=0.7071067690849304} : f32[]\n"
                  "  %d = mul(%x, %c) : f32[4]\n"
                  "  %e = erf(%d) : f32[4]\n"
                  "  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]\n"
                  "  %s = add(%one, %e) : f32[4]\n"
                  "  %y = mul(%h, %s) : f32[4]\n"
                  "  return %y\n"
                  "}\n",
                  1),
            kFused);
}

TEST(FuseGeluTest, SharedIntermediatesOrOtherConstantsStay) {
  const std::string shared =
      "graph @g(%x: f32[4]) {\n"
      "  %r2 = full() {dtype=f32, shape=[], value=1.4142135381698608} : f32[]\n"
      "  %d = div(%x, %r2) : f32[4]\n"
      "  %e = erf(%d) : f32[4]\n"
      "  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]\n"
      "  %s = add(%e, %one) : f32[4]\n"
      "  %m = mul(%x, %s) : f32[4]\n"
      "  %half = full() {dtype=f32, shape=[], value=0.5} : f32[]\n"
      "  %y = mul(%m, %half) : f32[4]\n"
      "  return %y, %e\n"
      "}\n";
  Fused(shared, 0);
  const std::string third =
      "graph @g(%x: f32[4]) {\n"
      "  %r2 = full() {dtype=f32, shape=[], value=1.4142135381698608} : f32[]\n"
      "  %d = div(%x, %r2) : f32[4]\n"
      "  %e = erf(%d) : f32[4]\n"
      "  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]\n"
      "  %s = add(%e, %one) : f32[4]\n"
      "  %m = mul(%x, %s) : f32[4]\n"
      "  %third = full() {dtype=f32, shape=[], value=0.3333} : f32[]\n"
      "  %y = mul(%m, %third) : f32[4]\n"
      "  return %y\n"
      "}\n";
  Fused(third, 0);
}

}  // namespace
}  // namespace rk::compiler::onnx_io
