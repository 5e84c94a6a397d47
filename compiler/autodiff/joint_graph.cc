#include "compiler/autodiff/joint_graph.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/autodiff/grad_builder.h"
#include "compiler/autodiff/vjp.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler::autodiff {
namespace {

std::string InputLabel(const Graph& graph, NodeId id) {
  return absl::StrCat("input '%", graph.DisplayName(id), "' (", graph.type(id).ToString(), ")");
}

absl::Status CheckSpec(const Graph& forward, const GradSpec& spec, std::vector<bool>& marked) {
  const int num_inputs = forward.num_inputs();
  for (NodeId id : spec.inputs) {
    if (id.value < 0 || id.value >= num_inputs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "autodiff: node id ", id.value, " is not an input of the graph (", num_inputs,
          " inputs)"));
    }
    if (marked[id.value]) {
      return absl::InvalidArgumentError(
          absl::StrCat("autodiff: ", InputLabel(forward, id), " is marked for a gradient twice"));
    }
    if (!IsFloat(forward.type(id).dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "autodiff: ", InputLabel(forward, id),
          " cannot have a gradient: only float inputs are differentiable"));
    }
    marked[id.value] = true;
  }
  return absl::OkStatus();
}

// A name for seed i that no forward node has.
std::string SeedName(int output, std::set<std::string>& taken) {
  std::string name = absl::StrCat("seed.", output);
  while (taken.count(name) != 0) name += "_";
  taken.insert(name);
  return name;
}

}  // namespace

GradSpec GradSpecFromMarks(const Graph& forward) {
  GradSpec spec;
  for (NodeId id : forward.inputs()) {
    if (IsMarkedForGrad(forward.node(id))) spec.inputs.push_back(id);
  }
  return spec;
}

GradSpec GradSpecAllFloat(const Graph& forward) {
  GradSpec spec;
  for (NodeId id : forward.inputs()) {
    if (IsFloat(forward.type(id).dtype)) spec.inputs.push_back(id);
  }
  return spec;
}

absl::StatusOr<GradSpec> GradSpecFromNames(const Graph& forward,
                                           absl::Span<const std::string> names) {
  GradSpec spec;
  for (const std::string& name : names) {
    NodeId found;
    for (NodeId id : forward.inputs()) {
      if (forward.DisplayName(id) == name) found = id;
    }
    if (!found.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("autodiff: the graph has no input '%", name, "'"));
    }
    for (NodeId seen : spec.inputs) {
      if (seen == found) {
        return absl::InvalidArgumentError(
            absl::StrCat("autodiff: input '%", name, "' is named twice"));
      }
    }
    spec.inputs.push_back(found);
  }
  return spec;
}

absl::StatusOr<JointGraph> BuildJointGraph(const Graph& forward, const GradSpec& spec,
                                           const AutodiffOptions& options) {
  if (absl::Status s = Verify(forward); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("autodiff: forward graph: ", s.message()));
  }
  const int n = forward.num_nodes();
  std::vector<bool> marked(n, false);
  RK_RETURN_IF_ERROR(CheckSpec(forward, spec, marked));

  // needs[i]: node i is a float value that depends on a marked input.
  std::vector<bool> needs(n, false);
  for (int i = 0; i < n; ++i) {
    const Node& node = forward.node(NodeId(i));
    bool depends = marked[i];
    for (NodeId operand : node.operands) depends = depends || needs[operand.value];
    needs[i] = depends && IsFloat(node.type.dtype);
  }

  JointGraph joint;
  GraphBuilder b(forward.name());
  std::vector<NodeId> map(n);
  const std::vector<NodeId> inputs = forward.inputs();
  joint.num_forward_inputs = static_cast<int>(inputs.size());
  for (NodeId id : inputs) map[id.value] = b.Input(forward.node(id).name, forward.type(id));

  std::set<std::string> taken;
  for (const Node& node : forward.nodes()) {
    if (!node.name.empty()) taken.insert(node.name);
  }
  const std::vector<NodeId>& outputs = forward.outputs();
  std::vector<NodeId> seed_of(outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorType& type = forward.type(outputs[k]);
    if (!IsFloat(type.dtype)) continue;
    joint.seeds.push_back({static_cast<int>(k), b.num_nodes()});
    seed_of[k] = b.Input(SeedName(static_cast<int>(k), taken), type);
  }
  for (int i = 0; i < n; ++i) {
    const Node& node = forward.node(NodeId(i));
    if (node.op == Op::kInput) continue;
    std::vector<NodeId> operands;
    for (NodeId operand : node.operands) operands.push_back(map[operand.value]);
    RK_ASSIGN_OR_RETURN(map[i], b.Add(node.op, operands, node.attrs, node.name));
  }
  for (NodeId out : outputs) {
    RK_RETURN_IF_ERROR(b.Output(map[out.value]));
  }
  joint.num_forward_outputs = static_cast<int>(outputs.size());

  // Reverse sweep: contributions[i] holds the gradients flowing into node i.
  std::vector<std::vector<NodeId>> contributions(n);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (seed_of[k].valid() && needs[outputs[k].value]) {
      contributions[outputs[k].value].push_back(seed_of[k]);
    }
  }
  GradBuilder gb(b);
  for (int i = n - 1; i >= 0; --i) {
    const Node& node = forward.node(NodeId(i));
    if (node.op == Op::kInput || !needs[i] || contributions[i].empty()) continue;
    const VjpEntry* entry = VjpFor(node.op);
    if (entry == nullptr || entry->kind == VjpKind::kUnsupported) {
      return absl::UnimplementedError(absl::StrCat(
          "autodiff: no gradient rule for op ", std::string(OpName(node.op)), " (node %",
          forward.DisplayName(NodeId(i)), ")"));
    }
    if (entry->kind != VjpKind::kRule) continue;  // a source or zero gradient
    std::vector<bool> wants;
    std::vector<NodeId> x;
    bool any = false;
    for (NodeId operand : node.operands) {
      wants.push_back(needs[operand.value]);
      any = any || needs[operand.value];
      x.push_back(map[operand.value]);
    }
    if (!any) continue;
    RK_ASSIGN_OR_RETURN(NodeId g, SumAll(gb, contributions[i]));
    contributions[i].clear();
    VjpArgs args{node, std::move(x), map[i], g, wants, options.faults};
    absl::StatusOr<Grads> grads = entry->rule(gb, args);
    if (!grads.ok()) {
      return absl::Status(grads.status().code(),
                          absl::StrCat("autodiff: gradient of node %", forward.DisplayName(NodeId(i)),
                                       " (", std::string(OpName(node.op)),
                                       "): ", grads.status().message()));
    }
    for (size_t k = 0; k < node.operands.size(); ++k) {
      if (!wants[k] || k >= grads->size() || !(*grads)[k].valid()) continue;
      const NodeId operand = node.operands[k];
      if (b.type((*grads)[k]) != forward.type(operand)) {
        return absl::InternalError(absl::StrCat(
            "autodiff: the ", std::string(OpName(node.op)), " rule gave operand ", k, " of node %",
            forward.DisplayName(NodeId(i)), " a gradient of type ",
            b.type((*grads)[k]).ToString(), ", not ", forward.type(operand).ToString()));
      }
      contributions[operand.value].push_back((*grads)[k]);
    }
  }

  for (NodeId id : spec.inputs) {
    NodeId grad;
    if (contributions[id.value].empty()) {
      RK_ASSIGN_OR_RETURN(grad, gb.Zeros(forward.type(id)));
    } else {
      RK_ASSIGN_OR_RETURN(grad, SumAll(gb, contributions[id.value]));
    }
    joint.gradients.push_back(
        {id, forward.DisplayName(id), static_cast<int>(b.graph().outputs().size())});
    RK_RETURN_IF_ERROR(b.Output(grad));
  }
  RK_ASSIGN_OR_RETURN(joint.graph, b.Build());
  return joint;
}

absl::StatusOr<std::vector<HostTensor>> JointInputs(const JointGraph& joint,
                                                    absl::Span<const HostTensor> forward_inputs,
                                                    uint64_t seed) {
  if (static_cast<int>(forward_inputs.size()) != joint.num_forward_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("autodiff: ", forward_inputs.size(),
                                                   " forward inputs given, the graph has ",
                                                   joint.num_forward_inputs));
  }
  std::vector<HostTensor> values(forward_inputs.begin(), forward_inputs.end());
  for (const JointGraph::Seed& s : joint.seeds) {
    const TensorType& type = joint.graph.type(NodeId(s.input));
    values.push_back(
        HostTensor::Random(type, SeedForInput(seed, s.input), DefaultInputSpec(type.dtype)));
  }
  return values;
}

}  // namespace rk::compiler::autodiff
