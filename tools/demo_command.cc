// `reprokit demo`: the whole flow on one example, end to end. Compiles a
// transformer block with a planted fault, detects the accuracy failure against
// fp64, captures a bundle, minimizes it (`reprokit minify` as a subprocess, its
// progress shown), emits a Bazel repro target into an isolated workspace under
// --out, runs `bazel test` there (the test FAILS while the bug is present: the
// expected outcome), reruns it with the fault switched off (PASSES), and prints
// where to look next.
//
// The demo workspace links the prebuilt runner that was built with this
// binary (//repro/emit:libreprokit_runner.so, shipped in its runfiles), so the
// demo does not compile the compiler a second time; --from-source builds the
// runner from reprokit's sources instead, as a user's workspace does by default.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/bundle/environment.h"
#include "repro/emit/bazel_test_run.h"
#include "repro/emit/emit.h"
#include "repro/emit/verdict_table.h"
#include "repro/emit/workspace.h"
#include "repro/oracle/oracle.h"
#include "tools/cpp/runfiles/runfiles.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

namespace fs = std::filesystem;
constexpr char kName[] = "demo";
constexpr char kMarker[] = ".reprokit-demo";
constexpr int kSteps = 6;

struct DemoConfig {
  std::string fault = "fuse:wrong_index";
  std::string example = "attention";
  std::string out = "reprokit-demo";
  std::string reprokit_root;
  int64_t jobs = 2;
  bool keep = false;
  bool from_source = false;
  bool skip_bazel = false;
};

// Prints a step header now and its duration when destroyed.
class Step {
 public:
  Step(int number, const std::string& title) : start_(absl::Now()) {
    std::printf("\n[%d/%d] %s\n", number, kSteps, title.c_str());
    std::fflush(stdout);
  }
  ~Step() {
    std::printf("      (%.1f s)\n", absl::ToDoubleSeconds(absl::Now() - start_));
    std::fflush(stdout);
  }

 private:
  absl::Time start_;
};

std::string Indent(const std::string& text, const std::string& prefix) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!line.empty()) absl::StrAppend(&out, prefix, std::string(line), "\n");
  }
  return out;
}

std::string SelfPath() {
  std::error_code ec;
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  return ec ? "reprokit" : exe.string();
}

// The runner built alongside this binary, from its runfiles.
std::string FindPrebuiltRunner() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::Create(SelfPath(), &error));
  if (runfiles == nullptr) return "";
  const std::string path = runfiles->Rlocation("reprokit/repro/emit/libreprokit_runner.so");
  std::error_code ec;
  return !path.empty() && fs::exists(path, ec) ? path : "";
}

// Empties a previous demo's --out (never a directory the demo did not make).
absl::Status PrepareOut(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_empty(out, ec)) {
    if (!fs::exists(out / kMarker, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(
          out.string(), ": exists and was not made by reprokit demo; pick another --out"));
    }
    for (const char* entry : {"bug", "bug.min", "logs"}) fs::remove_all(out / entry, ec);
    // The workspace's repro packages go; its Bazel output base (and server)
    // stay, so a second demo is quicker.
    fs::remove_all(out / "workspace" / "repros", ec);
  }
  fs::create_directories(out / "logs", ec);
  if (ec) return absl::InternalError(absl::StrCat(out.string(), ": ", ec.message()));
  std::ofstream(out / kMarker) << "made by `reprokit demo`; a rerun empties this folder\n";
  return absl::OkStatus();
}

int Fail(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "reprokit: %s: %s: %s\n", kName, what.c_str(),
               std::string(status.message()).c_str());
  return 1;
}

// Step 1: baseline and faulty judgement. Returns the faulty verdict.
absl::StatusOr<repro::Verdict> Detect(repro::Oracle& oracle, const compiler::Graph& graph,
                                      const std::vector<compiler::HostTensor>& inputs,
                                      const compiler::CompileOptions& faulty) {
  compiler::CompileOptions clean = faulty;
  clean.faults.clear();
  absl::StatusOr<repro::Verdict> baseline = oracle.Judge(graph, inputs, clean);
  if (!baseline.ok()) return baseline.status();
  std::printf("      without the fault: %s\n",
              std::string(repro::VerdictKindName(baseline->kind)).c_str());
  absl::StatusOr<repro::Verdict> verdict = oracle.Judge(graph, inputs, faulty);
  if (!verdict.ok()) return verdict.status();
  std::printf("      with faults=%s:\n\n%s", absl::StrJoin(faulty.faults, ",").c_str(),
              repro::FormatVerdictTable(*verdict, "        ").c_str());
  if (!repro::IsFailure(verdict->kind)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the fault did not make @", graph.name(), " fail; try another --fault (docs/FAULTS.md)"));
  }
  return verdict;
}

// The test status lines of a Bazel run, indented under a step.
std::string StatusLines(const repro::BazelTestRun& run) {
  std::string out;
  for (const std::string& line : repro::TestStatusLines(run.output)) {
    absl::StrAppend(&out, "        ", line, "\n");
  }
  return out;
}

// `bazel test` that could not start reads as Bazel's exit code -1.
repro::BazelTestRun TestRun(const repro::BazelTestRequest& request) {
  absl::StatusOr<repro::BazelTestRun> run = repro::RunBazelTest(request);
  if (run.ok()) return *std::move(run);
  repro::BazelTestRun failed;
  failed.output = std::string(run.status().message());
  return failed;
}

// Step 5: bazel test with the bug, then with the fault off. True when both
// came out as intended (fail, then pass).
bool BazelTests(const DemoConfig& config, const repro::EmitResult& emitted, const fs::path& out) {
  const std::string ws = emitted.workspace.root;
  const std::string log = (out / "logs" / "bazel-test.log").string();
  std::printf("      $ cd %s && bazel test %s\n", ws.c_str(), emitted.test_label.c_str());
  std::printf("      (first run: Bazel starts and %s; output in %s)\n",
              config.from_source ? "compiles reprokit from source, minutes"
                                 : "links the runner, about half a minute",
              log.c_str());
  repro::BazelTestRequest request;
  request.workspace = ws;
  request.label = emitted.test_label;
  request.log_file = log;
  const repro::BazelTestRun with_bug = TestRun(request);
  const int code = with_bug.exit_code;
  const std::string& text = with_bug.output;
  if (code != repro::kBazelTestsFailed && code != repro::kBazelTestsPassed) {
    std::printf("      bazel test exited %d (a build problem?); last lines:\n%s", code,
                Indent(text.size() > 3000 ? text.substr(text.size() - 3000) : text, "        ")
                    .c_str());
    return false;
  }
  std::printf("%s", StatusLines(with_bug).c_str());
  std::string test_log = with_bug.test_log;
  // Drop Bazel's preamble ("exec ${PAGER...", "Executing tests from ...").
  if (size_t begin = test_log.find("== reprokit repro"); begin != std::string::npos) {
    test_log = test_log.substr(begin);
  }
  std::printf("      the repro's own output (%s):\n%s", with_bug.test_log_path.c_str(),
              Indent(test_log, "        | ").c_str());
  const bool failed_as_expected = code == repro::kBazelTestsFailed;
  std::printf("      => %s\n", failed_as_expected
                                   ? "FAILED, as expected: the test fails while the bug is present"
                                   : "unexpected: the test passed although the fault is on");

  std::printf("\n      the fix, simulated: the same test with the fault switched off\n");
  std::printf("      $ bazel test --test_env=REPROKIT_OPTIONS=faults= %s\n",
              emitted.test_label.c_str());
  request.extra_args = {"--test_env=REPROKIT_OPTIONS=faults="};
  const repro::BazelTestRun fixed = TestRun(request);
  std::printf("%s", StatusLines(fixed).c_str());
  std::printf("      => %s\n", fixed.exit_code == repro::kBazelTestsPassed
                                   ? "PASSED: once the bug is gone the repro passes"
                                   : "unexpected: still failing with the fault off");
  // A demo workspace's Bazel server would linger for hours; not stopping it
  // changes nothing the demo reports.
  if (!config.keep) repro::ShutdownBazel(ws, log).IgnoreError();
  return failed_as_expected && fixed.exit_code == repro::kBazelTestsPassed;
}

void PrintWhatNext(const fs::path& out, const repro::EmitResult* emitted) {
  const std::string min = (out / "bug.min").string();
  std::printf("      minimized graph (%s/graph.rk):\n%s", min.c_str(),
              Indent(ReadFileToString((out / "bug.min" / "graph.rk").string()).value_or(""), "        ").c_str());
  std::printf("      bundles:   %s/bug (captured), %s (minimized; README.md, repro.json)\n",
              out.string().c_str(), min.c_str());
  std::printf("      rerun:     reprokit run %s\n", min.c_str());
  if (emitted != nullptr) {
    const std::string cd = absl::StrCat("cd ", emitted->workspace.root, " && ");
    std::printf("                 %sbazel test %s\n", cd.c_str(), emitted->test_label.c_str());
    std::printf("      bisect:    %sbazel run %s   # exit 0 good, 1 bad, 125 skip\n", cd.c_str(),
                emitted->bisect_label.c_str());
    std::printf("                 reprokit bisect %s   # first bad pass application\n",
                min.c_str());
  }
  std::printf("      pack:      reprokit pack %s -o %s.tar.zst   # attach to a bug report\n",
              min.c_str(), min.c_str());
  std::printf("      workflows: docs/WORKFLOWS.md\n");
}

int RunDemo(absl::Span<const std::string> args) {
  DemoConfig config;
  FlagSet flags(
      "demo [--fault F] [--example NAME] [--out DIR] [--keep] [-j N]",
      "The end-to-end demo: compiles examples/<NAME>.rk with a planted fault, detects\n"
      "the accuracy failure against fp64, captures a bundle, minimizes it, emits a\n"
      "Bazel repro target into an isolated workspace under --out and runs `bazel test`\n"
      "there (it fails while the bug is present, as intended, and passes with the\n"
      "fault off). A rerun empties a previous demo's --out. Exit 0 when every step\n"
      "behaved as intended.");
  flags.String("fault", &config.fault, "planted fault (docs/FAULTS.md)");
  flags.String("example", &config.example, "examples/<NAME>.rk, or a path to a graph");
  flags.String("out", &config.out, "where the demo writes its bundles and workspace", 'o');
  flags.Bool("keep", &config.keep, "keep the demo workspace's Bazel server running afterwards");
  flags.Int("jobs", &config.jobs, "parallel minimizer candidates", 'j');
  flags.String("reprokit", &config.reprokit_root, "reprokit's source directory (default: found)");
  flags.Bool("from-source", &config.from_source,
             "build the runner from reprokit's sources in the demo workspace (slow)");
  flags.Bool("no-bazel", &config.skip_bazel, "stop after emitting (no `bazel test`)");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kName, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (!positional->empty()) {
    return ReportError(kName, absl::InvalidArgumentError("takes no positional arguments"));
  }
  if (absl::Status s = CheckOutputPath("-o", config.out, OutputKind::kDirectory); !s.ok()) {
    return ReportError(kName, s);
  }
  const absl::Time start = absl::Now();
  if (config.reprokit_root.empty()) {
    absl::StatusOr<std::string> root = repro::FindReprokitRoot();
    if (!root.ok()) return ReportError(kName, root.status());
    config.reprokit_root = *root;
  }
  const std::string example =
      absl::StrContains(config.example, "/") || absl::EndsWith(config.example, ".rk")
          ? config.example
          : absl::StrCat(config.reprokit_root, "/examples/", config.example, ".rk");
  compiler::CompileOptions options;
  if (absl::Status s = options.Set("faults", config.fault); !s.ok()) return ReportError(kName, s);
  std::error_code ec;
  const fs::path out = fs::absolute(config.out, ec).lexically_normal();
  if (absl::Status s = PrepareOut(out); !s.ok()) return ReportError(kName, s);

  // The oracle's worker pool is forked before anything else runs.
  repro::Oracle::Config oracle_config;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(oracle_config);
  if (!oracle.ok()) return ReportError(kName, oracle.status());
  absl::StatusOr<compiler::Graph> graph = compiler::ParseFile(example);
  if (!graph.ok()) return ReportError(kName, graph.status());
  const std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*graph, 0);
  std::printf("reprokit demo: @%s (%s, %d nodes) with the planted fault %s -> %s\n",
              graph->name().c_str(), example.c_str(), graph->num_nodes(), config.fault.c_str(),
              out.string().c_str());

  absl::StatusOr<repro::Verdict> verdict;
  {
    Step step(1, "detect: compile, run, judge against the fp64 reference (isolated worker)");
    verdict = Detect(**oracle, *graph, inputs, options);
  }
  if (!verdict.ok()) return Fail("detect", verdict.status());
  const fs::path bug = out / "bug", min = out / "bug.min";
  {
    Step step(2, absl::StrCat("capture: bundle -> ", bug.string()));
    repro::CaptureOptions capture;
    capture.seed = 0;
    capture.captured_by = "reprokit demo";
    if (absl::Status s = repro::Capture(*graph, inputs, options, *verdict, bug.string(), capture);
        !s.ok()) {
      return Fail("capture", s);
    }
    std::printf("      graph.rk, repro.json (expects %s), inputs as seeded recipes\n",
                verdict->signature.ToString().c_str());
  }
  {
    Step step(3, absl::StrCat("minify: reprokit minify ", bug.string(), " -o ", min.string(),
                              " -j ", config.jobs));
    // Its progress goes straight to this terminal.
    SubprocessOptions passthrough;
    passthrough.capture = false;
    absl::StatusOr<SubprocessResult> run = RunSubprocess(
        {SelfPath(), "minify", bug.string(), "-o", min.string(), "-j", absl::StrCat(config.jobs)},
        passthrough);
    const int code = !run.ok() ? -1 : run->signal != 0 ? 128 + run->signal : run->exit_code;
    if (code != 0) {
      return Fail("minify", absl::InternalError(absl::StrCat("reprokit minify exited ", code)));
    }
  }
  absl::StatusOr<repro::EmitResult> emitted;
  {
    Step step(4, "emit: a Bazel repro target in an isolated workspace");
    repro::EmitRequest request;
    request.bundle_dir = min.string();
    request.workspace_dir = (out / "workspace").string();
    request.package = absl::StrCat(
        "repros/", absl::StrReplaceAll(config.fault, {{":", "_"}, {",", "_"}, {"-", "_"}}));
    request.create_workspace = true;
    request.reprokit_root = config.reprokit_root;
    if (!config.from_source) {
      request.prebuilt_runner = FindPrebuiltRunner();
      if (request.prebuilt_runner.empty()) {
        std::printf("      no prebuilt runner beside this binary: building from source\n");
        config.from_source = true;
      }
    }
    emitted = repro::EmitRepro(request);
    if (emitted.ok()) {
      std::printf("      %s (workspace %s, reprokit as @%s)\n", emitted->test_label.c_str(),
                  emitted->workspace.root.c_str(), emitted->workspace.reprokit_repo.c_str());
      std::printf("%s", Indent(ReadFileToString(emitted->package_dir + "/BUILD.bazel").value_or(""),
                               "        ").c_str());
    }
  }
  if (!emitted.ok()) return Fail("emit", emitted.status());
  bool as_intended = true;
  if (config.skip_bazel) {
    std::printf("\n[5/%d] bazel test: skipped (--no-bazel)\n", kSteps);
  } else {
    Step step(5, "bazel test: the emitted repro, with the bug and with the fault off");
    as_intended = BazelTests(config, *emitted, out);
  }
  {
    Step step(6, "what to look at");
    PrintWhatNext(out, &*emitted);
  }
  std::printf("\ndemo %s in %.1f s\n",
              as_intended ? "finished as intended" : "finished, but not as intended (see above)",
              absl::ToDoubleSeconds(absl::Now() - start));
  return as_intended ? kExitOk : kExitReproduces;
}

}  // namespace

REPROKIT_SUBCOMMAND("demo",
                    "end-to-end demo: detect, capture, minify, emit, bazel test a planted bug",
                    &RunDemo);

}  // namespace rk::tools
