#include "repro/oracle/failure_site.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/options/faults.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/pass_manager.h"

namespace rk::repro {
namespace {

using compiler::Graph;
using compiler::NodeId;

// The graph with its composites lowered, as the compiler lowers them; the
// graph itself when it has none or lowering fails (the outputs must line up).
Graph Lowered(const Graph& graph) {
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (!context.ok()) return graph;
  Graph lowered = graph;
  absl::StatusOr<bool> changed = compiler::Decompose(lowered, *context);
  if (!changed.ok() || lowered.outputs().size() != graph.outputs().size()) return graph;
  return lowered;
}

// The faults the judged compiler plants: options.faults, and for an external
// backend its `faults` options (the built-in compiler served through the
// protocol, repro/backend/builtin_server.h, takes them so).
std::vector<std::string> PlantedFaultSpecs(const compiler::CompileOptions& options) {
  std::vector<std::string> specs = options.faults;
  if (!options.external()) return specs;
  for (const std::string& item : options.backend_options) {
    absl::string_view value(item);
    if (!absl::ConsumePrefix(&value, "faults:")) continue;
    for (absl::string_view spec : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      specs.push_back(std::string(spec));
    }
  }
  return specs;
}

// The fault kinds that explain a failure: value faults for accuracy, the
// nondeterministic fault for outputs that differ between runs.
using Kinds = std::vector<compiler::FaultKind>;
const Kinds kValueFaults = {compiler::FaultKind::kAccuracy, compiler::FaultKind::kDropLast};
const Kinds kNondeterministicFaults = {compiler::FaultKind::kNondeterministic};

bool CarriesFault(const compiler::FaultSet& faults, const Kinds& kinds, compiler::Op op) {
  for (compiler::FaultKind kind : kinds) {
    if (faults.Has(op, kind)) return true;
  }
  return false;
}

// Rule 1 of the header on `g` (whose outputs line up with the judged ones).
std::optional<FailureSite> PlantedSite(const Graph& g, const compiler::FaultSet& faults,
                                       const Kinds& kinds, const std::vector<int>& failing) {
  std::vector<bool> above(g.num_nodes(), false);
  for (int i : failing) above[g.outputs()[i].value] = true;
  for (int id = g.num_nodes() - 1; id >= 0; --id) {
    if (!above[id]) continue;
    for (NodeId operand : g.node(NodeId(id)).operands) above[operand.value] = true;
  }
  int planted = -1;
  for (int id = 0; id < g.num_nodes() && planted < 0; ++id) {
    if (above[id] && CarriesFault(faults, kinds, g.node(NodeId(id)).op)) planted = id;
  }
  if (planted < 0) return std::nullopt;
  // Which failing outputs the planted node reaches; the first of them names
  // the output.
  std::vector<bool> below(g.num_nodes(), false);
  below[planted] = true;
  for (int id = planted + 1; id < g.num_nodes(); ++id) {
    for (NodeId operand : g.node(NodeId(id)).operands) below[id] = below[id] || below[operand.value];
  }
  FailureSite site;
  for (int i : failing) {
    if (below[g.outputs()[i].value]) {
      site.output = i;
      break;
    }
  }
  const compiler::Node& node = g.node(NodeId(planted));
  site.op = std::string(compiler::OpName(node.op));
  site.dtype = std::string(compiler::DTypeName(node.type.dtype));
  site.planted = true;
  return site;
}

bool HasNode(const Graph& g, std::string_view op, std::string_view dtype) {
  for (const compiler::Node& node : g.nodes()) {
    if (compiler::OpName(node.op) == op && compiler::DTypeName(node.type.dtype) == dtype) {
      return true;
    }
  }
  return false;
}

bool HasComposite(const Graph& g) {
  for (const compiler::Node& node : g.nodes()) {
    if (compiler::GetOpKind(node.op) == compiler::OpKind::kComposite) return true;
  }
  return false;
}

// Both rules of the header, for a failure the fault kinds `kinds` explain.
FailureSite Locate(const Graph& graph, const compiler::CompileOptions& options, const Kinds& kinds,
                   absl::Span<const int> failing_outputs) {
  // Failing outputs nearest the inputs first.
  std::vector<int> failing(failing_outputs.begin(), failing_outputs.end());
  std::stable_sort(failing.begin(), failing.end(), [&](int a, int b) {
    return graph.outputs()[a].value < graph.outputs()[b].value;
  });
  if (failing.empty()) return FailureSite();
  if (const std::vector<std::string> specs = PlantedFaultSpecs(options); !specs.empty()) {
    absl::StatusOr<compiler::FaultSet> faults = compiler::FaultSet::Parse(specs);
    if (faults.ok()) {
      if (std::optional<FailureSite> site = PlantedSite(Lowered(graph), *faults, kinds, failing)) {
        return *std::move(site);
      }
    }
  }
  FailureSite site;
  site.output = failing[0];
  const compiler::Node& node = graph.node(graph.outputs()[site.output]);
  site.op = std::string(compiler::OpName(node.op));
  site.dtype = std::string(compiler::DTypeName(node.type.dtype));
  return site;
}

}  // namespace

bool CanNameFailure(const Graph& graph, std::string_view op, std::string_view dtype) {
  if (HasNode(graph, op, dtype)) return true;
  return HasComposite(graph) && HasNode(Lowered(graph), op, dtype);
}

FailureSite LocateAccuracyFailure(const Graph& graph, const compiler::CompileOptions& options,
                                  absl::Span<const int> failing) {
  return Locate(graph, options, kValueFaults, failing);
}

FailureSite LocateNondeterminism(const Graph& graph, const compiler::CompileOptions& options,
                                 absl::Span<const int> differing) {
  return Locate(graph, options, kNondeterministicFaults, differing);
}

}  // namespace rk::repro
