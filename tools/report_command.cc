// `reprokit report INPUT -o report.html`: one self-contained HTML page (inline
// SVG and CSS, no scripts) for a repro bundle, a `compile --dump` directory or
// a fuzz campaign directory (testing/report/report.h, docs/REPORT.md).
// Tested by tools/report_cli_test.sh and tools/report_browser_test.sh.
#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "testing/report/report.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "report";

// An existing file is replaced only when it is an HTML page (an earlier
// report) or with --force: a mistyped -o must not eat a bundle's graph.rk.
absl::Status CheckOutput(const std::string& output, bool force) {
  std::error_code ec;
  if (!std::filesystem::exists(output, ec) || force) return absl::OkStatus();
  if (std::filesystem::is_directory(output, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("-o ", output, ": is a directory"));
  }
  absl::StatusOr<std::string> text = ReadFileToString(output);
  if (text.ok() && absl::StartsWith(*text, "<!DOCTYPE html>")) return absl::OkStatus();
  return absl::AlreadyExistsError(
      absl::StrCat("-o ", output, ": exists and is not an HTML report (use --force to replace it)"));
}

int RunReport(absl::Span<const std::string> args) {
  std::string output;
  bool force = false, no_divergence = false;
  FlagSet flags(
      "report INPUT -o report.html [--no-divergence] [--force]",
      "Writes one self-contained HTML page (inline SVG charts and Graphviz drawings,\n"
      "no scripts, opens offline) for INPUT, which is one of:\n"
      "  a bundle           verdict, the graph with the culprit and failing outputs\n"
      "                     highlighted and fusion groups as clusters, per-node error\n"
      "                     chart (bisect --nodes), inputs, options, commands; for a\n"
      "                     minimized bundle the minifier's progress;\n"
      "  a dump directory   (compile --dump DIR) graph size pass by pass, fusion\n"
      "                     groups on the graph, kernels and their nodes, phase timings;\n"
      "  a fuzz campaign    graphs and throughput over time, findings by signature\n"
      "                     with thumbnails linking to findings/<name>/report.html\n"
      "                     (written too), op x dtype coverage, emitted targets.\n"
      "docs/REPORT.md describes the pages.");
  flags.String("output", &output, "the HTML file to write", 'o');
  flags.Bool("no-divergence", &no_divergence,
             "bundles: skip the per-node divergence analysis (one compile and run)");
  flags.Bool("force", &force, "replace an existing -o file that is not an HTML report");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kName, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError(kName, absl::InvalidArgumentError("expects one INPUT directory"));
  }
  if (output.empty()) return ReportError(kName, absl::InvalidArgumentError("give -o report.html"));
  if (absl::Status s = CheckOutputPath("-o", output, OutputKind::kFile); !s.ok()) {
    return ReportError(kName, s);
  }
  if (absl::Status s = CheckOutput(output, force); !s.ok()) return ReportError(kName, s);
  report::ReportOptions options;
  options.bundle.divergence = !no_divergence;
  absl::StatusOr<report::InputKind> kind = report::WriteReport((*positional)[0], output, options);
  if (!kind.ok()) {
    // Not a verdict about any repro: an error that is not bad input means the
    // report could not be made (exit 125), never "reproduces" (1).
    const int code = ReportError(kName, kind.status());
    return code == kExitUsage ? code : kExitCannotTest;
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(output, ec);
  std::printf("wrote %s (%s report, %llu bytes)\n", output.c_str(),
              std::string(report::InputKindName(*kind)).c_str(),
              static_cast<unsigned long long>(ec ? 0 : bytes));
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("report", "an HTML report of a bundle, a compile dump or a fuzz campaign",
                    &RunReport);

}  // namespace rk::tools
