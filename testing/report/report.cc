#include "testing/report/report.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "repro/bundle/bundle.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/report/campaign_page.h"
#include "testing/report/dump_page.h"

namespace rk::report {

namespace fs = std::filesystem;

std::string_view InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kBundle: return "bundle";
    case InputKind::kDump: return "dump";
    case InputKind::kCampaign: return "campaign";
  }
  return "?";
}

absl::StatusOr<InputKind> DetectInput(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return absl::NotFoundError(absl::StrCat(path, ": no such directory"));
  if (!fs::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a directory (give a bundle, a dump directory or a campaign)"));
  }
  if (repro::IsBundleDir(path)) return InputKind::kBundle;
  if (IsDumpDir(path)) return InputKind::kDump;
  if (IsCampaignDir(path)) return InputKind::kCampaign;
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": not a bundle (repro.json), a dump directory (passes/, fusion.txt) or a fuzz "
            "campaign (state.json, findings/)"));
}

absl::StatusOr<InputKind> WriteReport(const std::string& input, const std::string& output,
                                      const ReportOptions& options) {
  absl::StatusOr<InputKind> kind = DetectInput(input);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<std::string> html;
  switch (*kind) {
    case InputKind::kBundle: {
      absl::StatusOr<repro::LoadedBundle> bundle = repro::LoadBundle(input);
      if (!bundle.ok()) return bundle.status();
      html = BundlePage(*bundle, options.bundle);
      break;
    }
    case InputKind::kDump:
      html = DumpPage(input);
      break;
    case InputKind::kCampaign: {
      if (options.finding_reports) {
        absl::StatusOr<std::vector<fuzz::FindingRecord>> findings = fuzz::LoadFindings(input);
        if (!findings.ok()) return findings.status();
        for (const fuzz::FindingRecord& f : *findings) {
          const fs::path min = fs::path(input) / "findings" / f.name / "min";
          absl::StatusOr<repro::LoadedBundle> bundle = repro::LoadBundle(min.string());
          if (!bundle.ok()) continue;  // the campaign page then shows no link
          RK_RETURN_IF_ERROR(WriteFileAtomically(
              (fs::path(input) / FindingReportPath(f.name)).string(),
              BundlePage(*bundle, options.bundle)));
        }
      }
      html = CampaignPage(input);
      break;
    }
  }
  if (!html.ok()) return html.status();
  RK_RETURN_IF_ERROR(WriteFileAtomically(output, *html));
  return *kind;
}

}  // namespace rk::report
