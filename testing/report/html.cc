#include "testing/report/html.h"

#include "absl/strings/str_cat.h"

namespace rk::report {
namespace {

// Light by default, dark under prefers-color-scheme; charts take their colours
// from these variables through classes, and Graphviz drawings sit on a light
// panel in both schemes (their colours are fixed in the SVG).
constexpr char kCss[] = R"css(
:root { --bg: #ffffff; --fg: #1b1b1f; --muted: #5b5b66; --line: #c8c8d0; --panel: #f4f4f7;
  --bar: #3b6fb6; --bad: #c62828; --good: #2e7d32; --s0: #3b6fb6; --s1: #c62828; --s2: #2e7d32;
  --heat: #3b6fb6; --link: #1f5fbf; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15161a; --fg: #e8e8ec; --muted: #a8a8b3; --line: #3a3b44; --panel: #1f2026;
    --bar: #7fa8e6; --bad: #ff7b7b; --good: #7fd37f; --s0: #7fa8e6; --s1: #ff7b7b; --s2: #7fd37f;
    --heat: #7fa8e6; --link: #8cb8ff; }
}
html { background: var(--bg); color: var(--fg); }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 1.5em; }
h1 { font-size: 1.6em; margin: .2em 0 .6em; }
h2 { font-size: 1.25em; border-bottom: 1px solid var(--line); padding-bottom: .2em; margin-top: 1.6em; }
a { color: var(--link); }
table { border-collapse: collapse; margin: .5em 0; }
caption { text-align: left; color: var(--muted); padding-bottom: .3em; }
th, td { border: 1px solid var(--line); padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: var(--panel); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: var(--panel); padding: .6em .8em; overflow-x: auto; border-radius: 4px; }
code { font-family: ui-monospace, monospace; font-size: .92em; }
.muted { color: var(--muted); }
.verdict-fail { color: var(--bad); font-weight: 600; }
.verdict-pass { color: var(--good); font-weight: 600; }
.graph { background: #ffffff; color: #000000; border: 1px solid var(--line); border-radius: 4px;
  overflow: auto; max-height: 900px; padding: .4em; }
.graph svg { max-width: 100%; height: auto; }
.thumb { display: inline-block; background: #ffffff; border: 1px solid var(--line); }
.thumb svg { width: 220px; height: auto; max-height: 220px; }
.legend span { display: inline-block; padding: 0 .5em; margin-right: .6em; border-radius: 3px; color: #000; }
svg.chart { overflow: visible; }
svg.chart text { fill: var(--fg); font: 11px system-ui, sans-serif; }
svg.chart .axis { stroke: var(--muted); stroke-width: 1; }
svg.chart .grid { stroke: var(--line); stroke-width: .5; }
svg.chart .bar { fill: var(--bar); }
svg.chart .bar.bad { fill: var(--bad); }
svg.chart .line { fill: none; stroke-width: 2; }
svg.chart .s0 { stroke: var(--s0); fill: var(--s0); }
svg.chart .s1 { stroke: var(--s1); fill: var(--s1); }
svg.chart .s2 { stroke: var(--s2); fill: var(--s2); }
svg.chart .line.s0, svg.chart .line.s1, svg.chart .line.s2 { fill: none; }
svg.chart .cell { fill: var(--heat); }
svg.chart .cell.zero { fill: var(--panel); stroke: var(--line); stroke-width: .5; }
)css";

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string Table(const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows, const std::string& caption) {
  std::string out = "<table>";
  if (!caption.empty()) absl::StrAppend(&out, "<caption>", Escape(caption), "</caption>");
  absl::StrAppend(&out, "<thead><tr>");
  for (const std::string& h : headers) absl::StrAppend(&out, "<th scope=\"col\">", Escape(h), "</th>");
  absl::StrAppend(&out, "</tr></thead><tbody>\n");
  for (const std::vector<std::string>& row : rows) {
    absl::StrAppend(&out, "<tr>");
    for (const std::string& cell : row) absl::StrAppend(&out, "<td>", cell, "</td>");
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n");
  return out;
}

std::string Code(std::string_view text) {
  return absl::StrCat("<pre><code>", Escape(text), "</code></pre>\n");
}

HtmlPage::HtmlPage(std::string title, std::string kind)
    : title_(std::move(title)), kind_(std::move(kind)) {}

void HtmlPage::Section(const std::string& id, const std::string& heading) {
  if (in_section_) body_ += "</section>\n";
  absl::StrAppend(&body_, "<section id=\"", Escape(id), "\" aria-labelledby=\"", Escape(id),
                  "-h\">\n<h2 id=\"", Escape(id), "-h\">", Escape(heading), "</h2>\n");
  in_section_ = true;
}

void HtmlPage::Paragraph(std::string_view text) {
  absl::StrAppend(&body_, "<p>", Escape(text), "</p>\n");
}

std::string HtmlPage::Finish() const {
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
      "<meta name=\"color-scheme\" content=\"light dark\">\n",
      // Nothing may be fetched: no scripts at all, styles and images inline.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; img-src data:\">\n",
      "<title>", Escape(title_), "</title>\n<style>", kCss, "</style>\n</head>\n<body data-report=\"",
      Escape(kind_), "\">\n<main>\n<h1>", Escape(title_), "</h1>\n", body_,
      in_section_ ? "</section>\n" : "", "</main>\n</body>\n</html>\n");
}

}  // namespace rk::report
