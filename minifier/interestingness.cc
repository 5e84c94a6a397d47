#include "minifier/interestingness.h"

namespace rk::minifier {

absl::StatusOr<InterestingnessResult> FunctionInterestingness::Judge(const Candidate& candidate) {
  InterestingnessResult result;
  result.signature = observe_(candidate);
  result.interesting = result.signature == expected_;
  result.drift = !result.interesting && result.signature != "pass";
  return result;
}

}  // namespace rk::minifier
