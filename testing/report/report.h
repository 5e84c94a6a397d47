// `reprokit report INPUT -o report.html`: what kind of input a directory is
// (a repro bundle, a `compile --dump` directory, a fuzz campaign) and the
// one self-contained HTML page for it (bundle_page.h, dump_page.h,
// campaign_page.h). For a campaign, each finding's minimized bundle gets its
// own report (findings/<name>/report.html) for the campaign page to link to.
//
// Tested by testing/report/report_test.cc and tools/report_browser_test.sh.
#ifndef REPROKIT_TESTING_REPORT_REPORT_H_
#define REPROKIT_TESTING_REPORT_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "testing/report/bundle_page.h"

namespace rk::report {

enum class InputKind { kBundle, kDump, kCampaign };
std::string_view InputKindName(InputKind kind);

// InvalidArgument naming what `path` is not, or NotFound.
absl::StatusOr<InputKind> DetectInput(const std::string& path);

struct ReportOptions {
  BundlePageOptions bundle;
  bool finding_reports = true;  // campaigns: write findings/<name>/report.html
};

// Writes the page to `output` (atomically) and returns its kind.
absl::StatusOr<InputKind> WriteReport(const std::string& input, const std::string& output,
                                      const ReportOptions& options);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_REPORT_H_
