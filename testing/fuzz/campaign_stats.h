// A campaign's counters (CampaignStats: graphs, verdicts and not-applicable
// reasons per configuration, errors, the timeline) and what is read from them:
// judged / not applicable / errors per configuration next to the graphs
// generated, and whether the campaign tested anything at all (exit 125).
// RecordVerdict is how a judgement is counted; NotApplicableReason the table
// key of a cannot_judge verdict's message.
//
// Tested by testing/fuzz/time_budget_test.cc (CannotTestReason, CountsOf),
// testing/fuzz/campaign_state_test.cc (AddTimelinePoint) and
// testing/fuzz/campaign_stats_test.cc (RecordVerdict, NotApplicableReason).
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_STATS_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_STATS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/generator/generator.h"
#include "repro/oracle/verdict.h"

namespace rk::fuzz {

// The campaign's counters at one moment, for the report's charts over time.
struct TimelinePoint {
  double seconds = 0;  // campaign time, all runs
  int64_t graphs = 0;
  int64_t judgements = 0;
  int64_t failures = 0;
  int64_t findings = 0;
};

// At most this many timeline points are kept: past it every other point is
// dropped (the first and the newest stay).
inline constexpr size_t kMaxTimelinePoints = 512;

struct CampaignStats {
  int64_t graphs = 0;      // graphs attempted (generated or not)
  int64_t generated = 0;   // generator succeeded
  int64_t valid = 0;       // verified
  int64_t nan_free = 0;    // fp64 reference finite everywhere
  int64_t judgements = 0;
  int64_t failures = 0;    // failing verdicts
  int64_t duplicates = 0;  // failures that matched a known or earlier finding
  int64_t known_hits = 0;  // ... of which matched --known
  int64_t minimizations = 0;
  // Failures that did not reproduce when the minimizer judged them again (a
  // timeout on a loaded machine, an intermittent crash): not findings, but
  // counted and listed (unconfirmed_failures, the first 20) so none is lost.
  // Nondeterministic failures are intermittent by nature and always kept.
  int64_t unconfirmed = 0;
  std::vector<std::string> unconfirmed_failures;  // "seed S CONFIG: SIGNATURE (MESSAGE)"
  // ... of which timeouts that did not time out again judged alone with
  // several times the budget (time_budget.h).
  int64_t unconfirmed_timeouts = 0;
  // Per configuration: judgements that could not run at all (the oracle or
  // the backend returned an error; the first few are in `errors`), and
  // graphs the configuration cannot take, per "CONFIG: reason" (cannot_judge
  // verdicts: an op, dtype or attribute the backend does not declare, ...;
  // at most kMaxReasons reasons, the rest under "CONFIG: other").
  std::map<std::string, int64_t> judge_errors;
  std::map<std::string, int64_t> not_applicable;
  double seconds = 0;      // wall time, all runs
  double generate_seconds = 0;
  double judge_seconds = 0;
  double minimize_seconds = 0;
  std::map<std::string, int64_t> verdicts;  // "cpu:pass" -> count
  compiler::generator::OpCoverage coverage;
  // Nodes generated per "op:dtype" (the node's result dtype), for the
  // report's coverage heat map.
  std::map<std::string, int64_t> op_dtypes;
  std::vector<std::string> errors;  // generator or oracle errors (first few)
  // Sampled about once a second (less often in long campaigns) and at the end
  // of every run.
  std::vector<TimelinePoint> timeline;
};

// Appends `point` unless the last point is less than `min_interval` seconds
// older; thins the timeline to keep it under kMaxTimelinePoints. Returns
// whether it appended.
bool AddTimelinePoint(CampaignStats& stats, const TimelinePoint& point, double min_interval);

inline constexpr size_t kMaxReasons = 40;

// Per configuration, next to the graphs generated.
struct ConfigCounts {
  int64_t judged = 0;          // verdicts other than cannot_judge
  int64_t not_applicable = 0;  // cannot_judge verdicts
  int64_t errors = 0;          // judgements that did not run
};
ConfigCounts CountsOf(const CampaignStats& stats, const std::string& config);

// Why a campaign tested nothing worth reporting, or "" when it did: most of
// its judgements failed to run (more errors than verdicts), or none of its
// valid graphs was judged by any configuration. Such a campaign exits 125
// (cannot test) with this reason and its first errors.
std::string CannotTestReason(const CampaignStats& stats, const std::vector<std::string>& configs);

// The reason a graph was not judged, as a table key: the harness's own
// messages ("backend 'onnxruntime' does not support op erf on f64 (at %y)",
// "undefined behavior at %d: integer division by zero (element 3: ...)") keep
// their words and lose the node and the element; anything else is normalized
// like a signature. At most 160 characters (then "...").
std::string NotApplicableReason(const std::string& message);

// Counts one verdict of `config`: judgements, verdicts per "CONFIG:kind",
// failures, and a cannot_judge's reason (at most kMaxReasons reasons, the
// rest under "CONFIG: other").
void RecordVerdict(CampaignStats& stats, const std::string& config, const repro::Verdict& verdict);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_STATS_H_
