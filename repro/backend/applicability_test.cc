#include "repro/backend/applicability.h"

#include <string>

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

BackendHello Declared() {
  BackendHello hello;
  hello.name = "b";
  hello.dtypes = {"f32", "i32", "bool"};
  hello.ops = {"gt", "where", "cast", "add", "constant"};
  hello.op_dtypes = {{"gt", {"f32"}}, {"where", {"f32"}}, {"cast", {"f32"}}};
  return hello;
}

std::optional<NotApplicable> Check(const BackendHello& hello, const std::string& text) {
  absl::StatusOr<compiler::Graph> graph = compiler::Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return NotApplicable{"unparsable", ""};
  return CheckApplicable(hello, *graph);
}

TEST(ApplicabilityTest, AnUndeclaredOpDTypePairNamesOpDTypeAndNode) {
  std::optional<NotApplicable> no = Check(Declared(), R"(
graph @g(%a: i32[3], %b: i32[3]) {
  %s = add(%a, %b) : i32[3]
  %y = gt(%s, %b) : bool[3]
  return %y
})");
  ASSERT_TRUE(no.has_value());
  EXPECT_EQ(no->what, "op gt on i32");
  EXPECT_EQ(no->node, "%y");
  EXPECT_EQ(no->Message("ort"), "backend 'ort' does not support op gt on i32 (at %y)");
}

TEST(ApplicabilityTest, TheComparisonsOperandsCountNotItsBoolResult) {
  EXPECT_FALSE(Check(Declared(), R"(
graph @g(%a: f32[3], %b: f32[3]) {
  %y = gt(%a, %b) : bool[3]
  return %y
})").has_value());
}

TEST(ApplicabilityTest, WhereIsReadByItsValuesNotItsCondition) {
  const char* text = R"(
graph @g(%c: bool[3], %a: DT[3], %b: DT[3]) {
  %y = where(%c, %a, %b) : DT[3]
  return %y
})";
  std::string f32 = text, i32 = text;
  for (std::string* s : {&f32, &i32}) {
    const std::string dt = s == &f32 ? "f32" : "i32";
    for (size_t at; (at = s->find("DT")) != std::string::npos;) s->replace(at, 2, dt);
  }
  EXPECT_FALSE(Check(Declared(), f32).has_value());
  std::optional<NotApplicable> no = Check(Declared(), i32);
  ASSERT_TRUE(no.has_value());
  EXPECT_EQ(no->what, "op where on i32");
}

TEST(ApplicabilityTest, CastIsReadByItsSource) {
  std::optional<NotApplicable> no = Check(Declared(), R"(
graph @g(%a: i32[3]) {
  %y = cast(%a) {dtype=f32} : f32[3]
  return %y
})");
  ASSERT_TRUE(no.has_value());
  EXPECT_EQ(no->what, "op cast on i32");
}

TEST(ApplicabilityTest, OpsAndDTypesOfTheHelloStillCount) {
  std::optional<NotApplicable> op = Check(Declared(), R"(
graph @g(%a: f32[3]) {
  %y = exp(%a) : f32[3]
  return %y
})");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->what, "op exp");
  std::optional<NotApplicable> dtype = Check(Declared(), R"(
graph @g(%a: f64[3]) {
  %y = add(%a, %a) : f64[3]
  return %y
})");
  ASSERT_TRUE(dtype.has_value());
  EXPECT_EQ(dtype->what, "dtype f64");
  EXPECT_EQ(dtype->node, "%a");
}

TEST(ApplicabilityTest, AnOpTheMapDoesNotNameIsLimitedByDTypesAlone) {
  EXPECT_FALSE(Check(Declared(), R"(
graph @g(%a: i32[3]) {
  %c = constant() {value=dense<i32[3]>[1, 2, 3]} : i32[3]
  %y = add(%a, %c) : i32[3]
  return %y
})").has_value());
}

TEST(ApplicabilityTest, WithoutAMapEveryDeclaredDTypeGoes) {
  BackendHello hello = Declared();
  hello.op_dtypes.clear();
  EXPECT_FALSE(Check(hello, R"(
graph @g(%a: i32[3], %b: i32[3]) {
  %y = gt(%a, %b) : bool[3]
  return %y
})").has_value());
}

}  // namespace
}  // namespace rk::repro
