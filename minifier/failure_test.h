// FailureTest: the "does this candidate still fail the same way?" question,
// as an interface, so the engine can run against the real oracle or, in
// tests and benchmarks, against a predicate over the graph.
//
// A candidate is interesting iff it fails with exactly the expected
// signature. A failure with another signature is "drift": not interesting,
// and counted, because a reducer that followed drift would hand back a
// different bug.
//
// The real oracle's implementation is OracleFailureTest (oracle_failure_test.h).
//
// Tested by minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_FAILURE_TEST_H_
#define REPROKIT_MINIFIER_FAILURE_TEST_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "minifier/candidate.h"

namespace rk::minifier {

struct TestResult {
  bool interesting = false;
  bool drift = false;     // failed, but with another signature
  std::string signature;  // what was observed ("pass" when it passed)
};

class FailureTest {
 public:
  virtual ~FailureTest() = default;
  // Must be safe to call from several threads at once. An error means the
  // candidate could not be judged (bad input); the engine drops it.
  virtual absl::StatusOr<TestResult> Test(const Candidate& candidate) = 0;
};

// A FailureTest over a function of the candidate returning the observed
// signature ("pass" for none); for tests and benchmarks.
class FunctionFailureTest : public FailureTest {
 public:
  using Judge = std::function<std::string(const Candidate&)>;
  FunctionFailureTest(Judge judge, std::string expected)
      : judge_(std::move(judge)), expected_(std::move(expected)) {}

  absl::StatusOr<TestResult> Test(const Candidate& candidate) override;

 private:
  Judge judge_;
  std::string expected_;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_FAILURE_TEST_H_
