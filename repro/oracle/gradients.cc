#include "repro/oracle/gradients.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "compiler/ir/verifier.h"
#include "compiler/options/faults.h"

namespace rk::repro {

using compiler::Graph;
using compiler::HostTensor;
using compiler::NodeId;
using compiler::autodiff::GradSpec;

bool HasGradientMarks(const Graph& graph) {
  for (NodeId id : graph.inputs()) {
    if (compiler::IsMarkedForGrad(graph.node(id))) return true;
  }
  return false;
}

absl::StatusOr<GradientJudgement> PrepareGradients(const Graph& forward,
                                                   absl::Span<const HostTensor> inputs,
                                                   const compiler::CompileOptions& options) {
  RK_ASSIGN_OR_RETURN(compiler::FaultSet faults, compiler::FaultSet::Parse(options.faults));
  const GradSpec spec = compiler::autodiff::GradSpecFromMarks(forward);
  compiler::autodiff::AutodiffOptions planted;
  planted.faults = std::move(faults);
  GradientJudgement judgement;
  RK_ASSIGN_OR_RETURN(judgement.compiled,
                      compiler::autodiff::BuildJointGraph(forward, spec, planted));
  RK_ASSIGN_OR_RETURN(compiler::autodiff::JointGraph clean,
                      compiler::autodiff::BuildJointGraph(forward, spec));
  judgement.reference = std::move(clean.graph);
  RK_ASSIGN_OR_RETURN(judgement.inputs,
                      compiler::autodiff::JointInputs(judgement.compiled, inputs, kGradientSeed));
  return judgement;
}

absl::StatusOr<Graph> CompiledGraph(const Graph& graph, const compiler::CompileOptions& options) {
  if (!HasGradientMarks(graph)) return graph;
  RK_ASSIGN_OR_RETURN(compiler::FaultSet faults, compiler::FaultSet::Parse(options.faults));
  compiler::autodiff::AutodiffOptions planted;
  planted.faults = std::move(faults);
  RK_ASSIGN_OR_RETURN(compiler::autodiff::JointGraph joint,
                      compiler::autodiff::BuildJointGraph(
                          graph, compiler::autodiff::GradSpecFromMarks(graph), planted));
  return std::move(joint.graph);
}

std::optional<PlantedVjpSite> FindPlantedVjpSite(const Graph& forward,
                                                 const compiler::CompileOptions& options) {
  absl::StatusOr<compiler::FaultSet> faults = compiler::FaultSet::Parse(options.faults);
  if (!faults.ok()) return std::nullopt;
  for (const compiler::Fault& fault : faults->faults()) {
    absl::string_view target = fault.target;
    if (!absl::ConsumePrefix(&target, "vjp:")) continue;
    const std::string op(target);
    for (const compiler::Node& node : forward.nodes()) {
      if (compiler::OpName(node.op) == op) {
        return PlantedVjpSite{op, std::string(compiler::DTypeName(node.type.dtype))};
      }
    }
  }
  return std::nullopt;
}

absl::StatusOr<Graph> WithGradientMarks(const Graph& forward, const GradSpec& spec) {
  Graph marked = forward;
  for (NodeId id : marked.inputs()) marked.mutable_node(id).attrs.Erase(compiler::kGradAttr);
  for (NodeId id : spec.inputs) {
    if (!compiler::IsFloat(marked.type(id).dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--grad: input '%", marked.DisplayName(id), "' has type ", marked.type(id).ToString(),
          "; only float inputs have gradients"));
    }
    marked.mutable_node(id).attrs.Set(compiler::kGradAttr, true);
  }
  RK_RETURN_IF_ERROR(compiler::Verify(marked));
  return marked;
}

absl::StatusOr<Graph> ApplyGradFlag(const Graph& forward, const std::string& spec) {
  if (spec == "none") return WithGradientMarks(forward, GradSpec{});
  if (spec == "all-float") {
    GradSpec all = compiler::autodiff::GradSpecAllFloat(forward);
    if (all.inputs.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--grad all-float: graph @", forward.name(), " has no float input"));
    }
    return WithGradientMarks(forward, all);
  }
  std::vector<std::string> names;
  for (absl::string_view name : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    absl::ConsumePrefix(&name, "%");
    names.emplace_back(name);
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(
        "--grad: expected input names separated by commas, all-float or none");
  }
  absl::StatusOr<GradSpec> named = compiler::autodiff::GradSpecFromNames(forward, names);
  if (!named.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--grad: ", named.status().message()));
  }
  return WithGradientMarks(forward, *named);
}

}  // namespace rk::repro
