// `reprokit triage BUNDLE|GRAPH [flags]`: re-judges a (minimized) repro
// across the target's own knobs and other routes and prints the evidence
// table (probe -> verdict) and the class of the failure (repro/triage/
// triage.h). Exit: 0 not a bug of the target (does not reproduce, precision,
// semantics difference, harness fault), 1 a real failure (optimizer bug,
// kernel bug, provider-specific), 2 bad input, 125 cannot judge.
// Tested by tools/triage_cli_test.sh.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bundle/bundle.h"
#include "repro/oracle/oracle.h"
#include "repro/triage/triage.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/oracle_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "triage";

int RunTriageCommand(absl::Span<const std::string> args) {
  OracleFlags oracle_flags;
  int64_t seed = 0;
  bool json = false;
  FlagSet flags(
      "triage BUNDLE|GRAPH [flags]",
      "Re-judges a repro across its target's own knobs (ONNX Runtime: every\n"
      "graph_optimization_level and device; Inductor: aot_eager, fallback_random,\n"
      "cpp.simdlen, triton.cudagraphs where declared; the built-in compiler:\n"
      "opt_level 0-2 and devices) and, for an external target, the built-in\n"
      "compiler; every verdict is against the fp64 reference and the reference in\n"
      "the graph's own dtypes. Prints the table probe -> verdict and the class:\n"
      "optimizer bug, kernel bug, provider-specific, precision, semantics\n"
      "difference, harness fault, does not reproduce (docs/BACKENDS.md, \"Triage\").\n"
      "Exit: 1 a real failure of the target (optimizer bug, kernel bug,\n"
      "provider-specific), 0 none (the other classes), 125 cannot judge, 2 bad input.");
  oracle_flags.Register(flags, /*takes_bundle=*/true);
  flags.Int("seed", &seed, "seed for a graph's random inputs");
  flags.Bool("json", &json, "print the triage as JSON");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "BUNDLE", &exit_code);
  if (!arg.has_value()) return exit_code;

  std::optional<repro::LoadedBundle> bundle;
  if (repro::IsBundleDir(*arg)) {
    absl::StatusOr<repro::LoadedBundle> loaded = repro::LoadBundle(*arg);
    if (!loaded.ok()) return ReportError(kName, loaded.status());
    bundle = *std::move(loaded);
    oracle_flags.DefaultToRecorded(flags, bundle->bundle.policy, bundle->bundle.tol);
    if (!flags.WasSet("timeout") && bundle->bundle.timeout_seconds > 0) {
      oracle_flags.timeout = bundle->bundle.timeout_seconds;
    }
  }
  compiler::CompileOptions options = bundle ? bundle->bundle.options : compiler::CompileOptions();
  if (absl::Status s = oracle_flags.ApplyTo(flags, &options); !s.ok()) return ReportError(kName, s);

  // The oracle's worker pool is forked before anything else runs.
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle =
      repro::Oracle::Create(oracle_flags.OracleConfig());
  if (!oracle.ok()) return ReportError(kName, oracle.status());

  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;
  if (bundle) {
    graph = bundle->bundle.graph;
    inputs = bundle->inputs;
    for (const std::string& w : bundle->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  } else {
    absl::StatusOr<GraphSource> parsed = LoadGraphSource(*arg);
    if (!parsed.ok()) return ReportError(kName, parsed.status());
    graph = std::move(parsed->graph);
    inputs = compiler::SeededInputs(graph, static_cast<uint64_t>(seed));
  }

  std::optional<repro::BackendHello> hello;
  std::string target = "builtin (reprokit's compiler)";
  if (options.external()) {
    absl::StatusOr<repro::BackendHello> h = (*oracle)->Backend(options.backend);
    if (!h.ok()) {
      std::fprintf(stderr, "reprokit triage: cannot start the target: %s\n",
                   std::string(h.status().message()).c_str());
      return kExitCannotTest;
    }
    hello = *h;
    // Versions may already name the backend ("onnxruntime 1.30.0 (node)").
    target = absl::StartsWith(hello->version, hello->name) ? hello->version
                                                           : hello->name + " " + hello->version;
  }
  const std::vector<repro::TriageProbe> probes =
      repro::PlanProbes(options, hello ? &*hello : nullptr);
  // Bad input in the recorded configuration (an option the target does not
  // take) is a usage error, not a row.
  absl::Status recorded_invalid;
  repro::Triage triage = repro::RunTriage(
      graph, probes, [&](const compiler::CompileOptions& o) {
        absl::StatusOr<repro::Verdict> v = (*oracle)->Judge(graph, inputs, o);
        if (!v.ok() && o == options && absl::IsInvalidArgument(v.status())) {
          recorded_invalid = v.status();
        }
        return v;
      });
  if (!recorded_invalid.ok()) return ReportError(kName, recorded_invalid);
  triage.target = target;
  if (json) {
    std::printf("%s\n", repro::TriageToJson(triage).DumpPretty().c_str());
  } else {
    std::printf("%s", repro::FormatTriage(triage).c_str());
  }
  if (triage.cls == repro::TriageClass::kCannotJudge) return kExitCannotTest;
  return repro::IsRealFailure(triage.cls) ? kExitReproduces : kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("triage", "classify a repro: optimizer bug, kernel bug, precision, ...",
                    &RunTriageCommand);

}  // namespace rk::tools
