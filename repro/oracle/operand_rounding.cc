#include "repro/oracle/operand_rounding.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/op.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/promote.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::Graph;
using compiler::HostTensor;
using compiler::NodeId;

// The output node's value recomputed in fp64 from `rounded` (an ancestor)
// holding `value`: the slice of nodes between them, every other value it reads
// taken from `fp64_values`.
absl::StatusOr<HostTensor> Recompute(const Graph& graph, absl::Span<const HostTensor> fp64_values,
                                     const std::vector<bool>& cone, NodeId rounded,
                                     const HostTensor& value, NodeId output) {
  const int n = output.value + 1;
  std::vector<bool> after(n, false);  // computed from `rounded`, inside the cone
  after[rounded.value] = true;
  for (int i = rounded.value + 1; i < n; ++i) {
    if (!cone[i]) continue;
    for (NodeId operand : graph.node(NodeId(i)).operands) after[i] = after[i] || after[operand.value];
  }
  compiler::GraphBuilder builder("rounding_slice");
  std::vector<NodeId> mapped(n);
  std::vector<HostTensor> inputs;
  // Inputs first: the rounded node, then every value the slice reads from
  // outside it.
  mapped[rounded.value] = builder.Input("rounded", graph.type(rounded));
  inputs.push_back(value);
  for (int i = rounded.value + 1; i < n; ++i) {
    if (!after[i]) continue;
    for (NodeId operand : graph.node(NodeId(i)).operands) {
      if (after[operand.value] || mapped[operand.value].valid()) continue;
      mapped[operand.value] =
          builder.Input(absl::StrCat("v", operand.value), graph.type(operand));
      inputs.push_back(fp64_values[operand.value]);
    }
  }
  for (int i = rounded.value + 1; i < n; ++i) {
    if (!after[i]) continue;
    const compiler::Node& node = graph.node(NodeId(i));
    std::vector<NodeId> operands;
    for (NodeId operand : node.operands) operands.push_back(mapped[operand.value]);
    absl::StatusOr<NodeId> id = builder.AddWithType(node.op, operands, node.attrs, node.type);
    if (!id.ok()) return id.status();
    mapped[i] = *id;
  }
  if (absl::Status s = builder.Output(mapped[output.value]); !s.ok()) return s;
  absl::StatusOr<Graph> slice = builder.Build();
  if (!slice.ok()) return slice.status();
  absl::StatusOr<Graph> promoted = compiler::PromoteToF64(*slice);
  if (!promoted.ok()) return promoted.status();
  absl::StatusOr<compiler::EvalResult> r = compiler::Evaluate(*promoted, inputs);
  if (!r.ok()) return r.status();
  return std::move(r->outputs[0]);
}

}  // namespace

absl::StatusOr<double> OperandRoundingRms(const Graph& graph,
                                          absl::Span<const HostTensor> fp64_values,
                                          NodeId node) {
  if (!node.valid() || node.value >= graph.num_nodes() ||
      fp64_values.size() != static_cast<size_t>(graph.num_nodes())) {
    return absl::InternalError("operand rounding: no fp64 value for the node");
  }
  // The cone: every node the output node is computed from.
  std::vector<bool> cone(node.value + 1, false);
  cone[node.value] = true;
  std::vector<NodeId> rounded;
  for (int i = node.value; i >= 0; --i) {
    if (!cone[i]) continue;
    const compiler::Node& n = graph.node(NodeId(i));
    for (NodeId operand : n.operands) cone[operand.value] = true;
    if (i != node.value && static_cast<int>(rounded.size()) < kMaxRoundedNodes &&
        n.op != compiler::Op::kInput &&
        compiler::GetOpKind(n.op) != compiler::OpKind::kSource &&
        compiler::IsLowPrecision(n.type.dtype)) {
      rounded.push_back(NodeId(i));
    }
  }
  const HostTensor& base = fp64_values[node.value];
  if (!base.valid()) return absl::InternalError("operand rounding: the node has no value");
  std::vector<double> squares(base.num_elements(), 0.0);
  for (NodeId r : rounded) {
    const HostTensor& exact = fp64_values[r.value];
    if (!exact.valid()) return absl::InternalError("operand rounding: a node has no value");
    const HostTensor value = exact.ConvertTo(graph.type(r).dtype).ConvertTo(exact.dtype());
    if (value.BitwiseEqual(exact)) continue;  // its dtype holds it: nothing to round
    absl::StatusOr<HostTensor> moved = Recompute(graph, fp64_values, cone, r, value, node);
    if (!moved.ok()) return moved.status();
    for (int64_t i = 0; i < base.num_elements(); ++i) {
      const double d = moved->GetDouble(i) - base.GetDouble(i);
      // A value that leaves a function's domain or overflows says nothing
      // about rounding: left out.
      if (std::isfinite(d)) squares[i] += d * d;
    }
  }
  double sum = 0;
  for (double s : squares) sum += s;
  return squares.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(squares.size()));
}

}  // namespace rk::repro
