// Interestingness: the "does this candidate still fail the same way?"
// question (what llvm-reduce and C-Vise call the interestingness test), as an
// interface, so the engine can run against the real oracle or, in tests and
// benchmarks, against a predicate over the graph.
//
// A candidate is interesting iff it fails with exactly the expected
// signature. A failure with another signature is "drift": not interesting,
// and counted, because a reducer that followed drift would hand back a
// different bug.
//
// The real oracle's implementation is OracleInterestingness
// (oracle_interestingness.h).
//
// Tested by minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_INTERESTINGNESS_H_
#define REPROKIT_MINIFIER_INTERESTINGNESS_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "minifier/candidate.h"

namespace rk::minifier {

struct InterestingnessResult {
  bool interesting = false;
  bool drift = false;     // failed, but with another signature
  std::string signature;  // what was observed ("pass" when it passed)
};

class Interestingness {
 public:
  virtual ~Interestingness() = default;
  // Must be safe to call from several threads at once. An error means the
  // candidate could not be judged (bad input); the engine drops it.
  virtual absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) = 0;
  // False when the candidate cannot possibly fail the expected way, known
  // without judging it (it lacks what the expected signature names); the
  // engine then counts it as not interesting without a call. Thread-safe.
  virtual bool CanMatch(const Candidate& /*candidate*/) const { return true; }
};

// An Interestingness over a function of the candidate returning the observed
// signature ("pass" for none); for tests and benchmarks.
class FunctionInterestingness : public Interestingness {
 public:
  using Observe = std::function<std::string(const Candidate&)>;
  FunctionInterestingness(Observe observe, std::string expected)
      : observe_(std::move(observe)), expected_(std::move(expected)) {}

  absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override;

 private:
  Observe observe_;
  std::string expected_;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_INTERESTINGNESS_H_
