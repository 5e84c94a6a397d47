// Charts for reports as inline SVG, drawn here (no JavaScript): bar charts,
// line charts and heat maps. Every chart is an <svg class="chart" role="img">
// with a <title> (its accessible name) and real <text> for axes and labels;
// each bar, point and cell carries a <title> with its value. Colours come from
// CSS classes (html.cc), so charts follow the light or dark scheme.
//
// Guarantees: deterministic output for the same data; labels escaped;
// non-finite values are skipped (a bar labelled "n/a"), never drawn as NaN
// coordinates.
//
// Tested by testing/report/svg_chart_test.cc.
#ifndef REPROKIT_TESTING_REPORT_SVG_CHART_H_
#define REPROKIT_TESTING_REPORT_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace rk::report {

struct Bar {
  std::string label;
  double value = 0;
  bool highlight = false;  // drawn in the "bad" colour
  std::string id;          // element id of the bar, "" for none
};

// Bars rise from the bottom of the value axis, which spans [min(0, values),
// max(0, values)] widened to whole ticks, so all-negative values (log10 of
// errors) read as "taller is larger" too.
std::string BarChart(const std::string& id, const std::string& title, const std::string& y_label,
                     const std::vector<Bar>& bars);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x increasing
};

// Up to three series share the axes; a legend names them.
std::string LineChart(const std::string& id, const std::string& title, const std::string& x_label,
                      const std::string& y_label, const std::vector<Series>& series);

// Cells shaded by value / max value; zero cells outlined. values[row][col].
std::string HeatMap(const std::string& id, const std::string& title,
                    const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                    const std::vector<std::vector<double>>& values);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_SVG_CHART_H_
