#include "compiler/ir/parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kHeader[] = "graph @g(%x: f32[8,4], %w: f32[4], %v: f32[3]) {\n";

// The first line of a parse error ("<input>:L:C: message").
std::string ErrorLine(const std::string& text) {
  absl::StatusOr<Graph> g = Parse(text);
  if (g.ok()) return "parsed fine";
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message(g.status().message());
  return message.substr(0, message.find('\n'));
}

// A body line inside a valid header and footer.
std::string WithBody(const std::string& line) {
  return std::string(kHeader) + line + "\n  return %x\n}\n";
}

TEST(ParserTest, ParsesTheDesignExample) {
  const char* text = R"(// A softmax block.
graph @block(%x: f32[8,128], %w: f32[128]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]   // row max
  %d = sub(%x, %m) : f32[8,128]
  %e = exp(%d) : f32[8,128]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[8,1]
  %y = div(%e, %s) : f32[8,128]
  %o = mul(%y, %w) : f32[8,128]
  return %o, %m
}
)";
  absl::StatusOr<Graph> g = Parse(text);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->name(), "block");
  EXPECT_EQ(g->num_nodes(), 8);
  EXPECT_EQ(g->num_inputs(), 2);
  EXPECT_EQ(g->node(NodeId(2)).op, Op::kReduceMax);
  EXPECT_EQ(*g->node(NodeId(2)).attrs.GetInts("axes"), std::vector<int64_t>{1});
  EXPECT_EQ(g->outputs(), (std::vector<NodeId>{NodeId(7), NodeId(2)}));
}

TEST(ParserTest, DigitNamesAreUnnamedNodes) {
  absl::StatusOr<Graph> g =
      Parse("graph @g(%0: f32[2]) {\n %1 = exp(%0) : f32[2]\n return %1, %1\n}");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(NodeId(1)).name, "");
  EXPECT_EQ(g->outputs().size(), 2u);
}

TEST(ParserTest, ErrorShowsTheLineAndACaret) {
  absl::StatusOr<Graph> g = Parse(WithBody("  %e = expp(%x) : f32[8,4]"), {.filename = "m.rk"});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "m.rk:2:8: unknown op 'expp'\n"
            "  %e = expp(%x) : f32[8,4]\n"
            "       ^");
}

struct Malformed {
  const char* what;
  std::string text;
  std::string location;  // "line:col"
  std::string message;   // exact, or a substring when `exact` is false
  bool exact = true;
};

std::vector<Malformed> MalformedInputs() {
  std::string h = kHeader;
  return {
      {"unknown op", WithBody("  %e = expp(%x) : f32[8,4]"), "2:8", "unknown op 'expp'"},
      {"wrong arity", WithBody("  %e = exp(%x, %w) : f32[8,4]"), "2:8",
       "exp takes 1 operand, got 2"},
      {"wrong arity, binary", WithBody("  %e = add(%x) : f32[8,4]"), "2:8",
       "add takes 2 operands, got 1"},
      {"shape mismatch", WithBody("  %a = add(%x, %v) : f32[8,4]"), "2:8", "cannot broadcast",
       false},
      {"dtype mismatch", WithBody("  %e = exp(%x) : f16[8,4]"), "2:18",
       "declared type f16[8,4] but inference gives f32[8,4]"},
      {"shape of declared type", WithBody("  %e = exp(%x) : f32[8,5]"), "2:18",
       "declared type f32[8,5] but inference gives f32[8,4]"},
      {"undefined name", WithBody("  %e = exp(%y) : f32[8,4]"), "2:12", "undefined value '%y'"},
      {"use before definition", WithBody("  %e = exp(%e) : f32[8,4]"), "2:12",
       "undefined value '%e'"},
      {"duplicate name", WithBody("  %x = exp(%x) : f32[8,4]"), "2:3",
       "duplicate name '%x' (first defined at 1:10)"},
      {"out-of-range axis", WithBody("  %m = reduce_max(%x) {axes=[2], keepdim=true} : f32[8,1]"),
       "2:8", "out of range", false},
      {"negative dim", "graph @g(%x: f32[8,-4]) {\n  return %x\n}\n", "1:20",
       "negative dimension -4"},
      {"truncated file", "graph @g(%x: f32[8]) {\n  %e = exp(%x) : f32[8]\n", "3:1",
       "expected a node '%name = op(...)' or 'return', got end of input"},
      {"truncated mid-type", "graph @g(%x: f32[8", "1:19", "expected ',' or ']', got end of input"},
      {"binary garbage", std::string("\x7f" "ELF\x02\x01\x01\x00", 8), "1:1",
       "unexpected character", false},
      {"missing return", "graph @g(%x: f32[8]) {\n  %e = exp(%x) : f32[8]\n}\n", "3:1",
       "missing 'return' before '}'"},
      {"empty return", "graph @g(%x: f32[8]) {\n  return\n}\n", "2:3",
       "'return' needs at least one value"},
      {"bad attribute type", WithBody("  %m = reduce_max(%x) {axes=1, keepdim=true} : f32[8,1]"),
       "2:8", "attribute 'axes' must be an int list", false},
      {"unknown attribute value", WithBody("  %m = reduce_max(%x) {axes=foo} : f32[8,1]"), "2:29",
       "unknown attribute value 'foo'"},
      {"duplicate attribute", WithBody("  %c = cast(%x) {dtype=f16, dtype=f32} : f16[8,4]"), "2:29",
       "duplicate attribute 'dtype'"},
      {"unterminated string", WithBody("  %e = exp(%x) {note=\"abc} : f32[8,4]"), "2:22",
       "unterminated string"},
      {"unknown escape", WithBody("  %e = exp(%x) {note=\"a\\qb\"} : f32[8,4]"), "2:24",
       "unknown escape '\\q'"},
      {"too many literal values",
       WithBody("  %c = constant() {value=dense<f32[2]>[1.0, 2.0, 3.0]} : f32[2]"), "2:39",
       "literal of type f32[2] needs 2 elements, got more"},
      {"too few literal values", WithBody("  %c = constant() {value=dense<f32[2,2]>[1.0]} : f32[2,2]"),
       "2:41", "literal of type f32[2,2] needs 4 elements, got 1"},
      {"int literal gets a float", WithBody("  %c = constant() {value=dense<i32[1]>[1.5]} : i32[1]"),
       "2:40", "expected an integer for i32, got '1.5'"},
      {"f32 literal overflows", WithBody("  %c = constant() {value=dense<f32[1]>[1e39]} : f32[1]"),
       "2:40", "number '1e39' is out of range for f32"},
      {"i32 literal overflows",
       WithBody("  %c = constant() {value=dense<i32[1]>[2147483648]} : i32[1]"), "2:40",
       "value 2147483648 is out of range for i32"},
      {"huge literal", WithBody("  %c = constant() {value=dense<f32[5000000]>[0.0]} : f32[5000000]"),
       "2:32", "inline literal of 5000000 elements exceeds the limit of 4194304"},
      {"unknown dtype", "graph @g(%x: f33[8]) {\n  return %x\n}\n", "1:14",
       "unknown dtype 'f33' (f16, bf16, f32, f64, i32, i64, bool)"},
      {"huge number", "graph @g(%x: f32[99999999999999999999]) {\n  return %x\n}\n", "1:18",
       "integer '99999999999999999999' is out of range"},
      {"giant dims", "graph @g(%x: f32[1048576,1048576,2]) {\n  return %x\n}\n", "1:34",
       "type has more than 2^40 elements (the limit)"},
      {"missing result type", h + "  %e = exp(%x)\n  return %e\n}\n", "3:3",
       "expected ':' and the result type, got 'return'"},
      {"numeric name must be the id", WithBody("  %5 = exp(%x) : f32[8,4]"), "2:3",
       "numeric name '%5' must equal the node's id 3 (digit-only names stand for unnamed nodes)"},
      {"input op in the body", WithBody("  %i = input() : f32[8,4]"), "2:8",
       "inputs are declared in the graph signature, not with 'input'"},
      {"blob without resolver",
       WithBody("  %c = constant() {value=dense<f32[2]>sha256:" + std::string(64, 'a') +
                "} : f32[2]"),
       "2:39", "a sha256 constant reference needs a blob resolver (none given)"},
      {"short digest", WithBody("  %c = constant() {value=dense<f32[2]>sha256:abc} : f32[2]"),
       "2:39", "a sha256 reference needs exactly 64 hex digits"},
      {"text after the graph", WithBody("  %e = exp(%x) : f32[8,4]") + "graph", "5:1",
       "unexpected 'graph' after the graph"},
      {"malformed number", WithBody("  %c = full() {value=1.5.2} : f32[]"), "2:22",
       "malformed number '1.5.2'"},
      {"no graph keyword", "grph @g() {}", "1:1", "expected 'graph', got 'grph'"},
  };
}

TEST(ParserTest, MalformedInputsReportLineColumnAndReason) {
  std::vector<Malformed> cases = MalformedInputs();
  ASSERT_GE(cases.size(), 15u);
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.what);
    std::string line = ErrorLine(c.text);
    std::string prefix = "<input>:" + c.location + ": ";
    EXPECT_THAT(line, StartsWith(prefix));
    if (c.exact) {
      EXPECT_EQ(line, prefix + c.message);
    } else {
      EXPECT_THAT(line, HasSubstr(c.message));
    }
  }
}

// A file's inline literals are capped; text reprokit printed for its own
// processes (PrintInline on the oracle's wire) holds every constant inline.
TEST(ParserTest, InlineTextFromReprokitHasNoLiteralLimit) {
  const int64_t n = kMaxLiteralElements + 1;
  std::string text = absl::StrCat("graph @g() {\n  %c = constant() {value=dense<i32[", n, "]>[");
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&text, i == 0 ? "" : ",", i % 7);
  absl::StrAppend(&text, "]} : i32[", n, "]\n  return %c\n}\n");
  EXPECT_THAT(ErrorLine(text), HasSubstr("exceeds the limit of 4194304"));
  absl::StatusOr<Graph> graph = ParseInline(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> again = ParseInline(PrintInline(*graph));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintInline(*again), PrintInline(*graph));

  ParseOptions small;
  small.max_literal_elements = 3;
  absl::StatusOr<Graph> capped = Parse(
      "graph @g() {\n  %c = constant() {value=dense<f32[4]>[1,2,3,4]} : f32[4]\n  return %c\n}\n",
      small);
  EXPECT_THAT(capped.status().message(), HasSubstr("inline literal of 4 elements exceeds the limit of 3"));
}

// Random graphs, their round trips and mutations of their text:
// compiler/generator/ir_round_trip_test.cc.
TEST(ParserTest, SurvivesHostileInputs) {
  std::vector<std::string> inputs = {
      "",
      "graph",
      "graph @",
      "graph @g(%x: f32[" + std::string(100000, '['),
      "graph @g(%x: f32[" + std::string(200000, '9'),
      std::string(5000, '{') + std::string(5000, '}'),
      "graph @g(%x: f32[8]) {\n  %c = constant() {value=dense<f32[8]>[" + std::string(1 << 20, '1'),
      std::string("\0\0\0\xff\xfe", 5),
      "graph @\"unterminated",
      "graph @g() {\n  return %0\n}\n",
  };
  for (const std::string& text : inputs) EXPECT_FALSE(Parse(text).ok());
}

TEST(ParserTest, ParseFileNamesThePath) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/bad.rk";
  std::ofstream(path) << "graph @g(%x: f32[2]) {\n  return %y\n}\n";
  absl::StatusOr<Graph> g = ParseFile(path);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), StartsWith(path + ":2:10: undefined value '%y'"));
  EXPECT_EQ(ParseFile(path + ".missing").status().code(), absl::StatusCode::kNotFound);
}

TEST(ParserTest, GradMarkersParsePrintAndRoundTrip) {
  const std::string text =
      "graph @f(%x: f32[4] grad, %w: f32[4,4] grad, %i: i32[4], %b: bf16[2]) {\n"
      "  %y = matmul(%w, %w) : f32[4,4]\n"
      "  return %y, %x\n"
      "}\n";
  absl::StatusOr<Graph> g = Parse(text);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(IsMarkedForGrad(g->node(NodeId(0))));
  EXPECT_TRUE(IsMarkedForGrad(g->node(NodeId(1))));
  EXPECT_FALSE(IsMarkedForGrad(g->node(NodeId(2))));
  EXPECT_FALSE(IsMarkedForGrad(g->node(NodeId(3))));
  EXPECT_EQ(PrintInline(*g), text);
  EXPECT_TRUE(Verify(*g).ok());
}

TEST(ParserTest, GradMarkerChangesTheCanonicalHash) {
  absl::StatusOr<Graph> plain = Parse("graph @f(%x: f32[4]) {\n  return %x\n}\n");
  absl::StatusOr<Graph> marked = Parse("graph @f(%x: f32[4] grad) {\n  return %x\n}\n");
  ASSERT_TRUE(plain.ok() && marked.ok());
  EXPECT_NE(*plain, *marked);
  EXPECT_NE(CanonicalHash(*plain), CanonicalHash(*marked));
  EXPECT_THAT(PrintCanonical(*marked), HasSubstr("%0: f32[4] grad)"));
}

TEST(ParserTest, GradOnANonFloatInputIsAnErrorAtTheMarker) {
  EXPECT_EQ(ErrorLine("graph @f(%x: f32[4], %i: i32[4] grad) {\n  return %x\n}\n"),
            "<input>:1:33: 'grad' on input '%i' of type i32[4]: only float inputs have gradients");
  EXPECT_THAT(ErrorLine("graph @f(%b: bool[] grad) {\n  return %b\n}\n"),
              HasSubstr("only float inputs have gradients"));
  // Any other word after a type is still a syntax error.
  EXPECT_THAT(ErrorLine("graph @f(%x: f32[4] grads) {\n  return %x\n}\n"), HasSubstr("1:21"));
}

TEST(VerifierGradTest, OnlyATrueGradMarkOnAFloatInput) {
  absl::StatusOr<Graph> g = Parse("graph @f(%x: f32[4] grad, %i: i32[4]) {\n  return %x\n}\n");
  ASSERT_TRUE(g.ok());
  Graph bad = *g;
  bad.mutable_node(NodeId(1)).attrs.Set(kGradAttr, true);
  EXPECT_THAT(Verify(bad).message(), HasSubstr("only float inputs have gradients"));
  bad = *g;
  bad.mutable_node(NodeId(0)).attrs.Set(kGradAttr, int64_t{1});
  EXPECT_THAT(Verify(bad).message(), HasSubstr("no attributes but grad=true"));
  bad = *g;
  bad.mutable_node(NodeId(0)).attrs.Set("axis", int64_t{1});
  EXPECT_FALSE(Verify(bad).ok());
}

}  // namespace
}  // namespace rk::compiler
