#include "repro/emit/bazel_test_run.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/subprocess.h"

namespace rk::repro {
namespace {

// The log's current text; a log that does not exist yet is empty.
std::string LogText(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  return text.ok() ? *std::move(text) : std::string();
}

}  // namespace

std::string LabelPath(const std::string& label) {
  std::string path = absl::StartsWith(label, "//") ? label.substr(2) : label;
  const size_t colon = path.find(':');
  if (colon != std::string::npos) {
    path[colon] = '/';
  } else {
    const size_t slash = path.rfind('/');
    absl::StrAppend(&path, "/", slash == std::string::npos ? path : path.substr(slash + 1));
  }
  return path;
}

absl::StatusOr<BazelTestRun> RunBazelTest(const BazelTestRequest& request) {
  std::vector<std::string> argv = {"bazel", "test"};
  argv.insert(argv.end(), request.extra_args.begin(), request.extra_args.end());
  argv.push_back(request.label);
  SubprocessOptions options;
  options.cwd = request.workspace;
  options.log_file = request.log_file;
  options.capture = false;
  // The log may hold earlier runs: this run's output is what comes after.
  const size_t before = LogText(request.log_file).size();
  absl::StatusOr<SubprocessResult> run = RunSubprocess(argv, options);
  if (!run.ok()) return run.status();
  BazelTestRun result;
  result.exit_code = run->signal != 0 ? 128 + run->signal : run->exit_code;
  const std::string log = LogText(request.log_file);
  result.output = log.size() >= before ? log.substr(before) : log;
  result.test_log_path =
      absl::StrCat(request.workspace, "/bazel-testlogs/", LabelPath(request.label), "/test.log");
  result.test_log = LogText(result.test_log_path);
  return result;
}

absl::Status ShutdownBazel(const std::string& workspace, const std::string& log_file) {
  SubprocessOptions options;
  options.cwd = workspace;
  options.log_file = log_file;
  options.capture = false;
  absl::StatusOr<SubprocessResult> run = RunSubprocess({"bazel", "shutdown"}, options);
  if (!run.ok()) return run.status();
  if (!run->ok()) {
    return absl::InternalError(absl::StrCat("bazel shutdown in ", workspace, " ", run->Describe()));
  }
  return absl::OkStatus();
}

std::vector<std::string> TestStatusLines(const std::string& output) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, "//") &&
        (absl::StrContains(line, "PASSED") || absl::StrContains(line, "FAILED") ||
         absl::StrContains(line, "NO STATUS") || absl::StrContains(line, "TIMEOUT"))) {
      lines.emplace_back(line);
    }
  }
  return lines;
}

}  // namespace rk::repro
