#include "testing/report/svg_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "testing/report/html.h"

namespace rk::report {
namespace {

std::string Num(double v) { return absl::StrFormat("%.1f", v); }

std::string Value(double v) {
  if (!std::isfinite(v)) return "n/a";
  return absl::StrFormat("%.4g", v);
}

std::string Open(const std::string& id, const std::string& title, double width, double height) {
  return absl::StrCat("<svg class=\"chart\" id=\"", Escape(id), "\" role=\"img\" aria-labelledby=\"",
                      Escape(id), "-title\" width=\"", Num(width), "\" height=\"", Num(height),
                      "\" viewBox=\"0 0 ", Num(width), " ", Num(height),
                      "\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"", Escape(id),
                      "-title\">", Escape(title), "</title>\n");
}

// A "nice" step (1, 2 or 5 times a power of ten) giving about `count` ticks.
double NiceStep(double span, int count) {
  if (!(span > 0)) return 1;
  const double raw = span / count;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

struct Axis {
  double lo = 0, hi = 1, step = 1;
};

Axis MakeAxis(double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  Axis a;
  a.step = NiceStep(hi - lo, 5);
  a.lo = std::floor(lo / a.step) * a.step;
  a.hi = std::ceil(hi / a.step) * a.step;
  if (a.hi <= a.lo) a.hi = a.lo + a.step;
  return a;
}

// Horizontal grid lines and their labels for the value axis.
std::string YTicks(const Axis& a, double left, double right, double top, double bottom) {
  std::string out;
  const int n = static_cast<int>(std::lround((a.hi - a.lo) / a.step));
  for (int i = 0; i <= n; ++i) {
    const double v = a.lo + i * a.step;
    const double y = bottom - (v - a.lo) / (a.hi - a.lo) * (bottom - top);
    absl::StrAppend(&out, "<line class=\"grid\" x1=\"", Num(left), "\" x2=\"", Num(right),
                    "\" y1=\"", Num(y), "\" y2=\"", Num(y), "\"/>", "<text x=\"", Num(left - 4),
                    "\" y=\"", Num(y + 4), "\" text-anchor=\"end\">", Value(v), "</text>\n");
  }
  return out;
}

std::string AxisLines(double left, double right, double top, double bottom) {
  return absl::StrCat("<line class=\"axis\" x1=\"", Num(left), "\" x2=\"", Num(left), "\" y1=\"",
                      Num(top), "\" y2=\"", Num(bottom), "\"/><line class=\"axis\" x1=\"",
                      Num(left), "\" x2=\"", Num(right), "\" y1=\"", Num(bottom), "\" y2=\"",
                      Num(bottom), "\"/>\n");
}

std::string YLabel(const std::string& text, double x, double y) {
  return absl::StrCat("<text transform=\"translate(", Num(x), ",", Num(y),
                      ") rotate(-90)\" text-anchor=\"middle\">", Escape(text), "</text>\n");
}

}  // namespace

std::string BarChart(const std::string& id, const std::string& title, const std::string& y_label,
                     const std::vector<Bar>& bars) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const Bar& b : bars) {
    if (!std::isfinite(b.value)) continue;
    lo = any ? std::min(lo, b.value) : std::min(0.0, b.value);
    hi = any ? std::max(hi, b.value) : std::max(0.0, b.value);
    any = true;
  }
  Axis a = MakeAxis(lo, hi);
  // The smallest negative bar must still show: the axis starts below it.
  if (lo < 0 && a.lo >= lo) a.lo -= a.step;
  const double left = 64, top = 24, plot_h = 220, slot = 18;
  size_t longest = 0;
  for (const Bar& b : bars) longest = std::max(longest, std::min<size_t>(b.label.size(), 28));
  const double bottom = top + plot_h;
  const double right = left + std::max<double>(1, bars.size()) * slot;
  const double width = std::max(right + 24, 360.0);
  const double height = bottom + 12 + 6.0 * static_cast<double>(longest) + 20;
  std::string out = Open(id, title, width, height);
  absl::StrAppend(&out, YTicks(a, left, right, top, bottom), AxisLines(left, right, top, bottom),
                  YLabel(y_label, 14, (top + bottom) / 2));
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double x = left + static_cast<double>(i) * slot + 3;
    const std::string label = b.label.size() > 28 ? b.label.substr(0, 27) + "~" : b.label;
    absl::StrAppend(&out, "<text transform=\"translate(", Num(x + 7), ",", Num(bottom + 8),
                    ") rotate(60)\">", Escape(label), "</text>");
    if (!std::isfinite(b.value)) {
      absl::StrAppend(&out, "<text x=\"", Num(x), "\" y=\"", Num(bottom - 4), "\">n/a</text>\n");
      continue;
    }
    const double h = (b.value - a.lo) / (a.hi - a.lo) * plot_h;
    absl::StrAppend(&out, "<rect class=\"bar", b.highlight ? " bad" : "", "\"",
                    b.id.empty() ? "" : absl::StrCat(" id=\"", Escape(b.id), "\""), " x=\"", Num(x),
                    "\" y=\"", Num(bottom - h), "\" width=\"", Num(slot - 6), "\" height=\"",
                    Num(h), "\"><title>", Escape(b.label), ": ", Value(b.value),
                    "</title></rect>\n");
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

std::string LineChart(const std::string& id, const std::string& title, const std::string& x_label,
                      const std::string& y_label, const std::vector<Series>& series) {
  double x_lo = 0, x_hi = 0, y_hi = 0;
  bool any = false;
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      x_lo = any ? std::min(x_lo, x) : x;
      x_hi = any ? std::max(x_hi, x) : x;
      y_hi = std::max(y_hi, y);
      any = true;
    }
  }
  const Axis ax = MakeAxis(std::min(0.0, x_lo), x_hi);
  const Axis ay = MakeAxis(0, y_hi);
  const double left = 64, top = 24, right = 604, bottom = 244;
  std::string out = Open(id, title, 640, 300);
  absl::StrAppend(&out, YTicks(ay, left, right, top, bottom), AxisLines(left, right, top, bottom),
                  YLabel(y_label, 14, (top + bottom) / 2));
  const int nx = static_cast<int>(std::lround((ax.hi - ax.lo) / ax.step));
  for (int i = 0; i <= nx; ++i) {
    const double v = ax.lo + i * ax.step;
    const double x = left + (v - ax.lo) / (ax.hi - ax.lo) * (right - left);
    absl::StrAppend(&out, "<text x=\"", Num(x), "\" y=\"", Num(bottom + 16),
                    "\" text-anchor=\"middle\">", Value(v), "</text>");
  }
  absl::StrAppend(&out, "<text x=\"", Num((left + right) / 2), "\" y=\"", Num(bottom + 36),
                  "\" text-anchor=\"middle\">", Escape(x_label), "</text>\n");
  auto px = [&](double x) { return left + (x - ax.lo) / (ax.hi - ax.lo) * (right - left); };
  auto py = [&](double y) { return bottom - (y - ay.lo) / (ay.hi - ay.lo) * (bottom - top); };
  for (size_t k = 0; k < series.size() && k < 3; ++k) {
    const Series& s = series[k];
    std::string points;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      absl::StrAppend(&points, points.empty() ? "" : " ", Num(px(x)), ",", Num(py(y)));
    }
    absl::StrAppend(&out, "<polyline class=\"line s", k, "\" points=\"", points, "\"><title>",
                    Escape(s.name), "</title></polyline>\n");
    if (s.points.size() <= 80) {
      for (const auto& [x, y] : s.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        absl::StrAppend(&out, "<circle class=\"s", k, "\" cx=\"", Num(px(x)), "\" cy=\"",
                        Num(py(y)), "\" r=\"2.5\"><title>", Escape(s.name), ": ", Value(y), " at ",
                        Value(x), "</title></circle>");
      }
    }
    const double lx = left + 10 + 170.0 * static_cast<double>(k);
    absl::StrAppend(&out, "\n<rect class=\"s", k, "\" x=\"", Num(lx), "\" y=\"6\" width=\"12\" ",
                    "height=\"4\"/><text x=\"", Num(lx + 16), "\" y=\"12\">", Escape(s.name),
                    "</text>\n");
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

std::string HeatMap(const std::string& id, const std::string& title,
                    const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                    const std::vector<std::vector<double>>& values) {
  double max = 0;
  for (const std::vector<double>& row : values) {
    for (double v : row) {
      if (std::isfinite(v)) max = std::max(max, v);
    }
  }
  size_t longest = 0;
  for (const std::string& r : rows) longest = std::max(longest, r.size());
  const double left = 12 + 7.0 * static_cast<double>(std::min<size_t>(longest, 24));
  const double top = 30, cw = 44, ch = 16;
  const double width = left + cw * static_cast<double>(cols.size()) + 12;
  const double height = top + ch * static_cast<double>(rows.size()) + 8;
  std::string out = Open(id, title, width, height);
  for (size_t c = 0; c < cols.size(); ++c) {
    absl::StrAppend(&out, "<text x=\"", Num(left + cw * static_cast<double>(c) + cw / 2),
                    "\" y=\"", Num(top - 8), "\" text-anchor=\"middle\">", Escape(cols[c]),
                    "</text>");
  }
  absl::StrAppend(&out, "\n");
  for (size_t r = 0; r < rows.size(); ++r) {
    const double y = top + ch * static_cast<double>(r);
    absl::StrAppend(&out, "<text x=\"", Num(left - 6), "\" y=\"", Num(y + ch - 4),
                    "\" text-anchor=\"end\">", Escape(rows[r]), "</text>");
    for (size_t c = 0; c < cols.size(); ++c) {
      const double v = r < values.size() && c < values[r].size() ? values[r][c] : 0;
      const bool zero = !(std::isfinite(v) && v > 0);
      // sqrt: counts span orders of magnitude; rare combinations stay visible.
      const double opacity = zero || max <= 0 ? 0 : 0.15 + 0.85 * std::sqrt(v / max);
      absl::StrAppend(&out, "<rect class=\"cell", zero ? " zero" : "", "\" x=\"",
                      Num(left + cw * static_cast<double>(c) + 1), "\" y=\"", Num(y + 1),
                      "\" width=\"", Num(cw - 2), "\" height=\"", Num(ch - 2), "\"",
                      zero ? "" : absl::StrFormat(" fill-opacity=\"%.2f\"", opacity), "><title>",
                      Escape(rows[r]), " ", Escape(cols[c]), ": ", Value(v), "</title></rect>");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace rk::report
