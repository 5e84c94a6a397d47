#include "minifier/script_interestingness.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/subprocess.h"

namespace rk::minifier {

absl::StatusOr<InterestingnessResult> ScriptInterestingness::Judge(const Candidate& candidate) {
  const int64_t n = runs_.fetch_add(1);
  const std::string dir = absl::StrCat(scratch_dir_, "/candidate-", n);
  if (absl::Status s = write_(candidate, dir); !s.ok()) return s;
  SubprocessOptions options;
  options.capture = true;
  options.max_captured_bytes = 4096;
  options.timeout_seconds = timeout_seconds_;
  absl::StatusOr<SubprocessResult> result = RunSubprocess({script_, dir}, options);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!result.ok()) {
    // The script itself is missing or not executable: every candidate would
    // fail the same way, so this is an error, not "not interesting".
    return absl::Status(result.status().code(),
                        absl::StrCat("interestingness test: ", result.status().message()));
  }
  InterestingnessResult out;
  out.interesting = result->ok();
  out.signature = result->ok() ? "script:interesting"
                               : absl::StrCat("script:", result->timed_out ? "timeout"
                                                         : result->signal != 0
                                                             ? absl::StrCat("signal ", result->signal)
                                                             : absl::StrCat("exit ", result->exit_code));
  return out;
}

}  // namespace rk::minifier
