#include "repro/bisect/line_diff.h"

#include <string>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(LineDiffTest, EqualTextsGiveNothing) {
  LineDiffStats stats{7, 7};
  EXPECT_EQ(LineDiff("a\nb\n", "a\nb\n", "x", "y", 3, &stats), "");
  EXPECT_EQ(stats.added, 0);
  EXPECT_EQ(stats.removed, 0);
}

TEST(LineDiffTest, OneChangedLineWithContext) {
  const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n";
  const std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n";
  LineDiffStats stats;
  EXPECT_EQ(LineDiff(a, b, "old", "new", 1, &stats),
            "--- old\n+++ new\n@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n");
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(stats.removed, 1);
}

TEST(LineDiffTest, InsertionIntoEmptyAndSeparateHunks) {
  EXPECT_EQ(LineDiff("", "x\n", "a", "b", 3), "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n");
  const std::string a = "a\nb\nc\nd\ne\nf\ng\nh\n";
  const std::string b = "A\nb\nc\nd\ne\nf\ng\nH\n";
  EXPECT_EQ(LineDiff(a, b, "a", "b", 1),
            "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n");
}

TEST(LineDiffTest, AlignsAroundMovedLines) {
  LineDiffStats stats;
  LineDiff("x\na\nb\nc\n", "a\nb\nc\nx\n", "a", "b", 3, &stats);
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(stats.removed, 1);
}

}  // namespace
}  // namespace rk::repro
