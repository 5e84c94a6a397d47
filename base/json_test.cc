#include "base/json.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace rk {
namespace {

Json MustParse(std::string_view text) {
  absl::StatusOr<Json> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? *j : Json();
}

std::string ParseError(std::string_view text, const JsonParseOptions& options = {}) {
  absl::StatusOr<Json> j = ParseJson(text, options);
  EXPECT_FALSE(j.ok()) << "parsed: " << text;
  if (j.ok()) return "";
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(j.status().message());
}

TEST(JsonTest, BuildsAndPrintsCompact) {
  Json j;
  j["format"] = "reprokit-bundle";
  j["version"] = 1;
  j["ok"] = true;
  j["none"] = nullptr;
  j["shape"] = Json::MakeArray({8, 128});
  j["tol"] = 1e-4;
  EXPECT_EQ(j.Dump(),
            R"({"format":"reprokit-bundle","version":1,"ok":true,"none":null,)"
            R"("shape":[8,128],"tol":1e-04})");
}

TEST(JsonTest, KeysKeepInsertionOrderAndSetReplacesInPlace) {
  Json j;
  j["b"] = 1;
  j["a"] = 2;
  j["c"] = 3;
  j.Set("a", "x");
  EXPECT_EQ(j.Dump(), R"({"b":1,"a":"x","c":3})");
  EXPECT_TRUE(j.Erase("b"));
  EXPECT_FALSE(j.Erase("b"));
  EXPECT_EQ(j.Dump(), R"({"a":"x","c":3})");
}

TEST(JsonTest, PrettyPrintsWithTwoSpacesAndShortScalarArraysInline) {
  Json j;
  j["name"] = "x";
  j["shape"] = Json::MakeArray({2, 3});
  j["empty"] = Json::MakeArray();
  j["obj"] = Json::MakeObject();
  Json inner;
  inner["k"] = false;
  j["list"].push_back(inner);
  EXPECT_EQ(j.DumpPretty(),
            "{\n"
            "  \"name\": \"x\",\n"
            "  \"shape\": [2, 3],\n"
            "  \"empty\": [],\n"
            "  \"obj\": {},\n"
            "  \"list\": [\n"
            "    {\n"
            "      \"k\": false\n"
            "    }\n"
            "  ]\n"
            "}");
  Json long_array = Json::MakeArray();
  for (int i = 0; i < 60; ++i) long_array.push_back(i);
  EXPECT_NE(long_array.DumpPretty().find("\n  59\n]"), std::string::npos);
}

TEST(JsonTest, RoundTripsThroughBothPrinters) {
  Json j = MustParse(
      R"({"a": [1, -2, 3.5, 1e300, -0.0, "s\n\"\\\u0001", true, null, {}, []],)"
      R"( "nested": {"x": {"y": [[], [{}]]}}, "utf8": "h\u00e9llo \ud83d\ude00 caf\u00e9"})");
  EXPECT_EQ(MustParse(j.Dump()), j);
  EXPECT_EQ(MustParse(j.DumpPretty()), j);
  EXPECT_EQ(MustParse(j.Dump()).Dump(), j.Dump());
  EXPECT_EQ(j.GetString("utf8").value(), "h\xc3\xa9llo \xf0\x9f\x98\x80 caf\xc3\xa9");
}

TEST(JsonTest, DoublesRoundTripExactlyAndShortest) {
  EXPECT_EQ(Json(0.1).Dump(), "0.1");
  EXPECT_EQ(Json(1.0).Dump(), "1.0");
  EXPECT_EQ(Json(-0.0).Dump(), "-0.0");
  EXPECT_EQ(Json(1e21).Dump(), "1e+21");
  EXPECT_EQ(Json(5e-324).Dump(), "5e-324");
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (!std::isfinite(d)) continue;
    Json back = MustParse(Json(d).Dump());
    ASSERT_TRUE(back.is_number());
    EXPECT_FALSE(back.is_int());
    uint64_t back_bits;
    double bd = back.double_value();
    std::memcpy(&back_bits, &bd, sizeof(bd));
    ASSERT_EQ(back_bits, bits) << Json(d).Dump();
  }
}

TEST(JsonTest, IntegersStayExact) {
  int64_t big = std::numeric_limits<int64_t>::max();
  Json j = MustParse(Json(big).Dump());
  ASSERT_TRUE(j.is_int());
  EXPECT_EQ(j.int_value(), big);
  EXPECT_EQ(MustParse("-9223372036854775808").int_value(), std::numeric_limits<int64_t>::min());
  Json u64 = MustParse("18446744073709551615");
  EXPECT_FALSE(u64.is_int());
  ASSERT_TRUE(u64.is_uint());
  EXPECT_EQ(u64.uint_value(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(u64.Dump(), "18446744073709551615");
  EXPECT_EQ(JsonRef(u64).Uint().value(), std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(JsonRef(u64).Int().ok());
  EXPECT_EQ(Json(std::numeric_limits<uint64_t>::max()), u64);
  Json huge = MustParse("18446744073709551616");
  EXPECT_FALSE(huge.is_uint());
  EXPECT_FALSE(huge.is_int());
  EXPECT_EQ(huge.double_value(), 18446744073709551616.0);
  EXPECT_TRUE(Json(uint64_t{1} << 63).is_uint());
  EXPECT_FALSE(Json(uint64_t{1} << 63).is_int());
  EXPECT_EQ(Json(uint64_t{1} << 63).Dump(), "9223372036854775808");
  EXPECT_FALSE(MustParse("1.0").is_int());
  EXPECT_EQ(JsonRef(MustParse("1.0")).Int().value(), 1);
}

TEST(JsonTest, NonFiniteDoublesPrintAsStringsAndReadBack) {
  Json j;
  j["nan"] = std::numeric_limits<double>::quiet_NaN();
  j["inf"] = std::numeric_limits<double>::infinity();
  j["ninf"] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(j.Dump(), R"({"nan":"NaN","inf":"Infinity","ninf":"-Infinity"})");
  Json back = MustParse(j.Dump());
  EXPECT_TRUE(std::isnan(back.GetDouble("nan").value()));
  EXPECT_EQ(back.GetDouble("inf").value(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.GetDouble("ninf").value(), -std::numeric_limits<double>::infinity());
}

TEST(JsonTest, ErrorsCarryLineAndColumn) {
  JsonParseOptions options;
  options.filename = "repro.json";
  EXPECT_EQ(ParseError("{\n  \"a\": 1,\n  \"b\": tru\n}", options),
            "repro.json:3:8: invalid literal");
  EXPECT_EQ(ParseError("[1, 2,]"), "<json>:1:7: unexpected character ']'");
  EXPECT_EQ(ParseError("{\"a\":1,\"a\":2}"), "<json>:1:8: duplicate key \"a\"");
  EXPECT_EQ(ParseError("{\"a\" 1}"), "<json>:1:6: expected ':', got '1'");
  EXPECT_EQ(ParseError("[1] x"), "<json>:1:5: unexpected text after the JSON value");
  EXPECT_EQ(ParseError("\"abc"), "<json>:1:1: unterminated string");
  EXPECT_EQ(ParseError(""), "<json>:1:1: expected a value, got end of input");
  EXPECT_EQ(ParseError("[1,\n2"), "<json>:2:2: expected ']', got end of input");
}

TEST(JsonTest, RejectsWhatStrictJsonForbids) {
  for (const char* bad :
       {"01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity", "'a'", "[1,]", "{,}", "{\"a\"}",
        "// c\n1", "\"\t\"", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "\"\xff\"",
        "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "1e999", "[1 2]", "{\"a\":1 \"b\":2}", "nul"}) {
    EXPECT_FALSE(ParseJson(bad).ok()) << bad;
  }
}

TEST(JsonTest, DepthAndSizeLimits) {
  JsonParseOptions options;
  options.max_depth = 4;
  EXPECT_TRUE(ParseJson("[[[[1]]]]", options).ok());
  EXPECT_EQ(ParseError("[[[[[1]]]]]", options), "<json>:1:5: nesting deeper than 4");
  EXPECT_EQ(ParseError("{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}", options),
            "<json>:1:21: nesting deeper than 4");
  // The default limit stops a stack-exhausting input.
  EXPECT_FALSE(ParseJson(std::string(100000, '[')).ok());
  options = {};
  options.max_bytes = 8;
  EXPECT_EQ(ParseError("[1,2,3,4,5]", options), "<json>: 11 bytes exceeds the limit of 8");
}

TEST(JsonTest, TypedGettersNameTheKeyPath) {
  Json doc = MustParse(R"({"inputs": [{"name": "x", "shape": [2, "3"]}], "tol": 1e-4})");
  JsonRef root(doc, "repro.json");
  auto inputs = root.Field("inputs");
  ASSERT_TRUE(inputs.ok());
  auto first = inputs->Index(0);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->Field("name")->String().value(), "x");
  auto dim = first->Field("shape")->Index(1)->Int();
  EXPECT_EQ(dim.status().message(), "repro.json: inputs[0].shape[1]: expected integer, got string");
  EXPECT_EQ(first->Field("dtype").status().message(),
            "repro.json: inputs[0].dtype: missing required field");
  EXPECT_EQ(inputs->Index(3).status().message(),
            "repro.json: inputs: index 3 out of range (size 1)");
  EXPECT_EQ(root.Field("tol")->Field("x").status().message(),
            "repro.json: tol: expected object, got number");
  EXPECT_EQ(root.Field("tol")->Int().status().message(),
            "repro.json: tol: expected an integer, got 1e-04");
  EXPECT_EQ(doc.GetBool("tol").status().message(), "tol: expected bool, got number");
  EXPECT_FALSE(root.OptionalField("absent")->has_value());
  EXPECT_EQ(JsonRef(MustParse("-1")).Uint().status().message(),
            "(top level): expected a non-negative integer, got -1");
  auto members = root.Members();
  ASSERT_TRUE(members.ok());
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[1].second.path(), "tol");
}

TEST(JsonTest, EscapesControlCharactersWhenPrinting) {
  EXPECT_EQ(Json(std::string("a\x01\x7f\"\\/")).Dump(), "\"a\\u0001\\u007f\\\"\\\\/\"");
}

}  // namespace
}  // namespace rk
