#include "compiler/tests/gpu_accuracy.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler::cuda {

namespace {

bool AllClose(const HostTensor& got, const HostTensor& want, double tol) {
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = got.GetDouble(i), b = want.GetDouble(i);
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b)) return false;
      continue;
    }
    if (a == b) continue;  // equal infinities
    if (!(std::fabs(a - b) <= tol + tol * std::fabs(b))) return false;
  }
  return true;
}

}  // namespace

BudgetMetrics JudgeWithErrorBudget(const HostTensor& result, const HostTensor& reference,
                                   const HostTensor& fp64, double tol) {
  BudgetMetrics m;
  const int64_t n = result.num_elements();
  if (!IsFloat(result.dtype())) {
    for (int64_t i = 0; i < n; ++i) {
      if (result.GetInt(i) != reference.GetInt(i)) {
        m.why = absl::StrCat("element ", i, ": ", result.GetInt(i), " vs ", reference.GetInt(i));
        return m;
      }
    }
    m.pass = m.allclose = true;
    return m;
  }
  if (AllClose(result, reference, tol)) {
    m.pass = m.allclose = true;
    return m;
  }
  const DType dtype = result.dtype();
  m.multiplier = dtype == DType::kF16 || dtype == DType::kBF16 || n < 1000 ? 3 : 2;
  double sum_result = 0, sum_reference = 0;
  int64_t judged = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double exact = fp64.GetDouble(i);
    const double got = result.GetDouble(i), ref = reference.GetDouble(i);
    if (std::isnan(exact)) continue;  // cannot judge this element
    if (std::isinf(exact)) {
      if (got != exact) {
        m.why = absl::StrCat("element ", i, ": ", got, " where fp64 is ", exact);
        return m;
      }
      continue;
    }
    if (!std::isfinite(got)) {
      m.why = absl::StrCat("element ", i, ": ", got, " where fp64 is finite (", exact, ")");
      return m;
    }
    // A reference that overflowed counts as far off, not as unjudgeable.
    const double ref_err = std::isfinite(ref) ? ref - exact : HUGE_VAL;
    sum_result += (got - exact) * (got - exact);
    sum_reference += ref_err * ref_err;
    ++judged;
  }
  if (judged > 0) {
    m.rmse_result = std::sqrt(sum_result / judged);
    m.rmse_reference = std::sqrt(sum_reference / judged);
  }
  m.pass = m.rmse_result <= m.multiplier * m.rmse_reference + tol / 10;
  if (!m.pass) {
    m.why = absl::StrCat("rmse vs fp64 ", m.rmse_result, " > ", m.multiplier, " x reference's ",
                         m.rmse_reference, " + ", tol / 10);
  }
  return m;
}

absl::StatusOr<std::string> CompareWithErrorBudget(const std::string& graph_text,
                                                   const CompileOptions& options, double tol,
                                                   const RandomSpec& spec, uint64_t seed) {
  absl::StatusOr<Graph> graph = Parse(graph_text);
  if (!graph.ok()) return graph.status();
  std::vector<HostTensor> inputs;
  for (NodeId id : graph->inputs()) {
    RandomSpec s = spec;
    if (!IsFloat(graph->type(id).dtype) && spec.high - spec.low < 8) {
      s.low = -20;
      s.high = 20;
    }
    inputs.push_back(HostTensor::Random(graph->type(id), seed + id.value, s));
  }
  return CompareInputsWithErrorBudget(graph_text, options, tol, inputs);
}

absl::StatusOr<std::string> CompareInputsWithErrorBudget(const std::string& graph_text,
                                                         const CompileOptions& options, double tol,
                                                         const std::vector<HostTensor>& inputs) {
  absl::StatusOr<Graph> graph = Parse(graph_text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run(inputs);
  if (!got.ok()) return got.status();
  absl::StatusOr<EvalResult> native = Evaluate(*graph, inputs);
  if (!native.ok()) return native.status();
  EvalOptions fp64_options;
  fp64_options.fp64 = true;
  absl::StatusOr<EvalResult> exact = Evaluate(*graph, inputs, fp64_options);
  if (!exact.ok()) return exact.status();
  for (size_t i = 0; i < got->size(); ++i) {
    const HostTensor& g = (*got)[i];
    const HostTensor& w = native->outputs[i];
    if (g.type() != w.type()) {
      return absl::StrCat("output ", i, ": type ", g.type().ToString(), " vs ",
                          w.type().ToString());
    }
    BudgetMetrics m = JudgeWithErrorBudget(g, w, exact->outputs[i], tol);
    if (!m.pass) {
      return absl::StrCat("output ", i, ": ", m.why, "\n got ", g.Summary(), "\nwant ",
                          w.Summary(), "\nfp64 ", exact->outputs[i].Summary());
    }
  }
  return std::string();
}

}  // namespace rk::compiler::cuda
