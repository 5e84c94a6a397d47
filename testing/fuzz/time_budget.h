// Time budgets for a campaign's judgements, calibrated per configuration
// (backend and device) at the start of the campaign: a few small graphs
// judged at once, as many as the campaign runs in parallel, under a generous
// ceiling; the budget is `factor` times the slowest of them, never below
// `floor_seconds`. A judgement that runs past the budget is a timeout
// verdict; it becomes a finding only if it times out again when judged alone
// with `confirm_factor` times the budget (campaign.h), so a slow first
// compile under load (Inductor's, with -j 8) is not a bug report.
//
// Tested by testing/fuzz/time_budget_test.cc.
#ifndef REPROKIT_TESTING_FUZZ_TIME_BUDGET_H_
#define REPROKIT_TESTING_FUZZ_TIME_BUDGET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/generator/generator.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/oracle.h"

namespace rk::fuzz {

struct BudgetRule {
  double floor_seconds = 20;
  double factor = 4;
  double confirm_factor = 4;
  double ceiling_seconds = 300;  // the calibration's own timeout
};

struct TimeBudget {
  std::string config;  // "cpu", "onnxruntime@cuda", ...
  std::string device;
  int judgements = 0;  // calibration judgements that ran
  double slowest_seconds = 0;
  double budget_seconds = 0;   // per judgement in the campaign
  double confirm_seconds = 0;  // a timeout judged alone again
  bool calibrated = false;     // false: a fixed budget (--judge-timeout)
};

// max(floor, factor * slowest); the ceiling when a calibration judgement
// itself timed out.
double BudgetFromTimes(absl::Span<const double> seconds, bool any_timed_out,
                       const BudgetRule& rule);

// Judges `graphs` with `options` on `oracle` (whose timeout should be the
// rule's ceiling), `parallel` at a time, and returns the budget (the floor,
// not `calibrated`, when none of the graphs was applicable). When no
// judgement ran (each returned an error), Unavailable with the first error:
// the campaign cannot test this configuration.
absl::StatusOr<TimeBudget> CalibrateBudget(
    repro::Oracle& oracle, absl::Span<const compiler::generator::GeneratedGraph> graphs,
    const std::string& config, const compiler::CompileOptions& options, int parallel,
    uint64_t seed, const BudgetRule& rule);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_TIME_BUDGET_H_
