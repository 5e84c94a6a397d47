// `reprokit run BUNDLE`: replays a bundle in this process: loads and
// validates it, compiles the graph with the recorded options (or hands it to
// the recorded external backend), runs it on the recorded inputs and prints a
// summary of every output. A graph with `grad` inputs runs as its joint graph
// (repro/oracle/gradients.h), so the gradients are printed too, as grad(%w).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "compiler/driver/compile.h"
#include "repro/backend/locate.h"
#include "repro/bundle/bundle.h"
#include "repro/oracle/backend_runner.h"
#include "repro/oracle/gradients.h"
#include "repro/oracle/verdict.h"
#include "repro/store/open_store.h"
#include "repro/oracle/memory_budget.h"
#include "repro/oracle/preflight.h"
#include "tools/flags.h"
#include "tools/store_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "run";

int RunRun(absl::Span<const std::string> args) {
  bool json = false;
  int64_t max_values = 6;
  FlagSet flags("run BUNDLE [--json]",
                "Replays a repro bundle: compiles its graph with the recorded options (and\n"
                "backend), runs it on the recorded inputs and prints every output's summary. No oracle:\n"
                "`reprokit check BUNDLE` judges. Exit: 0 ran, 1 compiling or running\n"
                "failed (the failure reproduces), 2 bad bundle.");
  std::string backend;
  flags.Bool("json", &json, "print one JSON object");
  flags.String("backend", &backend,
               "run with this backend instead of the bundle's: builtin, reprokit, a NAME or a "
               "PATH (docs/BACKENDS.md)");
  flags.Int("values", &max_values, "how many leading values to show per tensor");
  std::string store_spec;
  flags.String("store", &store_spec,
               "shared store (directory or http(s):// remote cache) for blobs the bundle lacks");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "BUNDLE", &exit_code);
  if (!arg.has_value()) return exit_code;
  std::unique_ptr<repro::Store> shared;
  if (!store_spec.empty()) {
    absl::StatusOr<std::unique_ptr<repro::Store>> opened = repro::OpenStore(store_spec);
    if (!opened.ok()) return ReportStoreError(kName, opened.status());
    shared = *std::move(opened);
  }
  absl::StatusOr<repro::LoadedBundle> loaded = repro::LoadBundle(*arg, shared.get());
  if (!loaded.ok()) return ReportStoreError(kName, loaded.status());
  for (const std::string& w : loaded->warnings) {
    std::fprintf(stderr, "reprokit: %s: warning: %s\n", kName, w.c_str());
  }
  repro::Bundle& b = loaded->bundle;
  if (!backend.empty()) {
    const std::string spec = repro::CanonicalBackendSpec(backend);
    if (spec != b.options.backend) b.options.backend_options.clear();
    if (absl::Status s = b.options.Set("backend", spec); !s.ok()) return ReportError(kName, s);
  }
  // Bad fault specs, a missing GPU or a graph too large for memory are not the
  // bundle's failure reproducing: 2 or 125, never 1.
  if (absl::Status s = repro::Preflight(b.options); !s.ok()) return ReportError(kName, s);
  if (absl::Status s = repro::CheckMemoryBudget(b.graph, repro::MemoryUse::kRun,
                                                repro::kDefaultMemoryBudgetBytes);
      !s.ok()) {
    return ReportError(kName, s);
  }
  // What runs: the graph, or for `grad` inputs the joint graph the oracle
  // judges (its planted vjp faults included), labelled per output.
  compiler::Graph program = b.graph;
  std::vector<compiler::HostTensor> program_inputs = loaded->inputs;
  std::vector<std::string> labels;       // "%y", "grad(%w)"
  std::vector<std::string> gradient_of;  // "" for a forward output
  for (compiler::NodeId out : b.graph.outputs()) {
    labels.push_back("%" + b.graph.DisplayName(out));
    gradient_of.push_back("");
  }
  if (repro::HasGradientMarks(b.graph)) {
    absl::StatusOr<repro::GradientJudgement> joint =
        repro::PrepareGradients(b.graph, loaded->inputs, b.options);
    if (!joint.ok()) return ReportError(kName, joint.status());
    program = joint->compiled.graph;
    program_inputs = std::move(joint->inputs);
    for (const auto& grad : joint->compiled.gradients) {
      labels.push_back("grad(%" + grad.name + ")");
      gradient_of.push_back(grad.name);
    }
  }
  absl::StatusOr<std::vector<compiler::HostTensor>> outputs;
  std::string failed_phase = "compile";
  if (b.options.external()) {
    // The backend compiles and runs; its crash, hang or error is the failure.
    absl::StatusOr<std::unique_ptr<repro::BackendRunner>> runner =
        repro::BackendRunner::Create(b.options.backend, 1, repro::BackendLimits());
    if (!runner.ok()) return ReportError(kName, runner.status());
    if (absl::Status s = (*runner)->CheckOptions(b.options); !s.ok()) return ReportError(kName, s);
    absl::StatusOr<repro::ProgramRuns> ran = (*runner)->Run(program, program_inputs, b.options, 1);
    if (!ran.ok()) return ReportError(kName, ran.status());
    if (ran->ended) {
      outputs = absl::UnknownError(absl::StrCat(std::string(repro::VerdictKindName(ran->ended->kind)), ": ",
                                                ran->ended->message));
      failed_phase = "backend";
    } else {
      outputs = std::move(ran->runs[0]);
    }
  } else {
    absl::StatusOr<compiler::Executable> exe = compiler::Compile(program, b.options);
    outputs = exe.ok() ? exe->Run(program_inputs)
                       : absl::StatusOr<std::vector<compiler::HostTensor>>(exe.status());
    if (exe.ok()) failed_phase = "run";
  }

  if (json) {
    Json doc = Json::MakeObject();
    doc.Set("bundle", loaded->dir);
    doc.Set("bundle_hash", loaded->hash);
    doc.Set("expected_signature", b.expected.signature.ToString());
    doc.Set("ok", outputs.ok());
    if (!outputs.ok()) doc.Set("error", absl::StrCat(failed_phase, ": ", outputs.status().ToString()));
    Json list = Json::MakeArray();
    if (outputs.ok()) {
      for (size_t i = 0; i < outputs->size(); ++i) {
        Json o = Json::MakeObject();
        o.Set("index", static_cast<long long>(i));
        if (gradient_of[i].empty()) {
          o.Set("name", b.graph.DisplayName(b.graph.outputs()[i]));
        } else {
          o.Set("name", labels[i]);
          o.Set("gradient_of", gradient_of[i]);
        }
        o.Set("summary", (*outputs)[i].Summary(static_cast<int>(max_values)));
        list.push_back(std::move(o));
      }
    }
    doc.Set("outputs", std::move(list));
    Json warnings = Json::MakeArray();
    for (const std::string& w : loaded->warnings) warnings.push_back(w);
    doc.Set("warnings", std::move(warnings));
    std::printf("%s\n", doc.DumpPretty().c_str());
    return outputs.ok() ? kExitOk : kExitReproduces;
  }
  std::string opts = b.options.ToString();
  std::printf("bundle %s: graph @%s, %d nodes, options '%s'\n", loaded->dir.c_str(),
              b.graph.name().c_str(), b.graph.num_nodes(), opts.c_str());
  std::printf("expected: %s\n", b.expected.signature.ToString().c_str());
  if (!outputs.ok()) {
    std::fprintf(stderr, "reprokit: %s: %s failed: %s\n", kName, failed_phase.c_str(),
                 outputs.status().ToString().c_str());
    return kExitReproduces;
  }
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::printf("  out%zu %s: %s\n", i, labels[i].c_str(),
                (*outputs)[i].Summary(static_cast<int>(max_values)).c_str());
  }
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("run", "replay a bundle: compile, run, print the outputs", &RunRun);

}  // namespace rk::tools
