#include "minifier/oracle_failure_test.h"

namespace rk::minifier {

absl::StatusOr<TestResult> OracleFailureTest::Test(const Candidate& candidate) {
  absl::StatusOr<repro::Verdict> verdict =
      oracle_->Judge(candidate.graph, candidate.inputs, options_);
  if (!verdict.ok()) return verdict.status();
  TestResult result;
  result.signature = verdict->signature.ToString();
  result.interesting = verdict->signature == expected_;
  result.drift = !result.interesting && repro::IsFailure(verdict->kind);
  return result;
}

}  // namespace rk::minifier
