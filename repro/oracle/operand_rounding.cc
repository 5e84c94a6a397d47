#include "repro/oracle/operand_rounding.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/promote.h"

namespace rk::repro {

using compiler::DType;
using compiler::Graph;
using compiler::HostTensor;
using compiler::NodeId;

double HalfUlp(DType dtype, double x) {
  int precision = 0;  // significand bits, the implicit one included
  int min_exponent = 0;
  if (dtype == DType::kBF16) {
    precision = 8;
    min_exponent = -126;
  } else if (dtype == DType::kF16) {
    precision = 11;
    min_exponent = -14;
  } else {
    return 0;
  }
  if (!std::isfinite(x)) return 0;
  int exponent = 0;
  std::frexp(x, &exponent);  // |x| = m * 2^exponent, m in [0.5, 1)
  const int scale = x == 0 ? min_exponent : std::max(exponent - 1, min_exponent);
  return std::ldexp(0.5, scale - precision + 1);
}

absl::StatusOr<double> OperandRoundingRms(const Graph& graph,
                                          absl::Span<const HostTensor> fp64_values,
                                          NodeId node_id) {
  if (!node_id.valid() || node_id.value >= graph.num_nodes() ||
      fp64_values.size() != static_cast<size_t>(graph.num_nodes())) {
    return absl::InternalError("operand rounding: no fp64 value for the node");
  }
  const compiler::Node& node = graph.node(node_id);
  // One input per distinct operand, so mul(x, x) moves both uses together.
  std::vector<NodeId> distinct;
  std::vector<NodeId> operands;
  for (NodeId operand : node.operands) {
    auto it = std::find(distinct.begin(), distinct.end(), operand);
    if (it == distinct.end()) {
      distinct.push_back(operand);
      it = distinct.end() - 1;
    }
    operands.push_back(NodeId(static_cast<int32_t>(it - distinct.begin())));
  }
  bool any_low = false;
  for (NodeId operand : distinct) {
    any_low = any_low || compiler::IsLowPrecision(graph.type(operand).dtype);
  }
  if (!any_low) return 0.0;

  compiler::GraphBuilder builder("operand_rounding");
  for (size_t j = 0; j < distinct.size(); ++j) {
    builder.Input(absl::StrCat("a", j), graph.type(distinct[j]));
  }
  absl::StatusOr<NodeId> result =
      builder.AddWithType(node.op, operands, node.attrs, node.type);
  if (!result.ok()) return result.status();
  if (absl::Status s = builder.Output(*result); !s.ok()) return s;
  absl::StatusOr<Graph> single = builder.Build();
  if (!single.ok()) return single.status();
  absl::StatusOr<Graph> promoted = compiler::PromoteToF64(*single);
  if (!promoted.ok()) return promoted.status();

  std::vector<HostTensor> inputs;
  for (NodeId operand : distinct) {
    const HostTensor& value = fp64_values[operand.value];
    if (!value.valid()) return absl::InternalError("operand rounding: an operand has no value");
    inputs.push_back(value);
  }
  absl::StatusOr<compiler::EvalResult> base = compiler::Evaluate(*promoted, inputs);
  if (!base.ok()) return base.status();
  const HostTensor& y = base->outputs[0];
  std::vector<double> total(y.num_elements(), 0.0);
  for (size_t j = 0; j < distinct.size(); ++j) {
    const DType dtype = graph.type(distinct[j]).dtype;
    if (!compiler::IsLowPrecision(dtype)) continue;
    const HostTensor original = inputs[j];
    std::vector<double> worst(y.num_elements(), 0.0);
    for (double direction : {1.0, -1.0}) {
      HostTensor moved(original.type());
      for (int64_t i = 0; i < original.num_elements(); ++i) {
        const double x = original.GetDouble(i);
        moved.SetDouble(i, x + direction * HalfUlp(dtype, x));
      }
      inputs[j] = moved;
      absl::StatusOr<compiler::EvalResult> perturbed = compiler::Evaluate(*promoted, inputs);
      if (!perturbed.ok()) return perturbed.status();
      const HostTensor& z = perturbed->outputs[0];
      for (int64_t i = 0; i < y.num_elements(); ++i) {
        const double d = std::abs(z.GetDouble(i) - y.GetDouble(i));
        // A move that leaves the function's domain (the log of a value pushed
        // below zero) or overflows says nothing about rounding: left out.
        if (std::isfinite(d)) worst[i] = std::max(worst[i], d);
      }
    }
    for (int64_t i = 0; i < y.num_elements(); ++i) total[i] += worst[i];
    inputs[j] = original;
  }
  double sum_squares = 0;
  for (double t : total) sum_squares += t * t;
  return total.empty() ? 0.0 : std::sqrt(sum_squares / static_cast<double>(total.size()));
}

}  // namespace rk::repro
