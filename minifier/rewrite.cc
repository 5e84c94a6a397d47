#include "minifier/rewrite.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/reference/interpreter.h"

namespace rk::minifier {
namespace {

using compiler::Graph;
using compiler::GraphBuilder;
using compiler::HostTensor;
using compiler::Node;
using compiler::NodeId;
using compiler::Op;
using compiler::Shape;
using compiler::TensorType;
using Action = GraphEdit::Action;

NodeId Resolve(const GraphEdit& edit, NodeId id) {
  while (edit.actions[id.value] == Action::kForward) id = edit.forward_to[id.value];
  return id;
}

// live[i]: node i of the base is needed by the edited graph's outputs.
std::vector<bool> LiveNodes(const Graph& base, const GraphEdit& edit,
                            const std::vector<NodeId>& outputs) {
  std::vector<bool> live(base.num_nodes(), false);
  for (NodeId out : outputs) live[out.value] = true;
  for (int i = base.num_nodes() - 1; i >= 0; --i) {
    if (!live[i] || edit.actions[i] != Action::kKeep) continue;
    for (NodeId operand : base.node(NodeId(i)).operands) {
      live[Resolve(edit, operand).value] = true;
    }
  }
  return live;
}

struct Rebuild {
  const Candidate& base;
  RecordedValues* values;
  const GraphEdit& edit;
  GraphBuilder builder;
  std::vector<NodeId> mapped;
  std::vector<HostTensor> inputs;
  absl::flat_hash_set<std::string> names;
  // Whether a gradient flows into each base node: a float value computed
  // from an input marked `grad`. A cut keeps such a value differentiable (the
  // new input is marked), as PyTorch's minifier keeps requires_grad on the
  // placeholders it makes.
  std::vector<bool> needs_grad;
  // Whether each base node is read by another node or is an output.
  std::vector<bool> used_in_base;

  Rebuild(const Candidate& b, RecordedValues* v, const GraphEdit& e)
      : base(b), values(v), edit(e), builder(b.graph.name()),
        mapped(b.graph.num_nodes()), needs_grad(b.graph.num_nodes(), false),
        used_in_base(b.graph.num_nodes(), false) {
    for (NodeId out : base.graph.outputs()) used_in_base[out.value] = true;
    for (int i = 0; i < base.graph.num_nodes(); ++i) {
      const Node& node = base.graph.node(NodeId(i));
      for (NodeId operand : node.operands) used_in_base[operand.value] = true;
      if (!node.name.empty()) names.insert(node.name);
      if (node.op == Op::kInput) {
        needs_grad[i] = compiler::IsMarkedForGrad(node);
        continue;
      }
      if (!compiler::IsFloat(node.type.dtype)) continue;
      for (NodeId operand : node.operands) needs_grad[i] = needs_grad[i] || needs_grad[operand.value];
    }
  }

  absl::Status AddInputs(const std::vector<bool>& live) {
    const Graph& g = base.graph;
    int input_index = 0;
    for (int i = 0; i < g.num_nodes(); ++i) {
      const Node& node = g.node(NodeId(i));
      if (node.op != Op::kInput) break;
      int position = input_index++;
      if (edit.actions[i] == Action::kDrop || edit.actions[i] == Action::kToFull) continue;
      // An input the edit left without a user goes with the nodes that read
      // it (one candidate instead of a later remove_unused_inputs call); one
      // that was unused before the edit stays for that reduction to judge.
      if (!live[i] && used_in_base[i]) continue;
      mapped[i] = builder.Input(node.name, node.type, compiler::IsMarkedForGrad(node));
      inputs.push_back(base.inputs[position]);
    }
    for (int i = 0; i < g.num_nodes(); ++i) {
      const Node& node = g.node(NodeId(i));
      if (!live[i] || node.op == Op::kInput || edit.actions[i] != Action::kToInput) continue;
      if (values == nullptr || values->num_nodes() != g.num_nodes()) {
        return absl::InternalError(absl::StrCat("no recorded value for node %", g.DisplayName(NodeId(i))));
      }
      absl::StatusOr<HostTensor> value = values->Get(NodeId(i));
      if (!value.ok()) return value.status();
      std::string stem = node.name.empty() ? absl::StrCat("v", i) : node.name;
      if (!node.name.empty()) names.erase(node.name);
      mapped[i] = builder.Input(FreshName(stem, names), node.type, needs_grad[i]);
      inputs.push_back(*std::move(value));
    }
    return absl::OkStatus();
  }

  absl::Status AddNodes(const std::vector<bool>& live) {
    const Graph& g = base.graph;
    for (int i = 0; i < g.num_nodes(); ++i) {
      const Node& node = g.node(NodeId(i));
      Action action = edit.actions[i];
      if (action == Action::kDrop) continue;
      if (action == Action::kToFull) {
        if (!live[i]) continue;
        absl::StatusOr<NodeId> id = builder.Full(node.type, edit.full_value[i]);
        if (!id.ok()) return id.status();
        mapped[i] = *id;
        continue;
      }
      if (!live[i] || action != Action::kKeep || node.op == Op::kInput) continue;
      std::vector<NodeId> operands;
      for (NodeId operand : node.operands) {
        NodeId resolved = Resolve(edit, operand);
        if (edit.actions[resolved.value] == Action::kDrop || !mapped[resolved.value].valid()) {
          return absl::InvalidArgumentError(
              absl::StrCat("node %", g.DisplayName(NodeId(i)), " reads a removed node"));
        }
        operands.push_back(mapped[resolved.value]);
      }
      absl::StatusOr<NodeId> id = builder.Add(node.op, operands, node.attrs, node.name);
      if (!id.ok()) return id.status();
      mapped[i] = *id;
    }
    return absl::OkStatus();
  }
};

}  // namespace

GraphEdit::GraphEdit(const Graph& base)
    : actions(base.num_nodes(), Action::kKeep),
      forward_to(base.num_nodes()),
      full_value(base.num_nodes(), 0.0) {}

void GraphEdit::Forward(NodeId id, NodeId to) {
  actions[id.value] = Action::kForward;
  forward_to[id.value] = to;
}

void GraphEdit::ToFull(NodeId id, double value) {
  actions[id.value] = Action::kToFull;
  full_value[id.value] = value;
}

absl::StatusOr<Candidate> ApplyEdit(const Candidate& base, RecordedValues* values,
                                    const GraphEdit& edit) {
  const Graph& g = base.graph;
  std::vector<NodeId> outputs;
  for (NodeId out : edit.outputs.has_value() ? *edit.outputs : g.outputs()) {
    NodeId resolved = Resolve(edit, out);
    if (edit.actions[resolved.value] == Action::kDrop) {
      return absl::InvalidArgumentError("an output reads a removed input");
    }
    outputs.push_back(resolved);
  }
  if (outputs.empty()) return absl::InvalidArgumentError("no outputs left");
  std::vector<bool> live = LiveNodes(g, edit, outputs);
  Rebuild rebuild(base, values, edit);
  if (absl::Status s = rebuild.AddInputs(live); !s.ok()) return s;
  if (absl::Status s = rebuild.AddNodes(live); !s.ok()) return s;
  for (NodeId out : outputs) {
    if (absl::Status s = rebuild.builder.Output(rebuild.mapped[out.value]); !s.ok()) return s;
  }
  absl::StatusOr<Graph> graph = rebuild.builder.Build();
  if (!graph.ok()) return graph.status();
  return Candidate{*std::move(graph), std::move(rebuild.inputs)};
}

absl::StatusOr<Candidate> RebuildOnInputs(const Candidate& base, std::vector<HostTensor> inputs,
                                          const std::function<void(Node&)>& mutate) {
  const Graph& g = base.graph;
  GraphBuilder builder(g.name());
  std::vector<NodeId> mapped(g.num_nodes());
  size_t next_input = 0;
  for (int i = 0; i < g.num_nodes(); ++i) {
    Node node = g.node(NodeId(i));
    if (node.op == Op::kInput) {
      if (next_input >= inputs.size()) return absl::InternalError("too few inputs");
      // A mark stays while the input stays float (simplify_dtypes may not).
      const compiler::TensorType type = inputs[next_input++].type();
      mapped[i] = builder.Input(node.name, type,
                                compiler::IsMarkedForGrad(node) && compiler::IsFloat(type.dtype));
      continue;
    }
    if (mutate) mutate(node);
    std::vector<NodeId> operands;
    for (NodeId operand : node.operands) operands.push_back(mapped[operand.value]);
    absl::StatusOr<NodeId> id = builder.Add(node.op, operands, node.attrs, node.name);
    if (!id.ok()) return id.status();
    mapped[i] = *id;
  }
  for (NodeId out : g.outputs()) {
    if (absl::Status s = builder.Output(mapped[out.value]); !s.ok()) return s;
  }
  absl::StatusOr<Graph> graph = builder.Build();
  if (!graph.ok()) return graph.status();
  return Candidate{*std::move(graph), std::move(inputs)};
}

HostTensor LeadingBlock(const HostTensor& tensor, const Shape& shape) {
  HostTensor out(TensorType(tensor.dtype(), shape));
  const int rank = shape.rank();
  const size_t element = static_cast<size_t>(compiler::DTypeSize(tensor.dtype()));
  std::vector<int64_t> source_strides = tensor.shape().Strides();
  std::vector<int64_t> index(rank, 0);
  const auto* src = static_cast<const uint8_t*>(tensor.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * source_strides[d];
    std::memcpy(dst + flat * element, src + offset * element, element);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dim(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

std::vector<NodeId> ComputeNodeIds(const Graph& graph) {
  std::vector<NodeId> ids;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (!IsSourceOp(graph.node(NodeId(i)).op)) ids.push_back(NodeId(i));
  }
  return ids;
}

std::string FreshName(const std::string& stem, absl::flat_hash_set<std::string>& taken) {
  std::string name = stem;
  for (int suffix = 1; taken.contains(name); ++suffix) name = absl::StrCat(stem, "_", suffix);
  taken.insert(name);
  return name;
}

absl::StatusOr<std::vector<HostTensor>> RecordValues(const Candidate& candidate, bool fp64) {
  compiler::EvalOptions options;
  options.fp64 = fp64;
  options.record_intermediates = true;
  absl::StatusOr<compiler::EvalResult> result =
      compiler::Evaluate(candidate.graph, candidate.inputs, options);
  if (!result.ok()) return result.status();
  std::vector<HostTensor> values = std::move(result->values);
  for (int i = 0; i < candidate.graph.num_nodes(); ++i) {
    compiler::DType dtype = candidate.graph.type(NodeId(i)).dtype;
    if (values[i].dtype() != dtype) values[i] = values[i].ConvertTo(dtype);
  }
  return values;
}

}  // namespace rk::minifier
