// `reprokit capture GRAPH -o BUNDLE`: compiles and runs GRAPH, judges it with
// the oracle and writes a repro bundle (docs/BUNDLE.md) with the verdict.
//
// With an external backend the judgement costs one compile of the whole graph:
// the miscompile/precision check (a second compile, in fp64) is deferred to the
// graph `minify` ends with (--precision-check), and `--pool N` starts the
// backend's warm pool, whose other processes start while this one compiles.
// Tested by tools/capture_deferred_test.sh and tools/backend_cli_test.sh.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bundle/capture.h"
#include "repro/bundle/environment.h"
#include "repro/oracle/memory_budget.h"
#include "repro/oracle/oracle.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/input_files.h"
#include "tools/oracle_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "capture";
constexpr double kPoolIdleSeconds = 900;

// Starts the backend's warm pool (`reprokit backend-pool start`), returning
// once its first process is warm on `device`; a pool already serving is used
// as it is. Its other processes start and warm up while capture judges.
absl::Status StartPool(const std::string& spec, int64_t processes, const std::string& device) {
  const char* pool_env = std::getenv("REPROKIT_BACKEND_POOL");
  if (pool_env != nullptr && std::string(pool_env) == "off") {
    return absl::InvalidArgumentError("--pool: REPROKIT_BACKEND_POOL=off makes commands ignore "
                                      "pools; unset it or drop --pool");
  }
  absl::StatusOr<SubprocessResult> started = RunSubprocess(
      {"/proc/self/exe", "backend-pool", "start", spec, "-j", std::to_string(processes),
       "--warm", device, "--ready", "first", "--idle", absl::StrCat(kPoolIdleSeconds)});
  if (!started.ok()) return started.status();
  if (!started->ok()) {
    std::string why = started->stderr_text;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::UnavailableError(absl::StrCat("--pool: backend-pool start ",
                                               started->Describe(), ": ", why));
  }
  std::fputs(started->stdout_text.c_str(), stderr);
  return absl::OkStatus();
}

int RunCapture(absl::Span<const std::string> args) {
  std::string out;
  std::vector<std::string> input_files;
  int64_t seed = -1;
  int64_t pool = 0;
  std::string precision_check;
  OracleFlags oracle_flags;
  FlagSet flags(
      "capture GRAPH|MODEL.onnx [--seed N | --inputs FILE...] [--opt key=value ...] -o BUNDLE",
      "Compiles GRAPH, runs it, judges it against the fp64 reference (isolated, so\n"
      "a crash or hang is a verdict) and writes a repro bundle: graph, inputs,\n"
      "options, expected verdict and signature, environment (docs/BUNDLE.md).\n"
      "Inputs are the seeded ones (--seed, default 0; recorded as recipes) or raw\n"
      "little-endian files, one per graph input in order (--inputs; stored).\n"
      "Exit: 0 bundle written (whatever the verdict), 2 bad input.");
  flags.String("out", &out, "bundle directory to write (required)", 'o');
  flags.Int("seed", &seed, "seed for the random inputs (default 0)");
  GraphSourceFlags source_flags;
  source_flags.Register(flags);
  flags.Repeated("inputs", &input_files,
                 "input file (.npy, ONNX .pb or raw; repeat once per graph input, in order)");
  oracle_flags.Register(flags, /*takes_bundle=*/false);
  flags.String("precision-check", &precision_check,
               "now | deferred: whether an accuracy failure's miscompile/precision check (the "
               "graph recompiled in fp64) runs now or is deferred to the graph `minify` ends "
               "with, recorded in the bundle (default: deferred with --backend, now with the "
               "built-in compiler)");
  flags.Int("pool", &pool,
            "N: with --backend, start the backend's warm pool of N processes (`backend-pool "
            "start -j N --warm DEVICE`; stops after 15 idle minutes) and judge on its first, "
            "so that `minify -j N` finds the others warm");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "GRAPH", &exit_code);
  if (!arg.has_value()) return exit_code;
  if (out.empty()) return ReportError(kName, absl::InvalidArgumentError("-o BUNDLE is required"));
  if (absl::Status s = CheckOutputPath("-o", out, OutputKind::kDirectory); !s.ok()) {
    return ReportError(kName, s);
  }
  if (seed >= 0 && !input_files.empty()) {
    return ReportError(kName, absl::InvalidArgumentError("--seed and --inputs exclude each other"));
  }
  compiler::CompileOptions options;
  if (absl::Status s = oracle_flags.ApplyTo(flags, &options); !s.ok()) return ReportError(kName, s);
  if (precision_check.empty()) precision_check = options.external() ? "deferred" : "now";
  if (precision_check != "now" && precision_check != "deferred") {
    return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                  "--precision-check: expected now or deferred, got '",
                                  precision_check, "'")));
  }
  if (flags.WasSet("pool") && (pool < 1 || pool > 256)) {
    return ReportError(kName, absl::InvalidArgumentError("--pool: expected 1 to 256 processes"));
  }
  if (pool > 0 && !options.external()) {
    return ReportError(kName, absl::InvalidArgumentError(
                                  "--pool needs an external backend (--backend)"));
  }

  // The oracle's worker pool is forked before anything else runs.
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle =
      repro::Oracle::Create(oracle_flags.OracleConfig());
  if (!oracle.ok()) return ReportError(kName, oracle.status());

  const std::string& path = *arg;
  absl::StatusOr<GraphSource> source = LoadGraphSource(path, source_flags);
  if (!source.ok()) return ReportError(kName, source.status());
  absl::StatusOr<compiler::Graph> marked = oracle_flags.ApplyGrad(flags, source->graph);
  if (!marked.ok()) return ReportError(kName, marked.status());
  source->graph = *std::move(marked);
  compiler::Graph* graph = &source->graph;
  repro::CaptureOptions capture;
  capture.source = source->source;
  if (absl::Status s = repro::CheckMemoryBudget(*graph, repro::MemoryUse::kJudge,
                                                (*oracle)->config().limits.memory_bytes);
      !s.ok()) {
    return ReportError(kName, s);
  }
  std::vector<compiler::HostTensor> inputs;
  if (input_files.empty()) {
    capture.seed = static_cast<uint64_t>(seed < 0 ? 0 : seed);
    inputs = compiler::SeededInputs(*graph, *capture.seed);
  } else {
    absl::StatusOr<std::vector<compiler::HostTensor>> read = ReadInputFiles(*graph, input_files);
    if (!read.ok()) return ReportError(kName, read.status());
    inputs = *std::move(read);
  }
  // After the oracle's fork: the pool is a daemon of its own.
  if (pool > 0) {
    if (absl::Status s = StartPool(options.backend, pool, options.device); !s.ok()) {
      return ReportError(kName, s);
    }
  }
  repro::OracleOptions judging = (*oracle)->config().options;
  judging.classify_accuracy = precision_check == "now";
  absl::StatusOr<repro::Verdict> verdict = (*oracle)->Judge(*graph, inputs, options, judging);
  if (!verdict.ok()) return ReportError(kName, verdict.status());

  std::vector<std::string> command = {"reprokit", kName};
  command.insert(command.end(), args.begin(), args.end());
  capture.command_line = repro::CommandLineText(command);
  if (options.external()) {
    absl::StatusOr<repro::BackendHello> hello = (*oracle)->Backend(options.backend);
    if (!hello.ok()) return ReportError(kName, hello.status());
    capture.backend = Json::MakeObject();
    capture.backend["spec"] = options.backend;
    capture.backend["name"] = hello->name;
    capture.backend["version"] = hello->version;
  }
  capture.precision_check_deferred = !judging.classify_accuracy;
  capture.policy = oracle_flags.policy;
  capture.tol = oracle_flags.tol;
  if (flags.WasSet("timeout")) capture.timeout_seconds = oracle_flags.timeout;
  if (absl::Status s = repro::Capture(*graph, inputs, options, *verdict, out, capture); !s.ok()) {
    return ReportError(kName, absl::Status(s.code(), absl::StrCat(out, ": ", s.message())));
  }
  std::printf("captured %s", std::string(repro::VerdictKindName(verdict->kind)).c_str());
  if (repro::IsFailure(verdict->kind)) {
    std::printf(" (%s)", verdict->signature.ToString().c_str());
  }
  std::printf(" in %s\n", out.c_str());
  if (verdict->kind == repro::VerdictKind::kAccuracy && capture.precision_check_deferred) {
    std::printf("the miscompile/precision check is deferred: `reprokit minify` runs it on its "
                "result (--precision-check now runs it here)\n");
  }
  std::printf("report: reprokit report %s -o %s.html\n", out.c_str(), out.c_str());
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("capture", "compile, run and judge a graph; write a repro bundle",
                    &RunCapture);

}  // namespace rk::tools
