// `reprokit export BUNDLE|GRAPH --onnx -o repro.onnx`: a (minimized) repro as
// an ONNX model that ONNX's checker accepts (where the build has one:
// compiler/onnx/checker.h), with its inputs and the reference interpreter's
// outputs in ONNX's test-data layout, so it can be filed against ONNX Runtime,
// TensorRT or any other ONNX consumer.
//
// `reprokit export BUNDLE --standalone DIR [--target NAME]`: the repro in the
// target's own terms, run without reprokit (repro/standalone/standalone.h):
// for ONNX Runtime model.onnx, .npy inputs and expected values, repro.py and
// repro.js; for Inductor a torch repro.py; for XLA a jax repro.py. Tested by
// tools/standalone_cli_test.sh.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/onnx/checker.h"
#include "compiler/reference/interpreter.h"
#include "repro/bundle/bundle.h"
#include "repro/oracle/verdict.h"
#include "repro/standalone/standalone.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/onnx_source.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "export";

// --standalone: the bundle's (or graph's) failing settings, for `target`
// (the bundle's backend unless --target names one).
int WriteStandaloneDir(const std::string& arg, const std::string& dir, std::string target,
                       int64_t seed) {
  repro::StandaloneRequest request;
  if (repro::IsBundleDir(arg)) {
    absl::StatusOr<repro::LoadedBundle> bundle = repro::LoadBundle(arg);
    if (!bundle.ok()) return ReportError(kName, bundle.status());
    for (const std::string& w : bundle->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    request.graph = bundle->bundle.graph;
    request.inputs = bundle->inputs;
    request.options = bundle->bundle.options;
    request.tol = bundle->bundle.tol;
    const repro::Verdict& expected = bundle->bundle.expected;
    request.recorded =
        absl::StrCat(std::string(repro::VerdictKindName(expected.kind)), ": ", expected.message);
    if (target.empty()) target = request.options.backend;
  } else {
    absl::StatusOr<GraphSource> source = LoadGraphSource(arg);
    if (!source.ok()) return ReportError(kName, source.status());
    request.graph = std::move(source->graph);
    request.inputs = compiler::SeededInputs(request.graph, static_cast<uint64_t>(seed));
  }
  absl::StatusOr<repro::StandaloneTarget> parsed = repro::ParseStandaloneTarget(target);
  if (!parsed.ok()) return ReportError(kName, parsed.status());
  request.target = *parsed;
  const compiler::Graph& graph = request.graph;
  request.write_onnx = [&graph](const std::string& path) {
    return ExportOnnx(graph, path, "", {}, {});
  };
  if (absl::Status s = CheckOutputPath("--standalone", dir, OutputKind::kDirectory); !s.ok()) {
    return ReportError(kName, s);
  }
  absl::StatusOr<std::vector<std::string>> files = repro::WriteStandalone(request, dir);
  if (!files.ok()) return ReportError(kName, files.status());
  std::printf("wrote %s: %s\n", dir.c_str(), absl::StrJoin(*files, " ").c_str());
  return kExitOk;
}

int RunExport(absl::Span<const std::string> args) {
  std::string out;
  std::string standalone;
  std::string target;
  std::string data_dir;
  bool onnx = false;
  bool no_data = false;
  int64_t seed = 0;
  FlagSet flags(
      "export BUNDLE|GRAPH --onnx -o MODEL.onnx [--data-dir DIR | --no-data]\n"
      "       export BUNDLE|GRAPH --standalone DIR [--target onnxruntime|torch_inductor|jax_xla]",
      absl::StrCat(
          "Writes the bundle's (or graph's) graph as an ONNX model (opset 17) and\n"
          "beside it, in ONNX's test-data layout, its inputs (input_<i>.pb: the\n"
          "bundle's, or the seeded ones for a graph) and the reference interpreter's\n"
          "outputs (output_<i>.pb). docs/ONNX.md maps the ops. ",
          compiler::onnx_io::HaveOnnxChecker()
              ? "ONNX's checker accepts\nthe model before it is written.\n"
              : "This static build has no\nONNX checker to run on the model "
                "(docs/ONNX.md, \"Static builds\").\n",
          "With --standalone DIR: the repro in its target's own terms, run without\n"
          "reprokit (ONNX Runtime: model.onnx, inputs and expected values as .npy,\n"
          "repro.py and repro.js; Inductor: a torch repro.py; XLA: a jax repro.py),\n"
          "exiting 1 while the\n"
          "failure is present and 0 once fixed (docs/BACKENDS.md).\n"
          "Exit: 0 written, 2 bad input or an op with no ONNX form."));
  flags.String("standalone", &standalone, "write a standalone reproducer into this directory");
  flags.String("target", &target,
               "the standalone form: onnxruntime, torch_inductor or jax_xla (default: the "
               "bundle's backend)");
  flags.Bool("onnx", &onnx, "write ONNX (the only format; required)");
  flags.String("out", &out, "model file to write (required)", 'o');
  flags.String("data-dir", &data_dir, "where the tensors go (default: MODEL_data/ beside it)");
  flags.Bool("no-data", &no_data, "write the model only");
  flags.Int("seed", &seed, "seed of a graph's inputs (bundles keep their own)");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "BUNDLE", &exit_code);
  if (!arg.has_value()) return exit_code;
  if (!standalone.empty()) {
    if (onnx || !out.empty()) {
      return ReportError(kName, absl::InvalidArgumentError("--standalone and --onnx/-o exclude each other"));
    }
    return WriteStandaloneDir(*arg, standalone, target, seed);
  }
  if (!target.empty()) {
    return ReportError(kName, absl::InvalidArgumentError("--target goes with --standalone"));
  }
  if (!onnx) return ReportError(kName, absl::InvalidArgumentError("say the format: --onnx"));
  if (out.empty()) return ReportError(kName, absl::InvalidArgumentError("-o MODEL.onnx is required"));
  if (absl::Status s = CheckOutputPath("-o", out, OutputKind::kFile); !s.ok()) {
    return ReportError(kName, s);
  }
  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;
  if (repro::IsBundleDir(*arg)) {
    absl::StatusOr<repro::LoadedBundle> bundle = repro::LoadBundle(*arg);
    if (!bundle.ok()) return ReportError(kName, bundle.status());
    for (const std::string& w : bundle->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    graph = bundle->bundle.graph;
    inputs = bundle->inputs;
  } else {
    absl::StatusOr<GraphSource> source = LoadGraphSource(*arg);
    if (!source.ok()) return ReportError(kName, source.status());
    graph = std::move(source->graph);
    inputs = compiler::SeededInputs(graph, static_cast<uint64_t>(seed));
  }
  std::vector<compiler::HostTensor> outputs;
  if (!no_data) {
    if (data_dir.empty()) {
      data_dir = absl::EndsWith(out, ".onnx") ? out.substr(0, out.size() - 5) : out;
      data_dir += "_data";
    }
    absl::StatusOr<compiler::EvalResult> result = compiler::Evaluate(graph, inputs);
    if (!result.ok()) return ReportError(kName, result.status());
    outputs = std::move(result->outputs);
  } else {
    data_dir.clear();
  }
  if (absl::Status s = ExportOnnx(graph, out, data_dir, inputs, outputs); !s.ok()) {
    return ReportError(kName, s);
  }
  std::printf("wrote %s (%d nodes, opset 17)", out.c_str(), graph.num_nodes());
  if (!data_dir.empty()) {
    std::printf(" and %zu inputs, %zu reference outputs in %s", inputs.size(), outputs.size(),
                data_dir.c_str());
  }
  std::printf("\n");
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("export", "a bundle or graph as an ONNX model with its inputs", &RunExport);

}  // namespace rk::tools
