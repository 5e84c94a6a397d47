#include "minifier/reductions/window_scan.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

// A chain of 32 negations: 8 windows of 4.
std::string Chain(int n) {
  std::string text = "graph @g(%x: f32[2]) {\n";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&text, "  %v", i, " = neg(", i == 0 ? "%x" : absl::StrCat("%v", i - 1),
                    ") : f32[2]\n");
  }
  absl::StrAppend(&text, "  return %v", n - 1, "\n}\n");
  return text;
}

TEST(WindowScan, KeepsOneWindowOnRecordedInputs) {
  Candidate c = ParseCandidate(Chain(32));
  EXPECT_EQ(NumTargets("window_scan", c), 8);
  // Window 2 is %v8..%v11: %v7 becomes an input, %v11 (read by %v12) the output.
  std::string printed = ApplyReduction("window_scan", c, {2});
  EXPECT_NE(printed.find("%v7: f32[2]"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%v8 = neg(%v7)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("return %v11"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("%v12"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("%v6 ="), std::string::npos) << printed;
}

TEST(WindowScan, TheFirstWindowKeepsTheGraphInputs) {
  Candidate c = ParseCandidate(Chain(32));
  std::string printed = ApplyReduction("window_scan", c, {0});
  EXPECT_NE(printed.find("%v0 = neg(%x)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("return %v3"), std::string::npos) << printed;
}

TEST(WindowScan, SmallGraphsHaveNoTargets) {
  EXPECT_EQ(NumTargets("window_scan", ParseCandidate(Chain(7))), 0);
  // From 8 nodes on, windows of one node each.
  EXPECT_EQ(NumTargets("window_scan", ParseCandidate(Chain(8))), 8);
  std::string printed = ApplyReduction("window_scan", ParseCandidate(Chain(8)), {5});
  EXPECT_NE(printed.find("%v5 = neg(%v4)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("%v6"), std::string::npos) << printed;
}

}  // namespace
}  // namespace rk::minifier
