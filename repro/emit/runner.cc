#include "repro/emit/runner.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "base/subprocess.h"
#include "compiler/support/cuda_probe.h"
#include "repro/backend/builtin_server.h"
#include "repro/backend/locate.h"
#include "repro/bundle/bundle.h"
#include "repro/emit/verdict_table.h"
#include "repro/oracle/oracle.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace rk::repro {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;

constexpr char kUsage[] =
    "usage: <repro target> [--mode=test|bisect] [--known_failure] [--any_failure]\n"
    "       [--device=cpu|cuda] [--opt=key=value ...] [--timeout=SECONDS] [--bundle=DIR]\n"
    "Judges the repro bundle with the oracle. Test mode: fails while the recorded\n"
    "failure reproduces (inverted with --known_failure). Bisect mode: 0 good (does\n"
    "not reproduce), 1 bad (reproduces), 125 cannot test. REPROKIT_OPTIONS adds\n"
    "compile option overrides (\"key=value ...\").\n";

// Splits "--name=value" / "--name value"; returns false if `arg` is not --name.
bool TakeValue(const std::string& name, absl::Span<const std::string> args, size_t* i,
               std::string* value) {
  const std::string& arg = args[*i];
  const std::string flag = "--" + name;
  if (absl::StartsWith(arg, flag + "=")) {
    *value = arg.substr(flag.size() + 1);
    return true;
  }
  if (arg == flag && *i + 1 < args.size()) {
    *value = args[++*i];
    return true;
  }
  return false;
}

absl::StatusOr<std::string> LocateBundle(const char* argv0, const char* rlocation,
                                         const RunnerArgs& args) {
  if (!args.bundle_dir.empty()) return args.bundle_dir;
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::Create(argv0, &error));
  if (runfiles == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("cannot find the runfiles: ", error));
  }
  const std::string json = runfiles->Rlocation(rlocation);
  std::error_code ec;
  if (json.empty() || !std::filesystem::exists(json, ec)) {
    return absl::NotFoundError(absl::StrCat("bundle file ", rlocation, " is not in the runfiles"));
  }
  return std::filesystem::path(json).parent_path().string();
}

// Bazel has no skip status for a test before Bazel 7; a JUnit XML with a
// skipped case (which Bazel keeps when the test writes XML_OUTPUT_FILE) lets
// reports count it as skipped while the test itself passes.
void RecordSkip(const std::string& reason) {
  const char* xml_path = std::getenv("XML_OUTPUT_FILE");
  if (xml_path == nullptr || *xml_path == '\0') return;
  const char* target = std::getenv("TEST_TARGET");
  std::string name = target != nullptr ? target : "repro";
  std::string escaped;
  for (char c : reason) {
    if (c == '<') escaped += "&lt;";
    else if (c == '>') escaped += "&gt;";
    else if (c == '&') escaped += "&amp;";
    else if (c == '"') escaped += "&quot;";
    else escaped += c;
  }
  std::ofstream xml(xml_path);
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"
      << "<testsuite name=\"" << name << "\" tests=\"1\" failures=\"0\" errors=\"0\" "
      << "skipped=\"1\">\n"
      << "<testcase name=\"repro\" classname=\"" << name << "\" status=\"notrun\">"
      << "<skipped message=\"" << escaped << "\"/></testcase>\n"
      << "</testsuite>\n</testsuites>\n";
}

std::string ModeText(const RunnerArgs& args) {
  if (args.mode == RunnerMode::kBisect) {
    return "bisect (exit 0 good = does not reproduce, 1 bad = reproduces, 125 skip)";
  }
  if (args.known_failure) return "known failure (passes while the failure reproduces)";
  return "regression test (passes once the bug is fixed)";
}

// "name version" of the backend recorded at capture, or the spec.
std::string RecordedBackend(const Bundle& bundle) {
  const Json* b = bundle.environment.Find("backend");
  if (b == nullptr || !b->is_object()) return bundle.options.backend;
  absl::StatusOr<std::string> name = b->GetString("name"), version = b->GetString("version");
  if (!name.ok() || !version.ok()) return bundle.options.backend;
  // Versions may already name the backend ("onnxruntime 1.30.0 (node)").
  return absl::StartsWith(*version, *name) ? *version : absl::StrCat(*name, " ", *version);
}

// The runner also serves the built-in compiler through the backend protocol
// (`--backend-serve`), so that a repro recorded with `--backend reprokit`
// runs with no reprokit binary installed.
int ServeBackend() {
  std::fflush(stdout);
  const int frames_fd = ::dup(1);
  if (frames_fd < 0 || ::dup2(2, 1) < 0) return 2;
  absl::Status served = ServeBuiltinBackend(0, frames_fd);
  if (!served.ok()) {
    std::fprintf(stderr, "reprokit repro: backend-serve: %s\n", served.ToString().c_str());
    return 2;
  }
  return 0;
}

// Exit code for "this run could not even start" (bad bundle, no runfiles).
int CannotStart(const RunnerArgs& args, const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "reprokit repro: %s: %s\n", what.c_str(), status.ToString().c_str());
  return args.mode == RunnerMode::kBisect ? 125 : 2;
}

absl::StatusOr<compiler::CompileOptions> EffectiveOptions(const compiler::CompileOptions& recorded,
                                                          const RunnerArgs& args,
                                                          std::vector<std::string>* applied) {
  compiler::CompileOptions options = recorded;
  std::vector<std::string> overrides = args.option_overrides;
  if (const char* env = std::getenv(kReproOptionsEnv); env != nullptr && *env != '\0') {
    for (absl::string_view item : absl::StrSplit(env, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
      overrides.emplace_back(item);
    }
  }
  if (!args.device.empty() && args.device != recorded.device) {
    overrides.push_back("device=" + args.device);
  }
  if (absl::Status s = options.Apply(overrides); !s.ok()) return s;
  *applied = std::move(overrides);
  return options;
}

std::string Quoted(const std::string& text) { return text.empty() ? "(defaults)" : text; }

}  // namespace

absl::StatusOr<RunnerArgs> ParseRunnerArgs(absl::Span<const std::string> args) {
  RunnerArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      out.help = true;
    } else if (arg == "--known_failure" || arg == "--known-failure") {
      out.known_failure = true;
    } else if (arg == "--any_failure" || arg == "--any-failure") {
      out.any_failure = true;
    } else if (TakeValue("mode", args, &i, &value)) {
      if (value == "test") {
        out.mode = RunnerMode::kTest;
      } else if (value == "bisect") {
        out.mode = RunnerMode::kBisect;
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--mode: expected test or bisect, got '",
                                                       value, "'"));
      }
    } else if (TakeValue("device", args, &i, &value)) {
      out.device = value;
    } else if (TakeValue("opt", args, &i, &value)) {
      out.option_overrides.push_back(value);
    } else if (TakeValue("bundle", args, &i, &value)) {
      out.bundle_dir = value;
    } else if (TakeValue("timeout", args, &i, &value)) {
      if (!absl::SimpleAtod(value, &out.timeout_seconds) || out.timeout_seconds <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("--timeout: bad value '", value, "'"));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", arg, "'"));
    }
  }
  return out;
}

int RunReproMain(int argc, char** argv, const char* bundle_rlocation) {
  if (argc == 2 && std::string(argv[1]) == "--backend-serve") return ServeBackend();
  {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
    if (!ec) SetSelfBackendCommand({self.string(), "--backend-serve"});
  }
  std::vector<std::string> raw(argv + 1, argv + argc);
  absl::StatusOr<RunnerArgs> args = ParseRunnerArgs(raw);
  if (!args.ok()) {
    std::fprintf(stderr, "reprokit repro: %s\n%s", std::string(args.status().message()).c_str(),
                 kUsage);
    return 2;
  }
  if (args->help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const char* target = std::getenv("TEST_TARGET");
  std::printf("== reprokit repro%s%s ==\n", target ? " " : "", target ? target : "");
  std::printf("mode:      %s\n", ModeText(*args).c_str());

  absl::StatusOr<std::string> dir = LocateBundle(argv[0], bundle_rlocation, *args);
  if (!dir.ok()) return CannotStart(*args, "locating the bundle", dir.status());
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(*dir);
  if (!loaded.ok()) return CannotStart(*args, absl::StrCat("loading ", *dir), loaded.status());
  const Bundle& bundle = loaded->bundle;
  std::vector<std::string> applied;
  absl::StatusOr<compiler::CompileOptions> options = EffectiveOptions(bundle.options, *args, &applied);
  if (!options.ok()) return CannotStart(*args, "compile option overrides", options.status());

  std::printf("bundle:    %s (hash %s)\n", loaded->dir.c_str(), loaded->hash.substr(0, 12).c_str());
  std::printf("graph:     @%s, %d nodes, %zu inputs\n", bundle.graph.name().c_str(),
              bundle.graph.num_nodes(), bundle.inputs.size());
  std::printf("options:   %s", Quoted(options->ToString()).c_str());
  if (!applied.empty()) {
    std::printf("  (recorded: %s; overrides: %s)", Quoted(bundle.options.ToString()).c_str(),
                absl::StrJoin(applied, " ").c_str());
  }
  std::printf("\nexpected:  %s\n", bundle.expected.signature.ToString().c_str());
  for (const std::string& w : loaded->warnings) std::printf("warning:   %s\n", w.c_str());

  if (options->device == "cuda") {
    const compiler::CudaProbe gpu = compiler::ProbeCudaInChild();
    if (!gpu.usable) {
      const std::string reason = absl::StrCat("no usable CUDA GPU: ", gpu.reason);
      if (args->mode == RunnerMode::kBisect) {
        std::printf("result:    SKIP: %s (exit 125)\n", reason.c_str());
        return 125;
      }
      std::printf("result:    SKIPPED: %s (reported as a skipped test case)\n", reason.c_str());
      RecordSkip(reason);
      return 0;
    }
  }

  if (options->external()) {
    absl::StatusOr<BackendCommand> found = LocateBackend(options->backend);
    if (!found.ok()) {
      const std::string reason = absl::StrCat("the bundle's backend is not here: ",
                                              found.status().message());
      if (args->mode == RunnerMode::kBisect) {
        std::printf("result:    SKIP: %s (exit 125)\n", reason.c_str());
        return 125;
      }
      std::printf("result:    SKIPPED: %s (reported as a skipped test case)\n", reason.c_str());
      RecordSkip(reason);
      return 0;
    }
    std::printf("backend:   %s (recorded: %s)\n", found->argv[0].c_str(),
                RecordedBackend(bundle).c_str());
  }

  Oracle::Config config;
  config.options.policy = bundle.policy;
  config.options.accuracy.tol = bundle.tol;
  config.limits.timeout = absl::Seconds(args->timeout_seconds);
  // A bundle captured with the miscompile/precision check deferred is judged
  // as it was captured, so its "unknown" subkind is what is expected.
  config.options.classify_accuracy = !bundle.precision_check_deferred;
  absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
  if (!oracle.ok()) return CannotStart(*args, "starting the oracle", oracle.status());
  std::fflush(stdout);
  absl::StatusOr<Verdict> verdict = (*oracle)->Judge(bundle.graph, loaded->inputs, *options);
  if (!verdict.ok()) return CannotStart(*args, "judging", verdict.status());

  std::printf("\n%s\n", FormatVerdictTable(*verdict, "  ").c_str());
  std::string note;
  const ReproMatch match = CompareWithExpected(bundle.expected.signature, *verdict, &note);
  std::string judged = "reprokit's built-in compiler";
  if (options->external()) {
    absl::StatusOr<BackendHello> hello = (*oracle)->Backend(options->backend);
    judged = !hello.ok() ? options->backend
             : absl::StartsWith(hello->version, hello->name)
                 ? hello->version
                 : absl::StrCat(hello->name, " ", hello->version);
  }
  const ReproDecision decision =
      Decide(match, args->mode, args->known_failure, args->any_failure, judged);
  std::printf("match:     %s%s%s\n", std::string(ReproMatchName(match)).c_str(),
              note.empty() ? "" : ": ", note.c_str());
  std::printf("result:    %s (exit %d)\n", decision.headline.c_str(), decision.exit_code);
  if (!decision.advice.empty()) std::printf("next:      %s\n", decision.advice.c_str());
  std::fflush(stdout);
  return decision.exit_code;
}

}  // namespace rk::repro
