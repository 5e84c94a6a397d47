#include "testing/report/campaign_page.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/json.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/op.h"
#include "compiler/ir/parser.h"
#include "testing/fuzz/campaign.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/report/graph_drawing.h"
#include "testing/report/html.h"
#include "testing/report/svg_chart.h"

namespace rk::report {
namespace {

namespace fs = std::filesystem;

std::string Seconds(double s) { return absl::StrFormat("%.1f s", s); }

std::string Percent(int64_t part, int64_t whole) {
  return whole == 0 ? "n/a" : absl::StrFormat("%.1f%%", 100.0 * part / whole);
}

void OverTimeSection(const fuzz::CampaignStats& st, HtmlPage& page) {
  page.Section("over-time", "Graphs judged and throughput over time");
  if (st.timeline.size() < 2) {
    page.Paragraph("No timeline recorded (campaigns before it was recorded, or too short).");
    return;
  }
  Series graphs{"graphs", {}}, judged{"judgements", {}}, findings{"findings", {}};
  Series rate{"graphs/s", {}};
  for (size_t i = 0; i < st.timeline.size(); ++i) {
    const fuzz::TimelinePoint& p = st.timeline[i];
    graphs.points.push_back({p.seconds, static_cast<double>(p.graphs)});
    judged.points.push_back({p.seconds, static_cast<double>(p.judgements)});
    findings.points.push_back({p.seconds, static_cast<double>(p.findings)});
    if (i > 0) {
      const fuzz::TimelinePoint& q = st.timeline[i - 1];
      const double dt = p.seconds - q.seconds;
      if (dt > 0) rate.points.push_back({p.seconds, static_cast<double>(p.graphs - q.graphs) / dt});
    }
  }
  page.Add(LineChart("judged-over-time", "Graphs and judgements over campaign time",
                     "campaign seconds", "count", {graphs, judged}));
  page.Add(LineChart("throughput-over-time", "Throughput: graphs per second",
                     "campaign seconds", "graphs/s", {rate}));
  page.Add(LineChart("findings-over-time", "Distinct findings over campaign time",
                     "campaign seconds", "findings", {findings}));
}

void FindingsSection(const std::string& dir, const std::vector<fuzz::FindingRecord>& findings,
                     HtmlPage& page) {
  page.Section("findings", "Findings by signature");
  if (findings.empty()) {
    page.Paragraph("No findings.");
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (const fuzz::FindingRecord& f : findings) {
    std::string thumb = "<span class=\"muted\">not drawn</span>";
    if (absl::StatusOr<compiler::Graph> g = compiler::Parse(f.minimized_graph); g.ok()) {
      compiler::DotStyle style;
      style.element_ids = true;
      if (absl::StatusOr<std::string> svg = DrawGraph(*g, style, 80); svg.ok()) thumb = *svg;
    }
    const std::string link = FindingReportPath(f.name);
    const bool has_report = fs::exists(fs::path(dir) / link);
    const std::string name_cell =
        has_report ? absl::StrCat("<a href=\"", Escape(link), "\">", Escape(f.name), "</a>")
                   : Escape(f.name);
    const std::string thumb_cell =
        has_report ? absl::StrCat("<a class=\"thumb\" href=\"", Escape(link), "\" aria-label=\"",
                                  Escape(f.name), " report\">", thumb, "</a>")
                   : absl::StrCat("<span class=\"thumb\">", thumb, "</span>");
    rows.push_back({absl::StrCat("<span id=\"finding-", Escape(f.name), "\">", name_cell,
                                 "</span><br><code>", Escape(f.signature), "</code><br>",
                                 Escape(f.message)),
                    Escape(f.config), absl::StrCat(f.hits), Seconds(f.first_seen_seconds),
                    Seconds(f.last_seen_seconds),
                    absl::StrCat(f.original_nodes, " &rarr; ", f.minimized_nodes,
                                 f.minimize_complete ? "" : " (cut short)"),
                    thumb_cell});
  }
  page.Add(Table({"finding", "configuration", "hits", "first seen", "last seen", "nodes",
                  "minimized graph"},
                 rows, "Each group is one finding signature; its thumbnail links to its bundle report."));
}

void CoverageSection(const fuzz::CampaignStats& st, HtmlPage& page) {
  page.Section("coverage", "Op and dtype coverage");
  std::vector<std::string> ops, dtypes;
  for (compiler::DType d : compiler::kAllDTypes) dtypes.push_back(std::string(compiler::DTypeName(d)));
  std::vector<std::vector<double>> values;
  std::vector<std::string> missing;
  for (compiler::Op op : compiler::kAllOps) {
    const std::string name(compiler::OpName(op));
    std::vector<double> row;
    for (const std::string& d : dtypes) {
      auto it = st.op_dtypes.find(absl::StrCat(name, ":", d));
      row.push_back(it == st.op_dtypes.end() ? 0 : static_cast<double>(it->second));
    }
    if (st.coverage.count(op) == 0) missing.push_back(name);
    ops.push_back(name);
    values.push_back(std::move(row));
  }
  if (st.op_dtypes.empty()) {
    page.Paragraph("No op x dtype counts recorded (campaigns before they were recorded).");
  } else {
    page.Add(HeatMap("coverage-heatmap", "Generated nodes per op and result dtype", ops, dtypes,
                     values));
  }
  page.Paragraph(missing.empty() ? "Every op was generated."
                                 : absl::StrCat("Ops never generated: ", absl::StrJoin(missing, ", ")));
}

}  // namespace

bool IsCampaignDir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "state.json", ec) ||
         fs::is_directory(fs::path(dir) / "findings", ec);
}

std::string FindingReportPath(const std::string& finding_name) {
  return absl::StrCat("findings/", finding_name, "/report.html");
}

absl::StatusOr<std::string> CampaignPage(const std::string& dir) {
  if (!IsCampaignDir(dir)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": not a fuzz campaign directory (no state.json or findings/)"));
  }
  absl::StatusOr<fuzz::CampaignStats> stats = fuzz::LoadStats(dir);
  if (!stats.ok()) return stats.status();
  absl::StatusOr<std::vector<fuzz::FindingRecord>> findings = fuzz::LoadFindings(dir);
  if (!findings.ok()) return findings.status();
  const fuzz::CampaignStats& st = *stats;
  Json summary = Json::MakeObject();
  if (absl::StatusOr<std::string> text = ReadFileToString((fs::path(dir) / "summary.json").string());
      text.ok()) {
    if (absl::StatusOr<Json> j = ParseJson(*text); j.ok()) summary = *std::move(j);
  }

  HtmlPage page(absl::StrCat("reprokit report: fuzz campaign ", fs::path(dir).filename().string()),
                "campaign");
  page.Section("overview", "Overview");
  std::vector<std::vector<std::string>> rows = {
      {"graphs", absl::StrCat(st.graphs, " in ", Seconds(st.seconds))},
      {"throughput", st.seconds > 0 ? absl::StrFormat("%.1f graphs/s", st.graphs / st.seconds) : "n/a"},
      {"valid", Percent(st.valid, st.graphs)},
      {"NaN-free fp64", Percent(st.nan_free, st.valid)},
      {"judgements", absl::StrCat(st.judgements)},
      {"failures", absl::StrCat(st.failures, " (", st.duplicates, " duplicates, ", st.known_hits,
                                " known)")},
      {"findings", absl::StrCat(findings->size())},
      {"time split", absl::StrFormat("generate %.1f s, judge %.1f s, minimize %.1f s",
                                     st.generate_seconds, st.judge_seconds, st.minimize_seconds)}};
  if (const Json* o = summary.Find("options"); o != nullptr && o->is_object()) {
    for (const char* key : {"seed", "faults", "policy", "jobs"}) {
      if (const Json* v = o->Find(key)) {
        rows.push_back({key, Escape(v->is_string() ? v->string_value() : v->Dump())});
      }
    }
    if (const Json* c = o->Find("configs"); c != nullptr) rows.push_back({"configurations", Escape(c->Dump())});
  }
  for (auto& row : rows) row[0] = Escape(row[0]);
  page.Add(Table({"measure", "value"}, rows));

  OverTimeSection(st, page);
  FindingsSection(dir, *findings, page);
  CoverageSection(st, page);

  page.Section("verdicts", "Verdicts per configuration");
  std::vector<std::vector<std::string>> verdicts;
  for (const auto& [key, n] : st.verdicts) verdicts.push_back({Escape(key), absl::StrCat(n)});
  page.Add(Table({"configuration:verdict", "count"}, verdicts));

  page.Section("targets", "Emitted targets");
  std::vector<std::vector<std::string>> targets;
  for (const fuzz::FindingRecord& f : *findings) {
    targets.push_back({Escape(f.name),
                       f.test_label.empty() ? Escape(f.emit_error.empty() ? "not emitted" : f.emit_error)
                                            : absl::StrCat("<code>", Escape(f.test_label), "</code>"),
                       absl::StrCat("<code>reprokit run ", Escape((fs::path(dir) / "findings" / f.name / "min").string()),
                                    "</code>")});
  }
  if (targets.empty()) {
    page.Paragraph("None.");
  } else {
    page.Add(Table({"finding", "Bazel target", "rerun"}, targets));
  }
  if (!st.errors.empty()) {
    page.Section("errors", "Errors");
    page.Add(Code(absl::StrJoin(st.errors, "\n")));
  }
  return page.Finish();
}

}  // namespace rk::report
