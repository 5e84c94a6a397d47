#include "testing/report/bundle_page.h"

#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/printer.h"
#include "repro/bisect/divergence.h"
#include "testing/report/graph_drawing.h"
#include "testing/report/html.h"
#include "testing/report/svg_chart.h"

namespace rk::report {
namespace {

using compiler::Graph;
using compiler::HostTensor;
using compiler::NodeId;

bool CompileCompleted(repro::VerdictKind kind) {
  return kind == repro::VerdictKind::kAccuracy || kind == repro::VerdictKind::kNondeterministic ||
         kind == repro::VerdictKind::kPass;
}

std::string Num(double v) { return Escape(absl::StrFormat("%.6g", v)); }

std::string InputsTable(const repro::LoadedBundle& b) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < b.inputs.size() && i < b.bundle.inputs.size(); ++i) {
    const HostTensor& t = b.inputs[i];
    const repro::BundleInput& in = b.bundle.inputs[i];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t nan = 0, inf = 0, finite = 0;
    for (int64_t k = 0; k < t.num_elements(); ++k) {
      const double v = t.GetDouble(k);
      if (std::isnan(v)) {
        ++nan;
      } else if (std::isinf(v)) {
        ++inf;
      } else {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
        ++finite;
      }
    }
    const std::string source = in.source == repro::BundleInput::Source::kBlob
                                   ? absl::StrCat("blob ", in.sha256.Hex().substr(0, 12))
                                   : absl::StrCat("seeded random (seed ", in.seed, ")");
    rows.push_back({absl::StrCat("<code>%", Escape(in.name), "</code>"),
                    Escape(std::string(compiler::DTypeName(in.type.dtype))),
                    Escape(in.type.shape.ToString()), Escape(source),
                    finite ? Num(lo) : "n/a", finite ? Num(hi) : "n/a",
                    finite ? Num(sum / static_cast<double>(finite)) : "n/a", absl::StrCat(nan),
                    absl::StrCat(inf)});
  }
  return Table({"input", "dtype", "shape", "values", "min", "max", "mean", "NaN", "Inf"}, rows);
}

std::string JsonTable(const Json& object) {
  std::vector<std::vector<std::string>> rows;
  if (object.is_object()) {
    for (const auto& [key, value] : object.object()) {
      rows.push_back({Escape(key), Escape(value.is_string() ? value.string_value() : value.Dump())});
    }
  }
  return Table({"key", "value"}, rows);
}

// The divergence chart and table; fills `culprit` and `failing`.
void DivergenceSection(const repro::LoadedBundle& b, HtmlPage& page, int* culprit,
                       std::vector<int>* failing) {
  page.Section("divergence", "Per-node divergence");
  repro::DivergenceOptions options;
  options.policy = b.bundle.policy;
  options.accuracy.tol = b.bundle.tol;
  absl::StatusOr<repro::DivergenceReport> report =
      repro::AnalyzeDivergence(b.bundle.graph, b.inputs, b.bundle.options, options);
  if (!report.ok()) {
    page.Paragraph(absl::StrCat("The divergence analysis did not run: ", report.status().message()));
    return;
  }
  std::vector<Bar> bars;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < report->nodes.size(); ++i) {
    const repro::NodeError& n = report->nodes[i];
    const bool fails = n.metrics.judgement != repro::Judgement::kPass;
    if (fails && n.graph_output) failing->push_back(n.id.value);
    const double rmse = n.metrics.rmse_result;
    // Exact results (rmse 0) are drawn at 1e-17, below any double's rounding.
    const double log_rmse = std::isnan(rmse) ? rmse : std::log10(std::max(rmse, 1e-17));
    bars.push_back({absl::StrCat("%", n.node, " ", n.op), log_rmse,
                    static_cast<int>(i) == report->first_divergent,
                    absl::StrCat("bar-n", n.id.value)});
    rows.push_back({absl::StrCat("<code>%", Escape(n.node), "</code>"), Escape(n.op),
                    Escape(n.dtype), Num(rmse), Num(n.metrics.rmse_reference),
                    Num(n.metrics.rmse_ratio),
                    fails ? "<span class=\"verdict-fail\">fail</span>" : "pass"});
  }
  if (const repro::NodeError* d = report->divergent(); d != nullptr) {
    *culprit = d->id.value;
    page.Paragraph(absl::StrCat("First divergent node: %", d->node, " (", d->op, ", ", d->dtype,
                                "): ", d->metrics.reason));
  } else {
    page.Paragraph("No node diverges when every node is materialized.");
  }
  page.Add(BarChart("divergence-chart",
                    "log10(rmse vs fp64) per node in topological order; the first divergent node "
                    "in red",
                    "log10 rmse vs fp64", bars));
  page.Add(absl::StrCat("<details><summary>Per-node table</summary>",
                        Table({"node", "op", "dtype", "rmse vs fp64", "reference rmse", "ratio",
                               "judgement"},
                              rows),
                        "</details>\n"));
  page.Paragraph(absl::StrCat("Fusion groups with every node materialized: ",
                              report->fusion_groups_checked, "; in the default compile: ",
                              report->fusion_groups_original, "."));
}

void MinimizationSection(const repro::Bundle& b, const std::string& dir, HtmlPage& page) {
  const Json& m = b.minimization;
  if (!m.is_object() || m.size() == 0) return;
  page.Section("minimization", "Minimization");
  auto nodes = [&](const char* which) -> std::string {
    const Json* s = m.Find(which);
    if (s == nullptr) return "?";
    absl::StatusOr<int64_t> n = s->GetInt("compute_nodes");
    return n.ok() ? absl::StrCat(*n) : "?";
  };
  std::vector<std::vector<std::string>> rows = {
      {"compute nodes (the minifier's count: a composite op counts as its lowering, constants "
       "as nothing)",
       Escape(nodes("start")), Escape(nodes("final"))}};
  page.Add(Table({"", "before", "after"}, rows));
  std::vector<std::string> facts;
  for (const char* key : {"oracle_calls", "cache_hits", "accepted_steps", "seconds", "complete",
                          "one_minimal", "reproduced"}) {
    if (const Json* v = m.Find(key)) {
      facts.push_back(absl::StrCat(key, " ", v->is_string() ? v->string_value() : v->Dump()));
    }
  }
  page.Paragraph(absl::StrJoin(facts, ", "));
  const Json* history = m.Find("history");
  if (history == nullptr || !history->is_array() || history->size() == 0) {
    page.Paragraph("No progress history recorded (bundles minimized before it was recorded).");
  } else {
    Series series{"compute nodes", {}};
    for (const Json& p : history->array()) {
      absl::StatusOr<double> calls = p.GetDouble("calls");
      absl::StatusOr<double> n = p.GetDouble("nodes");
      if (calls.ok() && n.ok()) series.points.push_back({*calls, *n});
    }
    page.Add(LineChart("minify-progress", "Minifier progress: compute nodes vs oracle calls",
                       "oracle calls", "compute nodes (minifier's count)", {series}));
  }
  if (const Json* parent = b.provenance.Find("parent"); parent != nullptr) {
    if (absl::StatusOr<std::string> pdir = parent->GetString("dir"); pdir.ok()) {
      page.Paragraph(absl::StrCat("Minimized from ", *pdir, " (", dir, " is the result)."));
    }
  }
}

}  // namespace

std::string BundlePage(const repro::LoadedBundle& b, const BundlePageOptions& options) {
  const repro::Bundle& bundle = b.bundle;
  const Graph& graph = bundle.graph;
  HtmlPage page(absl::StrCat("reprokit report: bundle @", graph.name()), "bundle");
  const bool failing = repro::IsFailure(bundle.expected.kind);
  page.Section("verdict", "Verdict");
  page.Add(absl::StrCat(
      "<p>Verdict: <strong id=\"verdict-kind\" class=\"", failing ? "verdict-fail" : "verdict-pass",
      "\">", Escape(std::string(repro::VerdictKindName(bundle.expected.kind))), "</strong>",
      bundle.expected.accuracy_subkind.empty()
          ? ""
          : absl::StrCat(" (", Escape(bundle.expected.accuracy_subkind), ")"),
      bundle.judged ? "" : " <span class=\"muted\">(not judged by an oracle)</span>", "</p>\n",
      "<p>Signature: <code id=\"signature\">", Escape(bundle.expected.signature.ToString()),
      "</code></p>\n"));
  page.Paragraph(absl::StrCat("Message: ", bundle.expected.message));
  page.Paragraph(absl::StrCat("Graph: ", graph.num_nodes(), " nodes (", graph.num_inputs(),
                              " of them inputs), ", graph.outputs().size(),
                              " outputs. Policy ", bundle.policy,
                              bundle.tol > 0 ? absl::StrCat(", tol ", bundle.tol) : "", "."));
  for (const std::string& w : b.warnings) page.Paragraph(absl::StrCat("Warning: ", w));

  const bool compiled = CompileCompleted(bundle.expected.kind);
  int culprit = -1;
  std::vector<int> failing_outputs;
  if (options.divergence && compiled && bundle.expected.kind != repro::VerdictKind::kPass) {
    DivergenceSection(b, page, &culprit, &failing_outputs);
  }

  page.Section("graph", "Graph");
  compiler::DotStyle style;
  style.element_ids = true;
  for (int id : failing_outputs) style.fill[id] = kFailingOutputColor;
  if (culprit >= 0) style.fill[culprit] = kCulpritColor;
  std::string fusion_note = "Fusion groups are not shown: the compile did not complete.";
  if (options.fusion && compiled) {
    absl::StatusOr<compiler::Executable> exe = compiler::Compile(graph, bundle.options);
    if (exe.ok()) {
      std::vector<std::string> groups;
      for (const compiler::FusionGroupSummary& g : exe->fusion_groups()) {
        groups.push_back(g.detail);
      }
      style.clusters = FusionClusters(graph, groups);
      fusion_note = absl::StrCat("Fusion groups of the default compile: ", groups.size(),
                                 ", drawn as dashed clusters (nodes matched by name; nodes the "
                                 "passes made are not drawn).");
    } else {
      fusion_note = absl::StrCat("Fusion groups are not shown: ", exe.status().message());
    }
  }
  page.Add(absl::StrCat("<p class=\"legend\"><span style=\"background:", kCulpritColor,
                        "\">culprit: first divergent node</span><span style=\"background:",
                        kFailingOutputColor, "\">failing output</span></p>\n"));
  page.Paragraph(fusion_note);
  absl::StatusOr<std::string> svg = DrawGraph(graph, style);
  if (svg.ok()) {
    page.Add(absl::StrCat("<figure class=\"graph\" id=\"graph-drawing\" aria-label=\"the graph\">",
                          *svg, "</figure>\n"));
  } else {
    page.Paragraph(absl::StrCat("The graph is not drawn: ", svg.status().message()));
  }
  page.Add(absl::StrCat("<details><summary>graph.rk</summary>", Code(compiler::PrintInline(graph)),
                        "</details>\n"));

  page.Section("inputs", "Inputs");
  page.Add(InputsTable(b));

  MinimizationSection(bundle, b.dir, page);

  page.Section("options", "Options and environment");
  page.Add(absl::StrCat("<p>Compile options: <code>",
                        Escape(bundle.options.ToString().empty() ? "defaults"
                                                                 : bundle.options.ToString()),
                        "</code></p>\n"));
  page.Add(JsonTable(bundle.environment));
  page.Add(absl::StrCat("<details><summary>Provenance</summary>", JsonTable(bundle.provenance),
                        "</details>\n"));

  page.Section("commands", "Commands");
  const std::string& r = options.reprokit;
  const std::string& d = b.dir;
  page.Add(Code(absl::StrCat(r, " run ", d, "             # compile and run, print the outputs\n",
                             r, " check ", d, "           # judge against the fp64 reference\n",
                             r, " bisect ", d, " --passes  # the pass application that breaks it\n",
                             r, " bisect ", d, " --nodes   # the first divergent node\n",
                             r, " minify ", d, " -o ", d, ".min\n",
                             r, " emit ", d, " --workspace WS --package repros/NAME\n")));
  return page.Finish();
}

}  // namespace rk::report
