// `reprokit import MODEL.onnx -o BUNDLE`: an ONNX model as an ordinary repro
// bundle (graph.rk with the weights in the bundle's content store, seeded
// input recipes or the model's real inputs from files (--inputs,
// input_files.h), options, environment, the model's node names), which
// check, capture, minify, bisect, emit and pack then take unchanged.
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/stopwatch.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bundle/capture.h"
#include "repro/bundle/environment.h"
#include "repro/oracle/verdict.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/input_files.h"
#include "tools/oracle_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "import";

int RunImport(absl::Span<const std::string> args) {
  std::string out;
  int64_t seed = -1;
  std::vector<std::string> input_files;
  GraphSourceFlags source_flags;
  OracleFlags oracle_flags;
  FlagSet flags(
      "import MODEL.onnx -o BUNDLE [--input-shape NAME=[d0,...]]... [--seed N | --inputs FILE...]\n"
      "       [--opt k=v ...]",
      "Imports an ONNX model (docs/ONNX.md) into a repro bundle: graph.rk with every\n"
      "initializer as a constant stored in the bundle's content store, inputs as\n"
      "seeded recipes (or the model's real inputs, --inputs: one file per input in\n"
      "order, .npy, ONNX TensorProto .pb or raw little-endian bytes; stored in the\n"
      "bundle), compile options, environment, and the model's node names\n"
      "and op types (repro.json provenance.source). The bundle is not judged:\n"
      "`reprokit check BUNDLE` judges it, `reprokit capture MODEL.onnx` captures a\n"
      "failure. Symbolic input dims must be bound with --input-shape.\n"
      "Exit: 0 written, 2 bad or unsupported model (nothing written).");
  flags.String("out", &out, "bundle directory to write (required)", 'o');
  flags.Int("seed", &seed, "seed of the input recipes (default 0)");
  flags.Repeated("inputs", &input_files,
                 "input file (.npy, .pb or raw; repeat once per model input, in order)");
  source_flags.Register(flags);
  oracle_flags.Register(flags, /*takes_bundle=*/false);
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "MODEL", &exit_code);
  if (!arg.has_value()) return exit_code;
  if (out.empty()) return ReportError(kName, absl::InvalidArgumentError("-o BUNDLE is required"));
  if (absl::Status s = CheckOutputPath("-o", out, OutputKind::kDirectory); !s.ok()) {
    return ReportError(kName, s);
  }
  if (!IsOnnxPath(*arg)) {
    return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                  *arg, ": expected an ONNX model (a path ending in .onnx)")));
  }
  if (seed >= 0 && !input_files.empty()) {
    return ReportError(kName, absl::InvalidArgumentError("--seed and --inputs exclude each other"));
  }
  if (seed < -1) return ReportError(kName, absl::InvalidArgumentError("--seed must be >= 0"));
  compiler::CompileOptions options;
  if (absl::Status s = oracle_flags.ApplyTo(flags, &options); !s.ok()) return ReportError(kName, s);

  Stopwatch timer;
  absl::StatusOr<GraphSource> source = LoadGraphSource(*arg, source_flags);
  if (!source.ok()) return ReportError(kName, source.status());
  const double import_ms = timer.Lap();

  std::vector<compiler::HostTensor> inputs;
  repro::CaptureOptions capture;
  if (input_files.empty()) {
    capture.seed = static_cast<uint64_t>(seed < 0 ? 0 : seed);
    inputs = compiler::SeededInputs(source->graph, *capture.seed);
  } else {
    absl::StatusOr<std::vector<compiler::HostTensor>> read =
        ReadInputFiles(source->graph, input_files);
    if (!read.ok()) return ReportError(kName, read.status());
    inputs = *std::move(read);
  }
  capture.judged = false;
  capture.captured_by = "reprokit import";
  capture.policy = oracle_flags.policy;
  capture.tol = oracle_flags.tol;
  capture.source = source->source;
  std::vector<std::string> command = {"reprokit", kName};
  command.insert(command.end(), args.begin(), args.end());
  capture.command_line = repro::CommandLineText(command);
  repro::Verdict not_judged;
  if (absl::Status s = repro::Capture(source->graph, inputs, options, not_judged, out, capture);
      !s.ok()) {
    return ReportError(kName, absl::Status(s.code(), absl::StrCat(out, ": ", s.message())));
  }
  const double write_ms = timer.Lap();
  std::printf("imported %s (opset %lld%s): %d nodes, %d inputs, %d outputs, %.1f MB of weights\n",
              arg->c_str(), static_cast<long long>(source->opset),
              source->producer.empty() ? "" : absl::StrCat(", ", source->producer).c_str(),
              source->graph.num_nodes(), source->graph.num_inputs(),
              static_cast<int>(source->graph.outputs().size()), source->weight_bytes / 1e6);
  std::printf("wrote %s with %s (import %.0f ms, store and write %.0f ms)\n", out.c_str(),
              input_files.empty() ? absl::StrCat("inputs of seed ", *capture.seed).c_str()
                                  : "the given inputs",
              import_ms, write_ms);
  std::printf("next: reprokit check %s\n", out.c_str());
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("import", "import an ONNX model into a repro bundle", &RunImport);

}  // namespace rk::tools
