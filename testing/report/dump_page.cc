#include "testing/report/dump_page.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/json.h"
#include "compiler/ir/parser.h"
#include "testing/report/graph_drawing.h"
#include "testing/report/html.h"
#include "testing/report/svg_chart.h"

namespace rk::report {
namespace {

namespace fs = std::filesystem;

struct PassDump {
  std::string file;  // "03_constant_fold.rk"
  std::string pass;  // "constant_fold" ("input" for 00_input.rk)
};

std::vector<PassDump> PassDumps(const fs::path& dir) {
  std::vector<PassDump> dumps;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "passes", ec)) {
    const std::string name = e.path().filename().string();
    if (!absl::EndsWith(name, ".rk") || name.size() < 4 || name[2] != '_') continue;
    dumps.push_back({name, name.substr(3, name.size() - 6)});
  }
  std::sort(dumps.begin(), dumps.end(),
            [](const PassDump& a, const PassDump& b) { return a.file < b.file; });
  return dumps;
}

// Non-empty lines of a text file in the dump, or none when it is absent.
std::vector<std::string> Lines(const fs::path& file) {
  absl::StatusOr<std::string> text = ReadFileToString(file.string());
  if (!text.ok()) return {};
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    lines.push_back(std::string(line));
  }
  return lines;
}

}  // namespace

bool IsDumpDir(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(fs::path(dir) / "passes", ec) ||
         fs::is_regular_file(fs::path(dir) / "fusion.txt", ec);
}

absl::StatusOr<std::string> DumpPage(const std::string& dir_text) {
  const fs::path dir(dir_text);
  if (!IsDumpDir(dir_text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir_text, ": not a dump directory (no passes/ or fusion.txt)"));
  }
  HtmlPage page(absl::StrCat("reprokit report: compile dump ", dir.filename().string()), "dump");

  page.Section("passes", "Graph size pass by pass");
  std::vector<Bar> bars;
  std::vector<std::vector<std::string>> rows;
  std::optional<compiler::Graph> last;
  for (const PassDump& d : PassDumps(dir)) {
    absl::StatusOr<compiler::Graph> g = compiler::ParseFile((dir / "passes" / d.file).string());
    if (!g.ok()) {
      rows.push_back({Escape(d.file), Escape(d.pass), "unreadable", Escape(std::string(g.status().message()))});
      continue;
    }
    const int nodes = g->num_nodes() - g->num_inputs();
    bars.push_back({d.pass, static_cast<double>(nodes), false, absl::StrCat("bar-", d.pass)});
    rows.push_back({Escape(d.file), Escape(d.pass), absl::StrCat(nodes), ""});
    last = *std::move(g);
  }
  if (bars.empty()) {
    page.Paragraph("No pass dumps (passes/NN_<pass>.rk) in this directory.");
  } else {
    page.Paragraph("The input, then the graph after each pass that changed it.");
    page.Add(BarChart("pass-sizes", "Compute nodes after each pass that changed the graph",
                      "compute nodes", bars));
    page.Add(Table({"file", "pass", "compute nodes", "note"}, rows));
  }

  const std::vector<std::string> groups = Lines(dir / "fusion.txt");
  page.Section("fusion", "Fusion groups");
  if (groups.empty()) page.Paragraph("No fusion.txt in this directory.");
  if (last.has_value()) {
    compiler::DotStyle style;
    style.element_ids = true;
    style.clusters = FusionClusters(*last, groups);
    absl::StatusOr<std::string> svg = DrawGraph(*last, style);
    if (svg.ok()) {
      page.Paragraph(absl::StrCat("The graph after the last pass; each of the ", groups.size(),
                                  " fusion groups is a dashed cluster (one kernel)."));
      page.Add(absl::StrCat("<figure class=\"graph\" id=\"graph-drawing\" ",
                            "aria-label=\"the optimized graph with its fusion groups\">", *svg,
                            "</figure>\n"));
    } else {
      page.Paragraph(absl::StrCat("The graph is not drawn: ", svg.status().message()));
    }
  }
  if (!groups.empty()) page.Add(Code(absl::StrJoin(groups, "\n")));

  page.Section("kernels", "Kernels and their source nodes");
  std::vector<std::vector<std::string>> kernels;
  for (const std::string& line : Lines(dir / "kernels.txt")) {
    if (!absl::StartsWith(line, "kernel ")) continue;
    const size_t comment = line.find("//");
    const std::string name = line.substr(7, line.find(' ', 7) - 7);
    const std::string source =
        comment == std::string::npos ? "" : std::string(absl::StripAsciiWhitespace(line.substr(comment + 2)));
    kernels.push_back({absl::StrCat("<code>", Escape(name), "</code>"), Escape(source)});
  }
  if (kernels.empty()) {
    page.Paragraph("No kernels.txt in this directory.");
  } else {
    page.Add(Table({"kernel", "source nodes (root, epilogue <- fused producers)"}, kernels));
  }

  page.Section("timings", "Compile phase timings");
  absl::StatusOr<std::string> timings_text = ReadFileToString((dir / "timings.json").string());
  absl::StatusOr<Json> timings =
      timings_text.ok() ? ParseJson(*timings_text) : absl::StatusOr<Json>(timings_text.status());
  if (!timings.ok() || !timings->is_object()) {
    page.Paragraph("No readable timings.json in this directory.");
  } else {
    std::vector<Bar> phases;
    for (const auto& [key, value] : timings->object()) {
      // jit_ms is codegen_ms + link_ms, total_ms the sum: drawn, they count twice.
      if (!absl::EndsWith(key, "_ms") || key == "total_ms" || key == "jit_ms") continue;
      if (value.is_number()) {
        phases.push_back({key.substr(0, key.size() - 3), value.double_value(), false,
                          absl::StrCat("phase-", key.substr(0, key.size() - 3))});
      }
    }
    page.Add(BarChart("phase-timings", "Compile phase timings (ms)", "milliseconds", phases));
    page.Add(Code(timings->DumpPretty()));
  }
  return page.Finish();
}

}  // namespace rk::report
