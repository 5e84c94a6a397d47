#include "repro/bisect/divergence.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/driver/compile.h"
#include "compiler/reference/interpreter.h"
#include "repro/bisect/materialize.h"

namespace rk::repro {

absl::StatusOr<DivergenceReport> AnalyzeDivergence(const compiler::Graph& graph,
                                                   absl::Span<const compiler::HostTensor> inputs,
                                                   const compiler::CompileOptions& options,
                                                   const DivergenceOptions& divergence_options) {
  const AccuracyPolicy* policy = FindAccuracyPolicy(divergence_options.policy);
  if (policy == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown accuracy policy '", divergence_options.policy, "'"));
  }
  DivergenceReport report;
  report.policy = divergence_options.policy;
  compiler::CompileOptions plain = options;
  plain.dump_dir.clear();
  if (absl::StatusOr<compiler::Executable> original = compiler::Compile(graph, plain);
      original.ok()) {
    report.fusion_groups_original = static_cast<int>(original->fusion_groups().size());
  }
  compiler::CompileOptions checked = plain;
  checked.checked = true;
  const std::vector<compiler::NodeId> materialized = MaterializedOutputs(graph);
  absl::StatusOr<compiler::Executable> exe =
      compiler::Compile(MaterializeEveryNode(graph), checked);
  if (!exe.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the graph with every node materialized does not compile: ", exe.status().ToString()));
  }
  report.fusion_groups_checked = static_cast<int>(exe->fusion_groups().size());
  absl::StatusOr<std::vector<compiler::HostTensor>> values = exe->Run(inputs);
  if (!values.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the graph with every node materialized does not run: ", values.status().ToString()));
  }
  compiler::EvalOptions eval_options;
  eval_options.record_intermediates = true;
  absl::StatusOr<compiler::EvalResult> native = compiler::Evaluate(graph, inputs, eval_options);
  if (!native.ok()) return native.status();
  eval_options.fp64 = true;
  absl::StatusOr<compiler::EvalResult> fp64 = compiler::Evaluate(graph, inputs, eval_options);
  if (!fp64.ok()) return fp64.status();

  std::vector<bool> is_output(graph.num_nodes(), false);
  for (compiler::NodeId id : graph.outputs()) is_output[id.value] = true;
  for (size_t p = 0; p < materialized.size(); ++p) {
    const compiler::NodeId id = materialized[p];
    const compiler::HostTensor& result = (*values)[p];
    NodeError row;
    row.id = id;
    row.node = graph.DisplayName(id);
    row.op = std::string(compiler::OpName(graph.node(id).op));
    row.dtype = std::string(compiler::DTypeName(graph.type(id).dtype));
    row.graph_output = is_output[id.value];
    const compiler::HostTensor* ref64 =
        compiler::IsFloat(result.dtype()) ? &fp64->values[id.value] : nullptr;
    row.metrics =
        policy->Judge(result, native->values[id.value], ref64, divergence_options.accuracy);
    report.nodes.push_back(std::move(row));
  }
  std::sort(report.nodes.begin(), report.nodes.end(),
            [](const NodeError& a, const NodeError& b) { return a.id < b.id; });
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    if (report.nodes[i].metrics.judgement == Judgement::kFail) {
      report.first_divergent = static_cast<int>(i);
      break;
    }
  }
  return report;
}

std::string DivergenceReport::ToText() const {
  std::string out;
  if (const NodeError* d = divergent()) {
    absl::StrAppendFormat(&out, "first divergent node: %%%s = %s : %s (node #%d of %d checked)\n",
                          d->node, d->op, d->dtype, first_divergent + 1, nodes.size());
    absl::StrAppendFormat(&out, "  %s\n", d->metrics.reason);
  } else {
    absl::StrAppend(&out, "no node diverges: every node's compiled value passes the '", policy,
                    "' policy when every node is materialized\n");
  }
  absl::StrAppendFormat(&out, "\n  %-14s %-12s %-5s %-12s %10s %10s %10s %9s\n", "node", "op",
                        "dtype", "judgement", "max_abs", "rmse_res", "rmse_ref", "ratio");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeError& n = nodes[i];
    const OutputMetrics& m = n.metrics;
    absl::StrAppendFormat(&out, "%s %-14s %-12s %-5s %-12s %10.3g %10.3g %10.3g %9.3g%s\n",
                          static_cast<int>(i) == first_divergent ? ">" : " ", "%" + n.node, n.op,
                          n.dtype, std::string(JudgementName(m.judgement)), m.max_abs_error, m.rmse_result,
                          m.rmse_reference, m.rmse_ratio, n.graph_output ? "  (output)" : "");
  }
  absl::StrAppendFormat(
      &out,
      "\nnote: every node was made a graph output for this run, which changes fusion "
      "(fusion groups: %s originally, %d here); a failure that needs a particular fusion may "
      "not show here (use --passes)\n",
      fusion_groups_original < 0 ? std::string("?") : absl::StrCat(fusion_groups_original),
      fusion_groups_checked);
  return out;
}

Json DivergenceReport::ToJson() const {
  Json j = Json::MakeObject();
  j.Set("mode", "nodes");
  j.Set("policy", policy);
  if (const NodeError* d = divergent()) {
    j.Set("first_divergent", d->node);
  } else {
    j.Set("first_divergent", nullptr);
  }
  j.Set("fusion_groups_original", fusion_groups_original);
  j.Set("fusion_groups_checked", fusion_groups_checked);
  j.Set("note", "every node was made a graph output, which changes fusion");
  Json rows = Json::MakeArray();
  for (const NodeError& n : nodes) {
    Json r = Json::MakeObject();
    r.Set("node", n.node);
    r.Set("id", n.id.value);
    r.Set("op", n.op);
    r.Set("dtype", n.dtype);
    r.Set("graph_output", n.graph_output);
    r.Set("judgement", JudgementName(n.metrics.judgement));
    r.Set("max_abs_error", n.metrics.max_abs_error);
    r.Set("max_rel_error", n.metrics.max_rel_error);
    r.Set("rmse_result", n.metrics.rmse_result);
    r.Set("rmse_reference", n.metrics.rmse_reference);
    r.Set("rmse_ratio", n.metrics.rmse_ratio);
    r.Set("mismatches", n.metrics.mismatches);
    r.Set("reason", n.metrics.reason);
    rows.push_back(std::move(r));
  }
  j.Set("nodes", std::move(rows));
  return j;
}

}  // namespace rk::repro
