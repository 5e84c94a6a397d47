// `reprokit check GRAPH|BUNDLE [flags]`: compile, run and judge against the
// fp64 reference; prints a verdict table per output. For a bundle, its
// options, inputs, policy and tolerance are used (flags override them) and the
// verdict is compared with the bundle's expected signature. With `--repeat N`
// the graph is then compiled in this process and its steady-state run time
// measured (tools/steady_state.h).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bundle/bundle.h"
#include "repro/oracle/memory_budget.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/verdict_json.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/oracle_flags.h"
#include "tools/steady_state.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "check";

void PrintVerdict(const repro::Verdict& v) {
  std::string kind(repro::VerdictKindName(v.kind));
  if (!v.accuracy_subkind.empty()) kind += " (" + v.accuracy_subkind + ")";
  std::printf("verdict:   %s\n", kind.c_str());
  if (repro::IsFailure(v.kind)) std::printf("signature: %s\n", v.signature.ToString().c_str());
  std::printf("message:   %s\n", v.message.c_str());
  if (!v.outputs.empty() && v.kind != repro::VerdictKind::kNondeterministic) {
    std::printf("\n  %-3s %-12s %-12s %-5s %-12s %10s %10s %10s %9s %10s\n", "out", "node", "op",
                "dtype", "judgement", "max_abs", "rmse_res", "rmse_ref", "ratio", "mismatch");
    for (const repro::OutputVerdict& o : v.outputs) {
      const repro::OutputMetrics& m = o.metrics;
      std::printf("  %-3d %-12s %-12s %-5s %-12s %10.3g %10.3g %10.3g %9.3g %10lld\n", o.index,
                  repro::OutputLabel(o).c_str(), o.op.c_str(), o.dtype.c_str(),
                  std::string(repro::JudgementName(m.judgement)).c_str(), m.max_abs_error,
                  m.rmse_result, m.rmse_reference, m.rmse_ratio,
                  static_cast<long long>(m.mismatches));
    }
  }
  for (const std::string& w : v.warnings) std::printf("warning:   %s\n", w.c_str());
  if (v.kind == repro::VerdictKind::kCrash && !v.backtrace.empty()) {
    std::printf("backtrace (innermost first):\n");
    for (size_t i = 0; i < v.backtrace.size() && i < 12; ++i) {
      std::printf("  %s\n", v.backtrace[i].c_str());
    }
  }
  std::printf("\ncompile %.1f ms, run %.1f ms, reference %.1f ms\n", v.compile_seconds * 1e3,
              v.run_seconds * 1e3, v.reference_seconds * 1e3);
}

// Verdicts after which the compiled program is not timed: there is none, or
// running it again here could take this process down.
bool CanTime(repro::VerdictKind kind) {
  return kind != repro::VerdictKind::kCompileError && kind != repro::VerdictKind::kCrash &&
         kind != repro::VerdictKind::kTimeout;
}

int ExitCodeFor(repro::VerdictKind kind) {
  if (kind == repro::VerdictKind::kPass) return kExitOk;
  if (kind == repro::VerdictKind::kCannotJudge) return kExitCannotTest;
  return kExitReproduces;
}

int RunCheck(absl::Span<const std::string> args) {
  OracleFlags oracle_flags;
  int64_t seed = 0;
  bool json = false;
  std::string precision_check;
  FlagSet flags(
      "check GRAPH|MODEL.onnx|BUNDLE [flags]",
      "Compiles GRAPH (on seeded inputs) or a repro BUNDLE (its inputs and options)\n"
      "and judges every output against the reference interpreter and its fp64 run.\n"
      "Runs in an isolated worker, so a crash or hang of the compiler is a verdict.\n"
      "Exit: 0 pass, 1 failure reproduced, 125 cannot judge, 2 bad input.");
  oracle_flags.Register(flags, /*takes_bundle=*/true);
  flags.Int("seed", &seed, "seed for the random inputs");
  GraphSourceFlags source_flags;
  source_flags.Register(flags);
  flags.Bool("json", &json, "print the verdict as JSON");
  int64_t repeat = 0;
  int64_t warmup = 3;
  flags.Int("repeat", &repeat,
            "after judging, compile here and time N runs of the compiled program (steady "
            "state: min/median/mean ms; on cuda GPU time, inputs on the device)");
  flags.Int("warmup", &warmup, "untimed runs before the --repeat runs");
  flags.String("precision-check", &precision_check,
               "now | deferred: run an accuracy failure's miscompile/precision check (the graph "
               "recompiled in fp64) or not (default: now, except for a bundle captured with the "
               "check deferred, which is judged as it was captured)");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "GRAPH", &exit_code);
  if (!arg.has_value()) return exit_code;
  const std::string& path = *arg;
  if (flags.WasSet("warmup") && !flags.WasSet("repeat")) {
    return ReportError(kName, absl::InvalidArgumentError("--warmup needs --repeat N"));
  }
  if (flags.WasSet("repeat")) {
    if (absl::Status s = ValidateRepeat(repeat, warmup); !s.ok()) return ReportError(kName, s);
  }
  std::optional<repro::LoadedBundle> bundle;
  if (repro::IsBundleDir(path)) {
    absl::StatusOr<repro::LoadedBundle> loaded = repro::LoadBundle(path);
    if (!loaded.ok()) return ReportError(kName, loaded.status());
    bundle = *std::move(loaded);
    oracle_flags.DefaultToRecorded(flags, bundle->bundle.policy, bundle->bundle.tol);
    if (!flags.WasSet("timeout") && bundle->bundle.timeout_seconds > 0) {
      oracle_flags.timeout = bundle->bundle.timeout_seconds;
    }
  }
  const bool deferred_bundle = bundle && bundle->bundle.precision_check_deferred;
  if (precision_check.empty()) precision_check = deferred_bundle ? "deferred" : "now";
  if (precision_check != "now" && precision_check != "deferred") {
    return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                  "--precision-check: expected now or deferred, got '",
                                  precision_check, "'")));
  }
  compiler::CompileOptions options = bundle ? bundle->bundle.options : compiler::CompileOptions();
  if (absl::Status s = oracle_flags.ApplyTo(flags, &options); !s.ok()) return ReportError(kName, s);

  if (repeat > 0 && options.external()) {
    return ReportError(kName, absl::InvalidArgumentError(
                                  "--repeat times the built-in compiler, not backend '" +
                                  options.backend + "'"));
  }

  // The oracle's worker pool is forked before anything else runs.
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle =
      repro::Oracle::Create(oracle_flags.OracleConfig());
  if (!oracle.ok()) return ReportError(kName, oracle.status());

  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;
  if (bundle) {
    graph = bundle->bundle.graph;
    inputs = bundle->inputs;
  } else {
    absl::StatusOr<GraphSource> parsed = LoadGraphSource(path, source_flags);
    if (!parsed.ok()) return ReportError(kName, parsed.status());
    graph = std::move(parsed->graph);
    // Budgeted before the inputs are allocated, here in the parent.
    if (absl::Status s = repro::CheckMemoryBudget(graph, repro::MemoryUse::kJudge,
                                                  (*oracle)->config().limits.memory_bytes);
        !s.ok()) {
      return ReportError(kName, s);
    }
    inputs = compiler::SeededInputs(graph, seed);
  }
  absl::StatusOr<compiler::Graph> marked = oracle_flags.ApplyGrad(flags, graph);
  if (!marked.ok()) return ReportError(kName, marked.status());
  graph = *std::move(marked);
  repro::OracleOptions judging = (*oracle)->config().options;
  judging.classify_accuracy = precision_check == "now";
  absl::StatusOr<repro::Verdict> verdict = (*oracle)->Judge(graph, inputs, options, judging);
  if (!verdict.ok()) return ReportError(kName, verdict.status());
  if (bundle) {
    for (const std::string& w : bundle->warnings) verdict->warnings.push_back(w);
  }
  // Timed after the judgement: the worker's compile is the one judged, this
  // process's the one timed.
  std::optional<absl::StatusOr<SteadyState>> steady;
  if (repeat > 0) {
    steady = CanTime(verdict->kind)
                 ? MeasureSteadyState(graph, inputs, options, warmup, repeat)
                 : absl::FailedPreconditionError(absl::StrCat(
                       "not timed: the verdict is ",
                       std::string(repro::VerdictKindName(verdict->kind))));
  }
  if (json) {
    Json doc = repro::VerdictToJson(*verdict);
    if (steady.has_value()) doc.Set("steady_state", SteadyStateToJson(*steady));
    std::printf("%s\n", doc.DumpPretty().c_str());
  } else {
    if (options.external()) {
      absl::StatusOr<repro::BackendHello> hello = (*oracle)->Backend(options.backend);
      if (hello.ok()) std::printf("backend:   %s (%s)\n", hello->name.c_str(), hello->version.c_str());
    }
    PrintVerdict(*verdict);
    if (bundle && repro::IsFailure(bundle->bundle.expected.kind)) {
      const bool same = repro::MatchesExpected(bundle->bundle, verdict->signature);
      std::printf("expected:  %s (%s)\n", bundle->bundle.expected.signature.ToString().c_str(),
                  same ? "reproduced" : "NOT reproduced");
      if (deferred_bundle) {
        std::printf("note:      the bundle's miscompile/precision check was deferred at capture "
                    "(%s)\n", precision_check == "now" ? "run now" : "--precision-check now "
                    "runs it; `reprokit minify` runs it on its result");
      }
    }
  }
  if (steady.has_value()) {
    if (!json && steady->ok()) std::printf("\n%s", FormatSteadyState(**steady).c_str());
    if (!steady->ok()) {
      std::fprintf(stderr, "reprokit: %s: --repeat: %s\n", kName,
                   std::string(steady->status().message()).c_str());
      // A pass whose timing failed is not a pass.
      if (verdict->kind == repro::VerdictKind::kPass) return ExitCodeForStatus(steady->status());
    }
  }
  return ExitCodeFor(verdict->kind);
}

}  // namespace

REPROKIT_SUBCOMMAND("check", "compile, run and judge against the fp64 reference", &RunCheck);

}  // namespace rk::tools
