#include "repro/emit/verdict_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace rk::repro {
namespace {

constexpr size_t kMaxBacktraceFrames = 8;

std::string Metric(double value) { return absl::StrFormat("%.3g", value); }

}  // namespace

std::string FormatVerdictTable(const Verdict& verdict, const std::string& indent) {
  std::vector<std::string> lines;
  std::string kind(VerdictKindName(verdict.kind));
  if (!verdict.accuracy_subkind.empty()) absl::StrAppend(&kind, " (", verdict.accuracy_subkind, ")");
  lines.push_back(absl::StrCat("verdict:   ", kind));
  if (IsFailure(verdict.kind)) {
    lines.push_back(absl::StrCat("signature: ", verdict.signature.ToString()));
  }
  if (!verdict.message.empty()) {
    // A compile error can span lines; keep the table one row per line.
    std::vector<std::string> message = absl::StrSplit(verdict.message, '\n');
    lines.push_back(absl::StrCat("message:   ", message.front(),
                                 message.size() > 1 ? " [...]" : ""));
  }
  if (!verdict.outputs.empty() && verdict.kind != VerdictKind::kNondeterministic) {
    lines.push_back(absl::StrFormat("  %-3s %-12s %-12s %-5s %-12s %10s %10s %10s %9s %9s", "out",
                                    "node", "op", "dtype", "judgement", "max_abs", "rmse_res",
                                    "rmse_ref", "ratio", "mismatch"));
    for (const OutputVerdict& o : verdict.outputs) {
      const OutputMetrics& m = o.metrics;
      lines.push_back(absl::StrFormat(
          "  %-3d %-12s %-12s %-5s %-12s %10s %10s %10s %9s %9d", o.index, OutputLabel(o), o.op,
          o.dtype, std::string(JudgementName(m.judgement)), Metric(m.max_abs_error),
          Metric(m.rmse_result), Metric(m.rmse_reference), Metric(m.rmse_ratio), m.mismatches));
    }
  }
  for (const std::string& w : verdict.warnings) lines.push_back(absl::StrCat("warning:   ", w));
  if (verdict.kind == VerdictKind::kCrash && !verdict.backtrace.empty()) {
    lines.push_back("backtrace (innermost first):");
    for (size_t i = 0; i < verdict.backtrace.size() && i < kMaxBacktraceFrames; ++i) {
      lines.push_back(absl::StrCat("  ", verdict.backtrace[i]));
    }
  }
  lines.push_back(absl::StrFormat("time:      compile %.1f ms, run %.1f ms, reference %.1f ms",
                                  verdict.compile_seconds * 1e3, verdict.run_seconds * 1e3,
                                  verdict.reference_seconds * 1e3));
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, indent, line, "\n");
  return out;
}

}  // namespace rk::repro
