#include "minifier/failure_test.h"

namespace rk::minifier {

absl::StatusOr<TestResult> FunctionFailureTest::Test(const Candidate& candidate) {
  TestResult result;
  result.signature = judge_(candidate);
  result.interesting = result.signature == expected_;
  result.drift = !result.interesting && result.signature != "pass";
  return result;
}

}  // namespace rk::minifier
