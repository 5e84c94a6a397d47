#include "testing/report/svg_chart.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace rk::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(BarChartTest, OneBarPerFiniteValueWithTitlesAndHighlight) {
  const std::string svg =
      BarChart("c", "errors <per node>", "log10",
               {{"%a", -7.5, false, "bar-a"},
                {"%b", std::numeric_limits<double>::quiet_NaN(), false, ""},
                {"%<script>", -1.0, true, "bar-s"}});
  EXPECT_THAT(svg, HasSubstr("role=\"img\" aria-labelledby=\"c-title\""));
  EXPECT_THAT(svg, HasSubstr("<title id=\"c-title\">errors &lt;per node&gt;</title>"));
  EXPECT_EQ(Count(svg, "<rect class=\"bar"), 2u);
  EXPECT_THAT(svg, HasSubstr("<rect class=\"bar bad\" id=\"bar-s\""));
  EXPECT_THAT(svg, HasSubstr("<title>%a: -7.5</title>"));
  EXPECT_THAT(svg, HasSubstr("%&lt;script&gt;"));
  EXPECT_THAT(svg, HasSubstr(">n/a</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
}

TEST(BarChartTest, NegativeValuesRiseFromTheAxisBottom) {
  // -8 and -2 on an axis [-10, 0]: heights 2/10 and 8/10 of the plot.
  const std::string svg = BarChart("c", "t", "y", {{"a", -8, false, "a"}, {"b", -2, false, "b"}});
  EXPECT_THAT(svg, HasSubstr("id=\"a\" x=\"67.0\" y=\"200.0\" width=\"12.0\" height=\"44.0\""));
  EXPECT_THAT(svg, HasSubstr("id=\"b\" x=\"85.0\" y=\"68.0\" width=\"12.0\" height=\"176.0\""));
}

TEST(LineChartTest, PolylinePerSeriesAndLegend) {
  const std::string svg = LineChart("l", "progress", "calls", "nodes",
                                    {{"nodes", {{1, 59}, {10, 20}, {40, 2}}},
                                     {"other", {{0, 1}, {std::nan(""), 3}}}});
  EXPECT_EQ(Count(svg, "<polyline class=\"line s"), 2u);
  EXPECT_EQ(Count(svg, "<circle"), 4u);  // the NaN point is skipped
  EXPECT_THAT(svg, HasSubstr("<title>nodes: 2 at 40</title>"));
  EXPECT_THAT(svg, HasSubstr(">calls</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
}

TEST(HeatMapTest, CellPerValueZeroCellsOutlined) {
  const std::string svg = HeatMap("h", "coverage", {"add", "relu"}, {"f32", "f16"}, {{4, 0}, {1}});
  EXPECT_EQ(Count(svg, "<rect class=\"cell"), 4u);
  EXPECT_EQ(Count(svg, "<rect class=\"cell zero\""), 2u);
  EXPECT_THAT(svg, HasSubstr("fill-opacity=\"1.00\"><title>add f32: 4</title>"));
  EXPECT_THAT(svg, HasSubstr("fill-opacity=\"0.57\"><title>relu f32: 1</title>"));
}

}  // namespace
}  // namespace rk::report
