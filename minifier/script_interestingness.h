// ScriptInterestingness: the interestingness test as a user's program, the
// way llvm-reduce and C-Vise take one: each candidate is written as a bundle
// directory, the program runs with that directory as its only argument, and
// exit status 0 means "still interesting" (the opposite polarity of an
// emitted repro, where 0 means fixed). Any other exit, a signal or a timeout
// means "not interesting". Thread-safe: with -j N, N scripts run at once,
// each on its own directory, removed afterwards.
//
// Tested by minifier/script_interestingness_test.cc and tools/backend_cli_test.sh.
#ifndef REPROKIT_MINIFIER_SCRIPT_INTERESTINGNESS_H_
#define REPROKIT_MINIFIER_SCRIPT_INTERESTINGNESS_H_

#include <atomic>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "minifier/interestingness.h"

namespace rk::minifier {

class ScriptInterestingness : public Interestingness {
 public:
  // Writes a candidate as a bundle directory (created by the callee).
  using WriteCandidate = std::function<absl::Status(const Candidate&, const std::string& dir)>;

  // `script`: the program (run directly, not through a shell); `scratch_dir`:
  // an existing directory for the candidates' bundles; `timeout_seconds` > 0
  // bounds each run.
  ScriptInterestingness(std::string script, std::string scratch_dir, WriteCandidate write,
                        double timeout_seconds)
      : script_(std::move(script)),
        scratch_dir_(std::move(scratch_dir)),
        write_(std::move(write)),
        timeout_seconds_(timeout_seconds) {}

  absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override;

  int64_t runs() const { return runs_.load(); }

 private:
  std::string script_;
  std::string scratch_dir_;
  WriteCandidate write_;
  double timeout_seconds_;
  std::atomic<int64_t> runs_{0};
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_SCRIPT_INTERESTINGNESS_H_
