// `reprokit eval`: runs a graph through the reference interpreter on seeded
// random inputs (the same inputs `check` uses for that seed) and summarizes
// every output: type, min/max/mean, NaN/Inf counts and the first values.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/reference/interpreter.h"
#include "repro/oracle/memory_budget.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "eval";

// Errors read "<what>: <why>" with the graph file as the what.
absl::Status AboutFile(const std::string& path, const absl::Status& status) {
  std::string message(status.message());
  if (absl::StartsWith(message, path)) return status;
  return absl::Status(status.code(), absl::StrCat(path, ": ", message));
}

Json OutputJson(int index, const std::string& name, const compiler::HostTensor& t,
                int64_t max_values) {
  Json out = Json::MakeObject();
  out.Set("index", index);
  out.Set("name", name);
  out.Set("type", t.type().ToString());
  const bool is_float = compiler::IsFloat(t.dtype());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int64_t nans = 0, infs = 0, finite = 0;
  Json values = Json::MakeArray();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = t.GetDouble(i);
    if (i < max_values) values.push_back(is_float ? Json(v) : Json(static_cast<long long>(t.GetInt(i))));
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    if (std::isinf(v)) ++infs;
    else ++finite;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans < t.num_elements()) {
    out.Set("min", lo);
    out.Set("max", hi);
    out.Set("mean", sum / static_cast<double>(t.num_elements() - nans));
  }
  out.Set("nan", static_cast<long long>(nans));
  out.Set("inf", static_cast<long long>(infs));
  out.Set("values", std::move(values));
  return out;
}

int RunEval(absl::Span<const std::string> args) {
  bool fp64 = false, json = false;
  int64_t seed = 0, max_values = 6;
  FlagSet flags("eval GRAPH [--fp64] [--seed N] [--json]",
                "Evaluates GRAPH with the reference interpreter on seeded random inputs (the\n"
                "inputs `check` uses for the same seed) and prints, per output, its type,\n"
                "min/max/mean and first values. Every op rounds to its node's dtype, as\n"
                "hardware storing intermediates would; --fp64 promotes every float to f64\n"
                "(the oracle's fp64 reference). Exit: 0 ok, 2 bad input.");
  flags.Bool("fp64", &fp64, "evaluate every float op in f64");
  flags.Int("seed", &seed, "seed for the random inputs");
  GraphSourceFlags source_flags;
  source_flags.Register(flags);
  flags.Int("values", &max_values, "how many leading values to show per tensor");
  flags.Bool("json", &json, "print one JSON object");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "GRAPH", &exit_code);
  if (!arg.has_value()) return exit_code;
  if (seed < 0) return ReportError(kName, absl::InvalidArgumentError("--seed: must be >= 0"));
  if (max_values < 0) {
    return ReportError(kName, absl::InvalidArgumentError("--values: must be >= 0"));
  }
  const std::string& path = *arg;
  absl::StatusOr<GraphSource> source = LoadGraphSource(path, source_flags);
  if (!source.ok()) return ReportError(kName, AboutFile(path, source.status()));
  compiler::Graph* graph = &source->graph;
  // Budgeted before anything is allocated: a clear error, never std::bad_alloc.
  if (absl::Status s = repro::CheckMemoryBudget(
          *graph, fp64 ? repro::MemoryUse::kEvaluateFp64 : repro::MemoryUse::kEvaluate,
          repro::kDefaultMemoryBudgetBytes);
      !s.ok()) {
    return ReportError(kName, AboutFile(path, s));
  }
  const std::vector<compiler::HostTensor> inputs =
      compiler::SeededInputs(*graph, static_cast<uint64_t>(seed));
  compiler::EvalOptions options;
  options.fp64 = fp64;
  absl::StatusOr<compiler::EvalResult> result = compiler::Evaluate(*graph, inputs, options);
  if (!result.ok()) return ReportError(kName, AboutFile(path, result.status()));

  const std::vector<compiler::NodeId>& outputs = graph->outputs();
  if (json) {
    Json doc = Json::MakeObject();
    doc.Set("graph", graph->name());
    doc.Set("mode", fp64 ? "fp64" : "native");
    doc.Set("seed", static_cast<long long>(seed));
    Json list = Json::MakeArray();
    for (size_t i = 0; i < outputs.size(); ++i) {
      list.push_back(OutputJson(static_cast<int>(i), graph->DisplayName(outputs[i]),
                                result->outputs[i], max_values));
    }
    doc.Set("outputs", std::move(list));
    std::printf("%s\n", doc.DumpPretty().c_str());
    return kExitOk;
  }
  std::printf("graph @%s, %s reference, seed %lld\n", graph->name().c_str(),
              fp64 ? "fp64" : "native", static_cast<long long>(seed));
  const std::vector<compiler::NodeId> params = graph->inputs();
  for (size_t i = 0; i < params.size(); ++i) {
    std::printf("  in%zu %%%s: %s\n", i, graph->DisplayName(params[i]).c_str(),
                inputs[i].Summary(static_cast<int>(max_values)).c_str());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::printf("  out%zu %%%s: %s\n", i, graph->DisplayName(outputs[i]).c_str(),
                result->outputs[i].Summary(static_cast<int>(max_values)).c_str());
  }
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("eval", "evaluate a graph with the reference interpreter (native or fp64)",
                    &RunEval);

}  // namespace rk::tools
