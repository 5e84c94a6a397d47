// How the campaign judges: every judgement passes the campaign's JudgeGate
// (GatedJudge), the minimizer keeps a candidate while it fails for the same
// root cause (RootCauseInterestingness), and a timeout counts only when it
// times out again judged alone with the confirmation budget (TimesOutAlone).
//
// Tested by testing/fuzz/campaign_test.cc (through RunCampaign) and
// testing/fuzz/campaign_judging_test.cc.
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_JUDGING_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_JUDGING_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "minifier/interestingness.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/verdict.h"
#include "testing/fuzz/judge_gate.h"
#include "testing/fuzz/time_budget.h"

namespace rk::fuzz {

// oracle.Judge with a shared entry of `gate`.
absl::StatusOr<repro::Verdict> GatedJudge(JudgeGate& gate, repro::Oracle& oracle,
                                          const compiler::Graph& graph,
                                          const std::vector<compiler::HostTensor>& inputs,
                                          const compiler::CompileOptions& options);

// The minimizer's question for the fuzzer: does the candidate still fail
// with the same kind (and, for accuracy, the same subkind)? The failing
// output's op and dtype may change, so a culprit upstream of the op that
// shows the error (relu feeding a mul) is cut down to itself, and findings
// dedup by root cause rather than by where the error surfaced.
class RootCauseInterestingness : public minifier::Interestingness {
 public:
  RootCauseInterestingness(repro::Oracle* oracle, JudgeGate* gate, compiler::CompileOptions options,
                           const repro::Verdict& expected)
      : oracle_(oracle), gate_(gate), options_(std::move(options)), key_(Key(expected)) {}

  absl::StatusOr<minifier::InterestingnessResult> Judge(const minifier::Candidate& c) override;

  // What must stay the same: the verdict kind, the accuracy subkind, how an
  // output type is wrong, or else the whole signature.
  static std::string Key(const repro::Verdict& v);

 private:
  repro::Oracle* oracle_;
  JudgeGate* gate_;
  compiler::CompileOptions options_;
  std::string key_;
};

// Whether `graph` times out again judged alone (the gate's exclusive entry)
// by `patient` with `config`'s confirmation budget of `budgets`; `message`
// gets what happened ("judged alone with 80 s: timed out after 80.0 s
// (budget 20 s)"). A judgement that fails to run is no timeout.
bool TimesOutAlone(JudgeGate& gate, repro::Oracle& patient, const std::vector<TimeBudget>& budgets,
                   const std::string& config, const compiler::CompileOptions& options,
                   const compiler::Graph& graph, const std::vector<compiler::HostTensor>& inputs,
                   std::string* message);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_JUDGING_H_
