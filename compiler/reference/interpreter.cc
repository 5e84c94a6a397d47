// The interpreter's driver: checks the inputs, walks the nodes in id order
// (a topological order), dispatches each to its op family's kernel and
// releases values after their last use.
#include "compiler/reference/interpreter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"
#include "compiler/reference/promote.h"
#include "compiler/reference/undefined_behavior.h"

namespace rk::compiler {
namespace {

using namespace reference_internal;  // NOLINT(build/namespaces): the kernels

absl::Status AtNode(const Graph& graph, NodeId id, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("node %", graph.DisplayName(id), " (",
                                                  OpLabel(graph.node(id).op),
                                                  "): ", status.message()));
}

absl::Status CheckInputs(const Graph& graph, absl::Span<const HostTensor> inputs) {
  const std::vector<NodeId> params = graph.inputs();
  if (params.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("graph @", graph.name(), " takes ",
                                                   params.size(), " inputs, got ",
                                                   inputs.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorType& want = graph.type(params[i]);
    const HostTensor& got = inputs[i];
    const std::string what = absl::StrCat("input %", graph.DisplayName(params[i]), " (#", i, ")");
    if (got.type() != want) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": expected ", want.ToString(),
                                                     ", got ", got.type().ToString()));
    }
    if (!got.valid()) return absl::InvalidArgumentError(absl::StrCat(what, ": has no storage"));
  }
  return absl::OkStatus();
}

absl::StatusOr<HostTensor> EvalNode(const Node& node, absl::Span<const HostTensor> operands) {
  switch (GetOpKind(node.op)) {
    case OpKind::kSource: return EvalSource(node);
    case OpKind::kUnary: return EvalUnary(node, operands);
    case OpKind::kBinary: return EvalBinary(node, operands);
    case OpKind::kCompare: return EvalCompare(node, operands);
    case OpKind::kLogic: return EvalLogic(node, operands);
    case OpKind::kSelect: return EvalSelect(node, operands);
    case OpKind::kCast: return EvalCast(node, operands);
    case OpKind::kReduce: return EvalReduce(node, operands);
    case OpKind::kScan: return EvalScan(node, operands);
    case OpKind::kLayout: return EvalLayout(node, operands);
    case OpKind::kMatmul: return EvalMatmul(node, operands);
    case OpKind::kGather: return EvalGather(node, operands);
    case OpKind::kWindow: return EvalWindow(node, operands);
    case OpKind::kComposite: return EvalComposite(node, operands);
  }
  return absl::InternalError("unknown op kind");
}

// For each node, the id of the last node reading it; outputs live to the end.
std::vector<int> LastUses(const Graph& graph) {
  std::vector<int> last(graph.num_nodes(), -1);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    for (NodeId operand : graph.node(NodeId(i)).operands) {
      if (operand.valid() && operand.value < i) last[operand.value] = i;
    }
  }
  for (NodeId out : graph.outputs()) {
    if (out.valid() && out.value < graph.num_nodes()) last[out.value] = graph.num_nodes();
  }
  return last;
}

absl::StatusOr<EvalResult> EvaluateVerbatim(const Graph& graph,
                                            absl::Span<const HostTensor> inputs,
                                            bool record_intermediates) {
  const int n = graph.num_nodes();
  const std::vector<int> last_use = LastUses(graph);
  std::vector<HostTensor> values(n);
  std::vector<HostTensor> operands;
  std::optional<UndefinedBehavior> undefined;
  for (int i = 0; i < n; ++i) {
    const NodeId id(i);
    const Node& node = graph.node(id);
    if (node.op == Op::kInput) {
      if (i >= static_cast<int>(inputs.size())) {
        return AtNode(graph, id, absl::InvalidArgumentError("inputs must come first"));
      }
      values[i] = inputs[i];
      continue;
    }
    operands.clear();
    for (NodeId operand : node.operands) {
      if (!operand.valid() || operand.value >= i) {
        return AtNode(graph, id,
                      absl::InvalidArgumentError(absl::StrCat(
                          "operand ", operand.value, " is not defined before its use")));
      }
      operands.push_back(values[operand.value]);
    }
    absl::StatusOr<HostTensor> value = EvalNode(node, operands);
    if (!value.ok()) return AtNode(graph, id, value.status());
    if (absl::Status s = ExpectType(*value, node.type, "result"); !s.ok()) {
      return AtNode(graph, id, s);
    }
    if (!undefined.has_value()) {
      if (std::optional<std::string> what = FindUndefinedBehavior(node, operands, *value)) {
        undefined = UndefinedBehavior{id, graph.DisplayName(id), *std::move(what)};
      }
    }
    values[i] = *std::move(value);
    if (!record_intermediates) {
      for (NodeId operand : node.operands) {
        if (last_use[operand.value] == i) values[operand.value] = HostTensor();
      }
      if (last_use[i] < 0) values[i] = HostTensor();  // dead: nothing reads it
    }
  }
  EvalResult result;
  for (NodeId out : graph.outputs()) {
    if (!out.valid() || out.value >= n) {
      return absl::InvalidArgumentError(absl::StrCat("output id ", out.value, " does not exist"));
    }
    result.outputs.push_back(values[out.value]);
  }
  if (record_intermediates) result.values = std::move(values);
  result.undefined = std::move(undefined);
  return result;
}

}  // namespace

std::string UndefinedBehavior::Message() const {
  return absl::StrCat("undefined behavior at %", node_name, ": ", what);
}

absl::StatusOr<EvalResult> Evaluate(const Graph& graph, absl::Span<const HostTensor> inputs,
                                    const EvalOptions& options) {
  if (absl::Status s = CheckInputs(graph, inputs); !s.ok()) return s;
  if (!options.fp64) return EvaluateVerbatim(graph, inputs, options.record_intermediates);
  absl::StatusOr<Graph> promoted = PromoteToF64(graph);
  if (!promoted.ok()) return promoted.status();
  std::vector<HostTensor> wide;
  wide.reserve(inputs.size());
  for (const HostTensor& t : inputs) {
    wide.push_back(IsFloat(t.dtype()) && t.dtype() != DType::kF64 ? t.ConvertTo(DType::kF64) : t);
  }
  return EvaluateVerbatim(*promoted, wide, options.record_intermediates);
}

}  // namespace rk::compiler
