#include "testing/fuzz/time_budget.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"

namespace rk::fuzz {

double BudgetFromTimes(absl::Span<const double> seconds, bool any_timed_out,
                       const BudgetRule& rule) {
  if (any_timed_out) return std::max(rule.floor_seconds, rule.ceiling_seconds);
  double slowest = 0;
  for (double s : seconds) slowest = std::max(slowest, s);
  return std::max(rule.floor_seconds, rule.factor * slowest);
}

absl::StatusOr<TimeBudget> CalibrateBudget(
    repro::Oracle& oracle, absl::Span<const compiler::generator::GeneratedGraph> graphs,
    const std::string& config, const compiler::CompileOptions& options, int parallel,
    uint64_t seed, const BudgetRule& rule) {
  std::mutex mu;
  std::vector<double> seconds;
  bool timed_out = false;
  int ran = 0;  // without an error; cannot_judge ones say nothing of time
  std::string first_error;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < graphs.size(); i = next++) {
      const std::vector<compiler::HostTensor> inputs = graphs[i].MakeInputs(seed + i);
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<repro::Verdict> v = oracle.Judge(graphs[i].graph, inputs, options);
      const double took =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(mu);
      if (!v.ok()) {
        if (first_error.empty()) first_error = std::string(v.status().message());
        continue;
      }
      ++ran;
      if (v->kind == repro::VerdictKind::kCannotJudge) continue;
      seconds.push_back(took);
      timed_out = timed_out || v->kind == repro::VerdictKind::kTimeout;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, std::min<int>(parallel, graphs.size())); ++t) {
    threads.emplace_back(work);
  }
  for (std::thread& t : threads) t.join();
  if (ran == 0) {
    return absl::UnavailableError(absl::StrCat(
        "calibrating the time budget of ", config, ": no judgement ran (",
        graphs.size(), " tried); the first error: ", first_error));
  }
  TimeBudget b;
  b.config = config;
  b.device = options.device;
  if (seconds.empty()) {  // none applicable: the floor
    b.budget_seconds = rule.floor_seconds;
    b.confirm_seconds = rule.confirm_factor * b.budget_seconds;
    return b;
  }
  b.judgements = static_cast<int>(seconds.size());
  b.slowest_seconds = *std::max_element(seconds.begin(), seconds.end());
  b.budget_seconds = BudgetFromTimes(seconds, timed_out, rule);
  b.confirm_seconds = rule.confirm_factor * b.budget_seconds;
  b.calibrated = true;
  return b;
}

}  // namespace rk::fuzz
