#include "testing/fuzz/campaign_judging.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "repro/oracle/signature.h"

namespace rk::fuzz {

absl::StatusOr<repro::Verdict> GatedJudge(JudgeGate& gate, repro::Oracle& oracle,
                                          const compiler::Graph& graph,
                                          const std::vector<compiler::HostTensor>& inputs,
                                          const compiler::CompileOptions& options) {
  gate.EnterShared();
  absl::StatusOr<repro::Verdict> v = oracle.Judge(graph, inputs, options);
  gate.LeaveShared();
  return v;
}

absl::StatusOr<minifier::InterestingnessResult> RootCauseInterestingness::Judge(
    const minifier::Candidate& c) {
  absl::StatusOr<repro::Verdict> v = GatedJudge(*gate_, *oracle_, c.graph, c.inputs, options_);
  if (!v.ok()) return v.status();
  minifier::InterestingnessResult r;
  r.signature = v->signature.ToString();
  r.interesting = repro::IsFailure(v->kind) && Key(*v) == key_;
  r.drift = repro::IsFailure(v->kind) && !r.interesting;
  return r;
}

std::string RootCauseInterestingness::Key(const repro::Verdict& v) {
  if (v.kind == repro::VerdictKind::kAccuracy) {
    return absl::StrCat("accuracy:", v.accuracy_subkind);
  }
  if (v.kind == repro::VerdictKind::kNondeterministic) return "nondeterministic";
  // A wrong output type: how it is wrong; the op that shows it may move
  // upstream to the culprit, as for accuracy.
  if (v.kind == repro::VerdictKind::kShapeMismatch) {
    const size_t colon = v.signature.detail.find(':');
    return absl::StrCat("shape_mismatch:", colon == std::string::npos
                                               ? v.signature.detail
                                               : v.signature.detail.substr(colon + 1));
  }
  return v.signature.ToString();
}

bool TimesOutAlone(JudgeGate& gate, repro::Oracle& patient, const std::vector<TimeBudget>& budgets,
                   const std::string& config, const compiler::CompileOptions& options,
                   const compiler::Graph& graph, const std::vector<compiler::HostTensor>& inputs,
                   std::string* message) {
  double confirm = 0, budget = 0;
  for (const TimeBudget& b : budgets) {
    if (b.config == config) {
      confirm = b.confirm_seconds;
      budget = b.budget_seconds;
    }
  }
  gate.EnterExclusive();
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<repro::Verdict> v = patient.Judge(graph, inputs, options);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gate.LeaveExclusive();
  if (!v.ok()) {
    *message = absl::StrCat("judged alone: ", v.status().message());
    return false;
  }
  const bool timed_out = v->kind == repro::VerdictKind::kTimeout || took >= confirm;
  *message = absl::StrFormat("judged alone with %.0f s: %s after %.1f s (budget %.0f s)", confirm,
                             timed_out ? "timed out" : std::string(repro::VerdictKindName(v->kind)),
                             took, budget);
  return timed_out;
}

}  // namespace rk::fuzz
