// `reprokit minify BUNDLE -o OUT`: shrinks a failing bundle to a small one that
// fails with the same signature (minifier/minify_bundle.h, docs/MINIFIER.md).
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <cstdio>

#include "minifier/minify_bundle.h"
#include "minifier/progress.h"
#include "repro/backend/locate.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void StopOnSignal(int) { g_stop.store(true); }

void PrintResult(const minifier::MinifyBundleResult& result, const std::string& out,
                 bool json) {
  if (json) {
    Json report = result.stats.ToJson();
    report.Set("signature", result.signature);
    report.Set("original_hash", result.original_hash);
    report.Set("minimized_hash", result.minimized_hash);
    report.Set("output", out);
    report.Set("resumed", result.resumed);
    report.Set("complete", result.complete);
    report.Set("classified_at_end", result.classified);
    report.Set("precision_check_resolved", result.precision_check_resolved);
    if (!result.classification_drift.empty()) {
      report.Set("classification_drift", result.classification_drift);
    }
    if (!result.drift_rerun.empty()) report.Set("drift_rerun", result.drift_rerun);
    std::printf("%s\n", report.DumpPretty().c_str());
    return;
  }
  std::printf("minified: %s\n", result.stats.Summary().c_str());
  std::printf("signature: %s (reproduced %d/%d)%s\n", result.signature.c_str(),
              result.stats.reproduce_runs, result.stats.reproduce_attempts,
              result.stats.flaky ? "  WARNING: flaky, did not reproduce every time" : "");
  if (!result.classification_drift.empty()) {
    std::printf("WARNING: %s\n", result.classification_drift.c_str());
  }
  if (!result.drift_rerun.empty()) std::printf("note: %s\n", result.drift_rerun.c_str());
  if (!result.complete) {
    std::printf("stopped early (%s): best so far written; rerun with --resume to continue\n",
                result.stats.interrupted ? "interrupted" : "time limit");
  }
  std::printf("wrote %s (from %s)\n", out.c_str(), result.original_hash.c_str());
  std::printf("report: reprokit report %s -o %s/report.html\n", out.c_str(), out.c_str());
}

int RunMinify(absl::Span<const std::string> args) {
  minifier::MinifyBundleOptions options;
  int64_t jobs = 1;
  bool json = false;
  std::string backend;
  FlagSet flags("minify BUNDLE -o OUT [-j N] [--resume] [--time-limit SECONDS] [--test SCRIPT] "
                "[--json]",
                "Shrinks a failing bundle to a small one that fails with the same signature,\n"
                "checkpointing the best bundle so far to OUT after every step (Ctrl-C stops\n"
                "cleanly; --resume continues). The bundle's backend judges (docs/BACKENDS.md);\n"
                "with --test, a program decides instead: it gets each candidate as a bundle\n"
                "directory and exits 0 while the candidate is still interesting (as for\n"
                "llvm-reduce or C-Vise). Exit 0 when done, 1 when BUNDLE does not reproduce\n"
                "its expected failure (or the test rejects it), 2 on bad input.");
  flags.String("out", &options.output_dir, "output bundle directory (required)", 'o');
  flags.Int("jobs", &jobs, "candidates judged in parallel", 'j');
  flags.Bool("resume", &options.resume, "continue from the checkpoint in OUT");
  flags.Double("time-limit", &options.time_limit_seconds, "stop after this many seconds");
  flags.Double("timeout", &options.timeout_seconds,
               "seconds per judgement before a candidate counts as a hang (default: the "
               "bundle's captured --timeout, else 60)");
  flags.Bool("json", &json, "print the statistics as JSON");
  flags.String("test", &options.test_script,
               "interestingness program: run as SCRIPT CANDIDATE_DIR, exit 0 = still interesting");
  flags.Double("test-timeout", &options.test_timeout_seconds,
               "seconds a --test run may take before it counts as not interesting (0: no limit)");
  flags.String("backend", &backend,
               "judge with this backend instead of the bundle's: builtin, reprokit, a NAME or "
               "a PATH");
  flags.Bool("classify-each", &options.classify_each,
             "external backends: recompile every failing candidate in fp64 to check the "
             "miscompile/precision subkind (default: assume it, check the result once)");
  flags.Bool("partitions", &options.partitions,
             "start from partitions of the graph (8 windows of consecutive nodes, judged side "
             "by side with -j; the schedule of external backends) instead of binary searches "
             "over cut points");
  auto positional = flags.Parse(args);
  if (!positional.ok()) return ReportError("minify", positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1 || options.output_dir.empty() || jobs < 1) {
    return ReportError("minify", absl::InvalidArgumentError(
                                     "expected one BUNDLE, -o OUT and -j >= 1 (see --help)"));
  }
  if (flags.WasSet("timeout") &&
      (!std::isfinite(options.timeout_seconds) || options.timeout_seconds <= 0)) {
    return ReportError("minify", absl::InvalidArgumentError(
                                     "--timeout: expected a finite number of seconds > 0"));
  }
  options.input_dir = (*positional)[0];
  // A bad -o is bad input, found before any judging (not "does not reproduce").
  if (absl::Status s = CheckOutputPath("-o", options.output_dir, OutputKind::kDirectory);
      !s.ok()) {
    return ReportError("minify", s);
  }
  {
    // Minifying into the input would replace the bundle being minified.
    std::error_code ec;
    const auto in = std::filesystem::weakly_canonical(options.input_dir, ec);
    const auto out = std::filesystem::weakly_canonical(options.output_dir, ec);
    if (!ec && in == out) {
      return ReportError("minify", absl::InvalidArgumentError(absl::StrCat(
                                       "-o ", options.output_dir, " is the input bundle; minify writes a "
                                       "new bundle and keeps the original: choose another -o")));
    }
  }
  options.jobs = static_cast<int>(jobs);
  if (!backend.empty()) options.backend = repro::CanonicalBackendSpec(backend);
  if (!options.test_script.empty() && options.test_script.find('/') == std::string::npos &&
      std::filesystem::exists(options.test_script)) {
    options.test_script = "./" + options.test_script;  // a file here, not a program on PATH
  }
  options.stop = &g_stop;
  std::signal(SIGINT, StopOnSignal);
  std::signal(SIGTERM, StopOnSignal);
  minifier::ProgressPrinter printer(stderr, isatty(fileno(stderr)) == 1);
  options.on_progress = [&](const minifier::ProgressEvent& e) { printer.Update(e); };
  absl::StatusOr<minifier::MinifyBundleResult> result = minifier::MinifyBundle(options);
  printer.Finish();
  if (!result.ok()) {
    if (result.status().code() == absl::StatusCode::kFailedPrecondition) {
      std::fprintf(stderr, "reprokit: minify: %s: does not reproduce: %s\n",
                   options.input_dir.c_str(), std::string(result.status().message()).c_str());
      return kExitReproduces;
    }
    return ReportError("minify", result.status());
  }
  PrintResult(*result, options.output_dir, json);
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("minify", "shrink a failing bundle, keeping its failure signature",
                    &RunMinify);

}  // namespace rk::tools
