// Campaign reports, rewritten at the end of every run from the cumulative
// state of the output directory:
//   summary.json  statistics (graphs/s, valid %, NaN-free %, verdicts per
//                 configuration, per-op coverage) and every finding;
//   summary.md    the same for people: each finding with its minimized graph
//                 and the commands that reproduce it;
//   junit.xml     one testcase per finding signature, failing when the
//                 finding is new in this run (known ones pass), plus a
//                 "generator" testcase failing on any invalid graph.
//
// Tested through testing/fuzz/campaign_test.cc (a campaign writes every
// report) and tools/fuzz_sharded_test.sh (summary.md of a sharded run).
#ifndef REPROKIT_TESTING_FUZZ_REPORT_H_
#define REPROKIT_TESTING_FUZZ_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "base/json.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {

Json SummaryJson(const CampaignSummary& summary);
std::string SummaryMarkdown(const CampaignSummary& summary);
std::string JunitXml(const CampaignSummary& summary);
absl::Status WriteReports(const CampaignSummary& summary, const std::string& out_dir);

// One progress line: "fuzz 12.3s  graphs 240 (19.5/s)  valid 100%  judged 472
// failures 1  findings 1 (1 new)" (judgements of every configuration, and
// how many did not run when some did not).
std::string ProgressLine(const CampaignSummary& summary);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_REPORT_H_
