#include "testing/fuzz/report.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "testing/fuzz/campaign_state.h"

namespace rk::fuzz {

namespace {

double Percent(int64_t part, int64_t whole) {
  return whole == 0 ? 100.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

double Rate(const CampaignSummary& s) {
  return s.run_seconds > 0 ? static_cast<double>(s.run_graphs) / s.run_seconds : 0;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
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

std::vector<std::string> ReproCommands(const CampaignSummary& s, const FindingRecord& f) {
  const std::string dir = (std::filesystem::path(s.options.out_dir) / "findings" / f.name).string();
  std::vector<std::string> commands = {
      absl::StrCat("./reprokit run ", dir, "/min"),
      absl::StrCat("./reprokit minify ", dir, "/bundle -o ", dir, "/min2"),
  };
  if (!f.test_label.empty()) {
    const std::string ws = s.options.workspace_dir.empty() ? s.options.out_dir : s.options.workspace_dir;
    commands.push_back(absl::StrCat("cd ", ws, " && bazel test ", f.test_label));
  }
  return commands;
}

}  // namespace

Json SummaryJson(const CampaignSummary& s) {
  Json j = Json::MakeObject();
  j.Set("format", "reprokit-fuzz-summary");
  j.Set("version", 1);
  Json o = Json::MakeObject();
  o.Set("seed", static_cast<unsigned long long>(s.options.seed));
  o.Set("time_seconds", s.options.time_seconds);
  o.Set("iterations", static_cast<long long>(s.options.iterations));
  o.Set("jobs", s.options.jobs);
  o.Set("shard", absl::StrCat(s.options.shard_index, "/", s.options.shard_count));
  o.Set("nodes", s.options.generator.nodes);
  o.Set("max_elements", static_cast<long long>(s.options.generator.max_elements));
  o.Set("faults", absl::StrJoin(s.options.faults, ","));
  o.Set("policy", s.options.policy);
  Json configs = Json::MakeArray();
  for (const std::string& c : s.configs) configs.push_back(c);
  o.Set("configs", std::move(configs));
  o.Set("gpu_note", s.gpu_note);
  j.Set("options", std::move(o));
  // Graphs judged per configuration next to the graphs generated, and each
  // configuration's time budget.
  Json per_config = Json::MakeObject();
  for (const std::string& c : s.configs) {
    const ConfigCounts n = CountsOf(s.stats, c);
    Json x = Json::MakeObject();
    x.Set("generated", static_cast<long long>(s.stats.generated));
    x.Set("judged", static_cast<long long>(n.judged));
    x.Set("not_applicable", static_cast<long long>(n.not_applicable));
    x.Set("errors", static_cast<long long>(n.errors));
    for (const TimeBudget& b : s.budgets) {
      if (b.config != c) continue;
      Json t = Json::MakeObject();
      t.Set("device", b.device);
      t.Set("calibrated", b.calibrated);
      t.Set("calibration_judgements", b.judgements);
      t.Set("slowest_seconds", b.slowest_seconds);
      t.Set("budget_seconds", b.budget_seconds);
      t.Set("confirm_seconds", b.confirm_seconds);
      x.Set("time_budget", std::move(t));
    }
    per_config.Set(c, std::move(x));
  }
  j.Set("configurations", std::move(per_config));
  const std::string cannot_test = CannotTestReason(s.stats, s.configs);
  j.Set("cannot_test", !cannot_test.empty());
  j.Set("cannot_test_reason", cannot_test);
  j.Set("stopped_early", s.stopped_early);
  Json run = Json::MakeObject();
  run.Set("seconds", s.run_seconds);
  run.Set("graphs", static_cast<long long>(s.run_graphs));
  run.Set("graphs_per_second", Rate(s));
  run.Set("new_findings", static_cast<long long>(s.new_findings));
  j.Set("run", std::move(run));
  Json stats = StatsToJson(s.stats);
  stats.Set("valid_percent", Percent(s.stats.valid, s.stats.graphs));
  stats.Set("nan_free_percent", Percent(s.stats.nan_free, s.stats.valid));
  j.Set("stats", std::move(stats));
  Json findings = Json::MakeArray();
  for (const FindingRecord& f : s.findings) {
    Json x = FindingToJson(f);
    x.Set("new", f.new_this_run);
    Json commands = Json::MakeArray();
    for (const std::string& c : ReproCommands(s, f)) commands.push_back(c);
    x.Set("commands", std::move(commands));
    findings.push_back(std::move(x));
  }
  j.Set("findings", std::move(findings));
  return j;
}

std::string SummaryMarkdown(const CampaignSummary& s) {
  const CampaignStats& st = s.stats;
  std::string md = "# reprokit fuzz: summary\n\n";
  absl::StrAppend(&md, "| | |\n|---|---|\n");
  absl::StrAppendFormat(&md, "| this run | %d graphs in %.1f s (%.1f graphs/s, -j %d) |\n",
                        s.run_graphs, s.run_seconds, Rate(s), s.options.jobs);
  absl::StrAppendFormat(&md, "| all runs | %d graphs in %.1f s |\n", st.graphs, st.seconds);
  absl::StrAppendFormat(&md, "| valid | %.2f%% |\n| NaN-free fp64 | %.2f%% |\n",
                        Percent(st.valid, st.graphs), Percent(st.nan_free, st.valid));
  absl::StrAppendFormat(&md, "| configurations | %s |\n", absl::StrJoin(s.configs, ", "));
  if (!s.gpu_note.empty()) absl::StrAppend(&md, "| cuda skipped | ", s.gpu_note, " |\n");
  absl::StrAppendFormat(&md, "| seed, shard | %d, %d/%d |\n", s.options.seed,
                        s.options.shard_index, s.options.shard_count);
  absl::StrAppendFormat(&md, "| faults | %s |\n",
                        s.options.faults.empty() ? "none" : absl::StrJoin(s.options.faults, ","));
  absl::StrAppendFormat(&md, "| failures | %d (%d duplicates, %d known) |\n", st.failures,
                        st.duplicates, st.known_hits);
  absl::StrAppendFormat(&md, "| findings | %d (%d new) |\n", s.findings.size(), s.new_findings);
  if (st.unconfirmed > 0) {
    absl::StrAppendFormat(&md, "| unconfirmed | %d (did not reproduce when judged again: not "
                          "findings; %d timeouts that did not time out alone) |\n",
                          st.unconfirmed, st.unconfirmed_timeouts);
  }
  absl::StrAppendFormat(&md, "| time split | generate %.1f s, judge %.1f s, minimize %.1f s |\n\n",
                        st.generate_seconds, st.judge_seconds, st.minimize_seconds);
  if (const std::string why = CannotTestReason(st, s.configs); !why.empty()) {
    absl::StrAppend(&md, "**Cannot test: ", why, ".** Nothing below says the compilers are "
                    "right; the first errors are listed at the end.\n\n");
  }
  if (!s.stopped_early.empty()) absl::StrAppend(&md, "Stopped early: ", s.stopped_early, ".\n\n");
  absl::StrAppend(&md, "## Configurations\n\n| configuration | generated | judged | not applicable "
                  "| errors | time budget |\n|---|---|---|---|---|---|\n");
  for (const std::string& c : s.configs) {
    const ConfigCounts n = CountsOf(st, c);
    std::string budget = "-";
    for (const TimeBudget& b : s.budgets) {
      if (b.config != c) continue;
      budget = b.calibrated
                   ? absl::StrFormat("%.1f s (slowest of %d calibration graphs %.2f s; "
                                     "confirmed alone with %.0f s)",
                                     b.budget_seconds, b.judgements, b.slowest_seconds,
                                     b.confirm_seconds)
                   : absl::StrFormat("%.1f s (fixed; confirmed alone with %.0f s)",
                                     b.budget_seconds, b.confirm_seconds);
    }
    absl::StrAppendFormat(&md, "| %s | %d | %d | %d | %d | %s |\n", c, st.generated, n.judged,
                          n.not_applicable, n.errors, budget);
  }
  if (!st.not_applicable.empty()) {
    absl::StrAppend(&md, "\nNot applicable (graphs a configuration cannot take, never sent):\n\n"
                    "| configuration: reason | graphs |\n|---|---|\n");
    for (const auto& [key, n] : st.not_applicable) absl::StrAppend(&md, "| ", key, " | ", n, " |\n");
  }
  absl::StrAppend(&md, "\n");
  absl::StrAppend(&md, "## Verdicts\n\n| configuration:verdict | count |\n|---|---|\n");
  for (const auto& [key, n] : st.verdicts) absl::StrAppend(&md, "| ", key, " | ", n, " |\n");
  absl::StrAppend(&md, "\n## Findings\n\n");
  if (s.findings.empty()) absl::StrAppend(&md, "None.\n");
  for (const FindingRecord& f : s.findings) {
    absl::StrAppend(&md, "### ", f.name, f.new_this_run ? " (new)" : "", "\n\n");
    absl::StrAppend(&md, "- signature: `", f.signature, "`\n- configuration: ", f.config,
                    " (`", f.options.empty() ? "defaults" : f.options, "`)\n");
    absl::StrAppend(&md, "- verdict: ", f.message, "\n");
    if (!f.triage.empty()) absl::StrAppend(&md, "- triage: ", f.triage, "\n");
    absl::StrAppendFormat(&md, "- hits: %d; minimized %d -> %d nodes in %.1f s (%d oracle calls%s)\n",
                          f.hits, f.original_nodes, f.minimized_nodes, f.minimize_seconds,
                          f.oracle_calls, f.minimize_complete ? "" : ", cut short");
    absl::StrAppendFormat(&md, "- graph seed %d (iteration %d)\n", f.graph_seed, f.iteration);
    if (!f.test_label.empty()) absl::StrAppend(&md, "- Bazel target: `", f.test_label, "`\n");
    if (!f.emit_error.empty()) absl::StrAppend(&md, "- not emitted: ", f.emit_error, "\n");
    absl::StrAppend(&md, "\n```\n", f.minimized_graph, "```\n\nReproduce:\n\n```\n",
                    absl::StrJoin(ReproCommands(s, f), "\n"), "\n```\n\n");
  }
  absl::StrAppend(&md, "## Op coverage\n\n| op | nodes |\n|---|---|\n");
  for (compiler::Op op : compiler::kAllOps) {
    absl::StrAppend(&md, "| ", std::string(compiler::OpName(op)), " | ", st.coverage.count(op), " |\n");
  }
  if (!st.unconfirmed_failures.empty()) {
    absl::StrAppend(&md, "\n## Unconfirmed failures\n\nFailed once, passed when judged again ",
                    "(`reprokit check` the seed's graph to look again):\n\n");
    for (const std::string& u : st.unconfirmed_failures) absl::StrAppend(&md, "- ", u, "\n");
  }
  if (!st.errors.empty()) {
    absl::StrAppend(&md, "\n## Errors\n\n");
    for (const std::string& e : st.errors) absl::StrAppend(&md, "- ", e, "\n");
  }
  return md;
}

std::string JunitXml(const CampaignSummary& s) {
  int failures = 0;
  std::string cases;
  const bool generator_ok = s.stats.valid == s.stats.graphs;
  absl::StrAppend(&cases, "  <testcase classname=\"fuzz\" name=\"generator\">\n");
  if (!generator_ok) {
    ++failures;
    absl::StrAppend(&cases, "    <failure message=\"", s.stats.graphs - s.stats.valid,
                    " invalid graphs\">", XmlEscape(absl::StrJoin(s.stats.errors, "\n")),
                    "</failure>\n");
  }
  absl::StrAppend(&cases, "  </testcase>\n");
  for (const FindingRecord& f : s.findings) {
    absl::StrAppend(&cases, "  <testcase classname=\"fuzz.", XmlEscape(f.config), "\" name=\"",
                    XmlEscape(f.name), "\">\n");
    if (f.new_this_run) {
      ++failures;
      absl::StrAppend(&cases, "    <failure message=\"", XmlEscape(f.signature), "\">",
                      XmlEscape(absl::StrCat(f.message, "\n\n", f.minimized_graph)), "</failure>\n");
    } else {
      absl::StrAppend(&cases, "    <system-out>known finding ", XmlEscape(f.signature),
                      "</system-out>\n");
    }
    absl::StrAppend(&cases, "  </testcase>\n");
  }
  const size_t tests = s.findings.size() + 1;
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                      "<testsuites>\n<testsuite name=\"reprokit-fuzz\" tests=\"", tests,
                      "\" failures=\"", failures, "\" errors=\"0\" time=\"",
                      absl::StrFormat("%.3f", s.run_seconds), "\">\n", cases,
                      "</testsuite>\n</testsuites>\n");
}

absl::Status WriteReports(const CampaignSummary& summary, const std::string& out_dir) {
  const std::filesystem::path dir(out_dir);
  if (absl::Status s = WriteFileAtomically((dir / "summary.json").string(),
                                           SummaryJson(summary).DumpPretty() + "\n");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteFileAtomically((dir / "summary.md").string(), SummaryMarkdown(summary));
      !s.ok()) {
    return s;
  }
  return WriteFileAtomically((dir / "junit.xml").string(), JunitXml(summary));
}

std::string ProgressLine(const CampaignSummary& s) {
  // Judged next to generated, so a campaign that judged nothing never reads
  // as clean.
  int64_t judged = 0, errors = 0;
  for (const std::string& c : s.configs) {
    const ConfigCounts n = CountsOf(s.stats, c);
    judged += n.judged;
    errors += n.errors;
  }
  return absl::StrFormat(
      "fuzz %.1fs  graphs %d (%.1f/s)  valid %.1f%%  judged %d%s  failures %d  findings %d (%d new)",
      s.run_seconds, s.run_graphs, Rate(s), Percent(s.stats.valid, s.stats.graphs), judged,
      errors > 0 ? absl::StrCat(" (", errors, " did not run)") : "", s.stats.failures,
      s.findings.size(), s.new_findings);
}

}  // namespace rk::fuzz
