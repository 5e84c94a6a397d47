// The report page of a fuzz campaign directory (testing/fuzz/campaign.h):
// graphs judged and throughput over time (state.json's timeline), findings
// grouped by signature with their hits and first/last seen, each with its
// minimized graph as a thumbnail linking to that finding's bundle report
// (findings/<name>/report.html), op x dtype coverage as a heat map, the
// verdicts per configuration and the emitted Bazel targets.
//
// A campaign directory holds state.json or findings/ (IsCampaignDir). The
// page reads only what the campaign wrote; it writes nothing.
//
// Tested by testing/report/report_test.cc and tools/report_browser_test.sh.
#ifndef REPROKIT_TESTING_REPORT_CAMPAIGN_PAGE_H_
#define REPROKIT_TESTING_REPORT_CAMPAIGN_PAGE_H_

#include <string>

#include "absl/status/statusor.h"

namespace rk::report {

bool IsCampaignDir(const std::string& dir);

// The finding's bundle report, relative to the campaign directory.
std::string FindingReportPath(const std::string& finding_name);

absl::StatusOr<std::string> CampaignPage(const std::string& dir);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_CAMPAIGN_PAGE_H_
